// SPDX-License-Identifier: GPL-2.0
/*
 * Stack copies for the perf backend, as delta copies (uapi/lwprof_record.h,
 * struct lwprof_sdelta; the module's --stack-delta): perf copies the whole
 * top of the user stack at every sample, and most of it is what the
 * thread's previous sample copied.  Each sample of a thread with a stack
 * copy is a base (LWPROF_RS_SBASE); when the thread's previous one went
 * into the same ring, the copy goes as the 64-byte blocks that differ from
 * it (LWPROF_RS_SDELTA), if that is smaller.  The reader rebuilds the copy
 * from the base (libexp/stack.h).
 *
 * The copy is read where perf wrote it and compared there; only the
 * blocks that differ are copied, into the record and into the thread's
 * base, which is kept by address (a window of the stack a little larger
 * than a copy), so a thread whose stack pointer stays inside the window
 * never copies its whole stack again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/backend/perf/perf.h"

#define BLK	LWPROF_SDELTA_BLOCK
#define RUN	8	/* blocks compared at once first */
#define SLACK	2048	/* how far the stack pointer may move in the window */
#define PERF_REG_SP	7	/* in perf's order (perf.h) */

/* The base window's bytes: a copy, and room for sp to move either way. */
static __u32 window(const struct pconv *c)
{
	return (c->p->stack_bytes + 2 * SLACK + BLK + BLK - 1) & ~(__u32)(BLK - 1);
}

/* Are the n bytes at a and b equal?  (Blocks are 64 bytes but the ends.) */
static bool same(const unsigned char *a, const unsigned char *b, __u32 n)
{
	__u64 x, y, d = 0;
	__u32 i;

	if (n != BLK)
		return !memcmp(a, b, n);
	for (i = 0; i < BLK; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		d |= x ^ y;
	}
	return !d;
}

/* The stack copy (size bytes at src) whole at q, the end of r's frames. */
static void whole(struct lwprof_rec_sample *r, unsigned char *q,
		  const unsigned char *src, __u32 size)
{
	memcpy(q, src, size);
	memset(q + size, 0, (8 - size % 8) % 8);
	r->stack_size = size;
	r->hdr.size += (size + 7) & ~7U;
}

/* t's base window placed around sp, and the copy at sp into it. */
static void rebase(struct pconv *c, struct pthr *t, __u64 sp,
		   const unsigned char *src, __u32 size)
{
	__u64 a = sp & ~(__u64)(BLK - 1);

	if (!t->base) {
		t->base = malloc(window(c));
		if (!t->base) {
			t->base_size = 0;
			return;
		}
	}
	t->base_org = a > SLACK ? a - SLACK : 0;
	memcpy(t->base + (sp - t->base_org), src, size);
}

/*
 * The copy (size bytes at src, from sp) at q as a delta against t's
 * base; false if that would not be smaller than the copy.  The blocks
 * that differ also go into the base window when in_place (the copy lies
 * inside it).
 */
static bool encode(struct pthr *t, struct lwprof_rec_sample *r,
		   unsigned char *q, const unsigned char *src, __u64 sp,
		   __u32 size, bool in_place)
{
	__u64 first = sp & ~(__u64)(BLK - 1), lo, hi;
	__u64 old_lo = t->base_sp, old_hi = t->base_sp + t->base_size;
	__u32 nb = (sp + size - first + BLK - 1) / BLK, nw = (nb + 63) / 64;
	__u32 used = sizeof(struct lwprof_sdelta) + 8 * nw, nlit = 0, i, n;
	struct lwprof_sdelta *h = (void *)q;
	__u64 *bits = (__u64 *)(h + 1);

	if (used >= size)
		return false;
	memset(q, 0, used);
	for (i = 0; i < nb; i++) {
		lo = first + (__u64)BLK * i;
		/*
		 * A run of RUN blocks inside both copies at once: most of a
		 * stack (its callers' frames) is what it was.
		 */
		if (i % RUN == 0 && lo >= sp && lo >= old_lo &&
		    lo + RUN * BLK <= sp + size && lo + RUN * BLK <= old_hi &&
		    !memcmp(src + (lo - sp), t->base + (lo - t->base_org),
			    RUN * BLK)) {
			i += RUN - 1;
			continue;
		}
		hi = lo + BLK < sp + size ? lo + BLK : sp + size;
		if (lo < sp)
			lo = sp;
		n = hi - lo;
		if (lo >= old_lo && hi <= old_hi &&
		    same(src + (lo - sp), t->base + (lo - t->base_org), n))
			continue;
		if (used + n >= size)
			return false;
		bits[i / 64] |= 1ULL << (i % 64);
		memcpy(q + used, src + (lo - sp), n);
		if (in_place)
			memcpy(t->base + (lo - t->base_org), src + (lo - sp), n);
		used += n;
		nlit++;
	}
	h->sp = sp;
	h->base_time_ns = t->base_time;
	h->size = size;
	h->nr_blocks = nb;
	h->nr_literal = nlit;
	memset(q + used, 0, (8 - used % 8) % 8);
	r->stack_size = used;
	r->hdr.flags |= LWPROF_RS_SDELTA;
	r->hdr.size += (used + 7) & ~7U;
	return true;
}

void pdelta_stack(struct pconv *c, struct pthr *t, struct lwprof_rec_sample *r,
		  unsigned char *q, const struct psample *s)
{
	__u32 size = s->regs ? s->dyn : 0, ring = prec_ring(c, r->cpu);
	__u64 sp = size ? s->regs[PERF_REG_SP] : 0;
	bool in_place;

	r->stack_size = 0;
	if (!size)
		return;
	/* A sample while a switch-out packet waits would go before it. */
	if (!t || t->parked_on) {
		whole(r, q, s->stack, size);
		return;
	}
	r->hdr.flags |= LWPROF_RS_SBASE;
	if (c->p->o->no_sdelta) {
		whole(r, q, s->stack, size);
		return;
	}
	in_place = t->base && sp >= t->base_org &&
		   sp + size <= t->base_org + window(c);
	if (!t->base_size || t->base_ring != ring ||
	    t->base_time == r->time_ns ||
	    !encode(t, r, q, s->stack, sp, size, in_place)) {
		whole(r, q, s->stack, size);
		in_place = false;
	}
	t->base_size = size;
	if (!in_place)
		rebase(c, t, sp, s->stack, size);
	t->base_sp = sp;
	t->base_time = r->time_ns;
	t->base_ring = ring;
}

void pdelta_lost(struct pthr *t)
{
	if (t)
		t->base_size = 0;
}
