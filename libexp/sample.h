/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sample record's variable layout (uapi/lwprof_record.h): after the
 * fixed part, each a multiple of 8 bytes, the registers (with
 * LWPROF_RS_REGS: as many as the file header's register set has), the
 * user frames, the kernel frames and the stack copy padded to 8 bytes.
 * Everyone who looks past the fixed part uses these: the reader, dump,
 * the analyzer, the test generators.  The functions do not check: the
 * reader (libexp/reader.h) has checked the record against its size.
 */
#ifndef LWPROF_LIBEXP_SAMPLE_H
#define LWPROF_LIBEXP_SAMPLE_H

#include <stddef.h>

#include "lwprof.h"
#include "libexp/format.h"

/* The register set of a file's samples (its header's, 1.1 zeros filled). */
struct exp_regs {
	__u16 e_machine;	/* EXP_EM_* */
	__u16 nr;		/* registers in a sample with LWPROF_RS_REGS */
	__u64 mask;		/* their DWARF numbers */
};

/* x86-64's 17 (uapi's LWPROF_NR_REGS, LWPROF_REG_*): 1.1 files, the module. */
#define EXP_REGS_X86_64 \
	((struct exp_regs){ EXP_EM_X86_64, EXP_X86_64_NR_REGS, EXP_X86_64_REG_MASK })

/*
 * The header's register set into *r: NULL, or what is wrong with it, and
 * *at the header's offset of the field.
 */
const char *exp_regs_get(const struct exp_file_header *h, struct exp_regs *r,
			 unsigned int *at);

/* Is r x86-64's set in uapi's order (what the module writes)? */
static inline int exp_regs_x86_64(const struct exp_regs *r)
{
	return r->e_machine == EXP_EM_X86_64 && r->mask == EXP_X86_64_REG_MASK;
}

/* The index in regs[] of DWARF register dwarf, or -1 if not in the set. */
int exp_regs_index(const struct exp_regs *r, unsigned int dwarf);

/* A register's name ("rax"), or NULL when the machine's are not known. */
const char *exp_regs_name(const struct exp_regs *r, unsigned int i);

/* Bytes of the registers of s. */
static inline size_t exp_sample_regs_bytes(const struct lwprof_rec_sample *s,
					   unsigned int nr_regs)
{
	return s->hdr.flags & LWPROF_RS_REGS ? 8 * (size_t)nr_regs : 0;
}

/* Bytes of the fixed part, the registers and the frames. */
static inline __u64 exp_sample_frames_end(const struct lwprof_rec_sample *s,
					  unsigned int nr_regs)
{
	return sizeof(*s) + exp_sample_regs_bytes(s, nr_regs) +
	       8ULL * ((__u32)s->nr_user + s->nr_kernel);
}

/*
 * The bytes of s this format knows: through the padded stack copy.  The
 * record's size equals it, or (a newer minor's) exceeds it.
 */
static inline __u64 exp_sample_known(const struct lwprof_rec_sample *s,
				     unsigned int nr_regs)
{
	return exp_sample_frames_end(s, nr_regs) +
	       (((__u64)s->stack_size + 7) & ~7ULL);
}

static inline const __u64 *exp_sample_regs(const struct lwprof_rec_sample *s)
{
	return s->hdr.flags & LWPROF_RS_REGS ? (const __u64 *)(s + 1) : NULL;
}

static inline const __u64 *exp_sample_ips(const struct lwprof_rec_sample *s,
					  unsigned int nr_regs)
{
	return (const __u64 *)((const unsigned char *)(s + 1) +
			       exp_sample_regs_bytes(s, nr_regs));
}

static inline const __u64 *exp_sample_kips(const struct lwprof_rec_sample *s,
					   unsigned int nr_regs)
{
	return exp_sample_ips(s, nr_regs) + s->nr_user;
}

/* stack_size bytes: the copy, or with LWPROF_RS_SDELTA a delta's area. */
static inline const unsigned char *
exp_sample_stack(const struct lwprof_rec_sample *s, unsigned int nr_regs)
{
	return (const unsigned char *)(exp_sample_kips(s, nr_regs) +
				       s->nr_kernel);
}

/*
 * Compact samples (EXP_REC_CSAMPLE, format 1.11).  exp_csample_known():
 * the bytes of c this format knows.  exp_sample_compact(): s (whose file
 * has nr_regs registers) as a compact sample at dst, which may be s
 * itself, keeping the registers of keep (bit i: register i); returns its
 * size; a sample whose compact form would be no smaller stays a sample
 * (copied to dst).  exp_csample_expand(): c as the sample it
 * stands for at dst (exp_csample_full() bytes), the microstates and
 * registers it did not store zero.  Neither checks: the reader checks c
 * first.
 */
__u64 exp_csample_known(const struct exp_rec_csample *c);
__u64 exp_csample_full(const struct exp_rec_csample *c, unsigned int nr_regs);
__u32 exp_sample_compact(void *dst, const struct lwprof_rec_sample *s,
			 unsigned int nr_regs, __u32 keep);
void exp_csample_expand(struct lwprof_rec_sample *dst,
			const struct exp_rec_csample *c, unsigned int nr_regs);

#endif
