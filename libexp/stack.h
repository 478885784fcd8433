/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack copies, whole or delta (docs/design/experiment-format.md, "Delta stack
 * copies"): the one place a reader of experiments learns them.
 *
 * A sample's copy is whole, or (LWPROF_RS_SDELTA, struct lwprof_sdelta)
 * the 64-byte blocks that changed since its base: the previous record of
 * the same tid in the same file with LWPROF_RS_SBASE, named by its time.
 * A traced call's copy (EXP_TCF_STACK, struct exp_tstack, format 1.5) is
 * whole, or (EXP_TCF_DELTA) the image words that changed since its base:
 * the thread's last whole copy in the file, named by its number.
 *
 * The codecs check a copy and rebuild it from its base.  The tracker
 * (struct exp_stacks, one per experiment) follows the bases while each
 * file is read in order (exp_stack_scan_*), so that a delta whose base is
 * not there (records lost, a damaged file) is known to have no usable
 * copy; later it hands a record out whole, as it would have been written
 * without deltas (exp_stack_whole), for the unwinder.
 */
#ifndef LWPROF_LIBEXP_STACK_H
#define LWPROF_LIBEXP_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "lwprof.h"
#include "libexp/trace.h"

/* ---- a sample's delta copy ---- */

struct sdelta {
	uint64_t sp;
	uint64_t base_time_ns;
	uint32_t size;		/* bytes of the full copy */
	uint32_t nr_blocks;
	uint32_t nr_literal;
	uint32_t lit_bytes;	/* bytes of the literal blocks */
	const uint8_t *bitmap;	/* nr_blocks bits, as __u64 words */
	const uint8_t *lit;	/* the literal blocks */
};

/*
 * Check the area of len bytes (a sample's stack[]) and fill *d.  NULL, or
 * what is wrong with *at its byte offset in the area.
 */
const char *sdelta_parse(const void *area, uint32_t len, struct sdelta *d,
			 uint32_t *at);

/* Is block i literal? */
bool sdelta_literal(const struct sdelta *d, uint32_t i);

/* Do the reused blocks all lie inside [bsp, bsp + bsize)? */
bool sdelta_fits(const struct sdelta *d, uint64_t bsp, uint32_t bsize);

/*
 * The full copy (d->size bytes) into out, from the literal blocks and the
 * base copy (bsize bytes from bsp); false (out undefined) if a reused
 * block is not inside the base.
 */
bool sdelta_apply(const struct sdelta *d, const uint8_t *base, uint64_t bsp,
		  uint32_t bsize, uint8_t *out);

/* ---- a traced call's copy (v from exp_tcall_view(), v->st set) ---- */

/* A delta's rsp: its literal one, or its base's (bsp). */
__u64 exp_tstack_sp(const struct exp_tcall *v, __u64 bsp);

/*
 * Does every stack word a delta reuses lie in its base's copy (bsize
 * bytes from bsp, the base's rsp)?
 */
int exp_tstack_fits(const struct exp_tcall *v, __u64 bsp, __u32 bsize);

/*
 * The whole image of v into regs (EXP_TR_NR_REGS) and stack (its size
 * bytes): copied, or a delta rebuilt from its base's (bregs, bstack,
 * bsize); 0 if the base does not hold a reused word.
 */
int exp_tstack_apply(const struct exp_tcall *v, const __u64 *bregs,
		     const __u8 *bstack, __u32 bsize, __u64 *regs, __u8 *stack);

/* ---- the tracker ---- */

/*
 * The record that holds the stack copy of h, a record the reader handed
 * out: a trace call record itself, else its sample (exp_rec_sample()).
 */
const uint8_t *exp_stack_rec(const struct lwprof_rec *h);

/* The deltas of one experiment and their bases (file ids: exp.h's). */
struct exp_stacks;

struct exp_stacks *exp_stacks_new(void);
void exp_stacks_free(struct exp_stacks *st);

/* One file being read in order: the base of each tid so far. */
struct exp_stack_scan {
	/* the caller's to read */
	uint64_t missing;	/* deltas without their base */
	/* the tracker's own */
	struct exp_stacks *st;
	uint32_t file;
	struct exp_stack_base *bases;
	size_t nbases, cap;
	void *base_of;		/* tid -> bases index */
	size_t nbase_of;
};

void exp_stack_scan_begin(struct exp_stack_scan *sc, struct exp_stacks *st,
			  uint32_t file);
/*
 * A sample record r at file offset off with a stack copy (stack, its
 * stack_size bytes; max_size: log.txt's stack_bytes, 0 none): 1 if its
 * copy is usable, 0 if it is a delta without its base (counted in
 * sc->missing), -EINVAL if the delta is damaged (*msg, and *at its offset
 * in the record), -ENOMEM.
 */
int exp_stack_sample(struct exp_stack_scan *sc, uint64_t off,
		     const struct lwprof_rec_sample *r, const uint8_t *stack,
		     uint32_t max_size, const char **msg, uint64_t *at);
/*
 * A trace call record's stack (t->st) at off: 1, or 0 if it is a delta
 * without its base (counted), or -ENOMEM.
 */
int exp_stack_tcall(struct exp_stack_scan *sc, uint64_t off,
		    const struct exp_tcall *t);
void exp_stack_scan_end(struct exp_stack_scan *sc);

/*
 * The stack record rec (exp_stack_rec(), at off in file) whole, as the
 * module would have written it without deltas: rec itself when it has no
 * delta, else a malloc'd rebuilt record (*owned, for the caller to free);
 * NULL if it cannot be rebuilt.  A trace call record becomes such a
 * sample: uapi's registers, its whole copy.  bases: a reader of the same
 * file (not the one rec came from) for the records its delta goes back
 * to.  Records are best asked for in file order: a delta is rebuilt from
 * the copy last rebuilt for its thread.
 */
struct exp_reader;
const uint8_t *exp_stack_whole(struct exp_stacks *st, uint32_t file,
			       uint64_t off, struct exp_reader *bases,
			       const uint8_t *rec, uint8_t **owned);

#endif
