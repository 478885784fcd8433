// SPDX-License-Identifier: GPL-2.0
/* A sample record's register set (libexp/sample.h). */
#include <string.h>

#include "libexp/sample.h"

const char *exp_regs_get(const struct exp_file_header *h, struct exp_regs *r,
			 unsigned int *at)
{
	*at = 32;
	if (!h->e_machine && !h->nr_regs && !h->reg_mask) {
		*r = EXP_REGS_X86_64;	/* 1.0, 1.1 */
		return NULL;
	}
	r->e_machine = h->e_machine;
	r->nr = h->nr_regs;
	r->mask = h->reg_mask;
	if (!r->e_machine)
		return "registers of machine 0";
	*at = 40;
	if ((unsigned int)__builtin_popcountll(r->mask) != r->nr)
		return "register mask and count (byte 34) disagree";
	return NULL;
}

int exp_regs_index(const struct exp_regs *r, unsigned int dwarf)
{
	if (dwarf > 63 || !(r->mask >> dwarf & 1))
		return -1;
	return __builtin_popcountll(r->mask & ((1ULL << dwarf) - 1));
}

const char *exp_regs_name(const struct exp_regs *r, unsigned int i)
{
	static const char *const x86_64[EXP_X86_64_NR_REGS] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
		"r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	unsigned int d;

	if (r->e_machine != EXP_EM_X86_64)
		return NULL;
	for (d = 0; d < EXP_X86_64_NR_REGS; d++)
		if (r->mask >> d & 1 && !i--)
			return x86_64[d];
	return NULL;
}

__u64 exp_csample_known(const struct exp_rec_csample *c)
{
	return sizeof(*c) + 8ULL * __builtin_popcount(c->ms_mask) +
	       8ULL * __builtin_popcount(c->reg_mask) +
	       8ULL * ((__u32)c->nr_user + c->nr_kernel) +
	       (((__u64)c->stack_size + 7) & ~7ULL);
}

__u64 exp_csample_full(const struct exp_rec_csample *c, unsigned int nr_regs)
{
	return sizeof(struct lwprof_rec_sample) +
	       (c->hdr.flags & LWPROF_RS_REGS ? 8ULL * nr_regs : 0) +
	       8ULL * ((__u32)c->nr_user + c->nr_kernel) +
	       (((__u64)c->stack_size + 7) & ~7ULL);
}

/*
 * The kept registers are read first: the microstates may take their
 * place.  The frames and the stack copy then move down, as one block.
 */
__u32 exp_sample_compact(void *dst, const struct lwprof_rec_sample *s,
			 unsigned int nr_regs, __u32 keep)
{
	const struct lwprof_rec_sample f = *s;
	const __u64 *regs = exp_sample_regs(s);
	const unsigned char *rest = (const unsigned char *)exp_sample_ips(s, nr_regs);
	size_t nrest = f.hdr.size - exp_sample_regs_bytes(s, nr_regs) - sizeof(f);
	struct exp_rec_csample c;
	unsigned char *q = (unsigned char *)dst + sizeof(c);
	unsigned int i, nr = 0;
	__u64 kept[32];

	memset(&c, 0, sizeof(c));
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (f.mstate_ns[i])
			c.ms_mask |= 1u << i;
	if (regs) {
		if (nr_regs < 32)
			keep &= (1u << nr_regs) - 1;
		for (i = 0; i < nr_regs && i < 32; i++)
			if (keep >> i & 1)
				kept[nr++] = regs[i];
		c.reg_mask = keep;
	}
	if (sizeof(c) + 8 * ((size_t)__builtin_popcount(c.ms_mask) + nr) +
	    nrest >= f.hdr.size) {
		if (dst != s)	/* no smaller: stays a sample */
			memmove(dst, s, f.hdr.size);
		return f.hdr.size;
	}
	c.hdr.type = EXP_REC_CSAMPLE;
	c.hdr.flags = f.hdr.flags;
	if (!nr)
		c.hdr.flags &= ~LWPROF_RS_REGS;
	c.time_ns = f.time_ns;
	c.pid = f.pid;
	c.tid = f.tid;
	c.cpu = f.cpu;
	c.kind = f.kind;
	c.counter = f.counter;
	c.value = f.value;
	c.nr_user = f.nr_user;
	c.nr_kernel = f.nr_kernel;
	c.stack_size = f.stack_size;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (c.ms_mask >> i & 1) {
			memcpy(q, &f.mstate_ns[i], 8);
			q += 8;
		}
	memcpy(q, kept, 8 * (size_t)nr);
	q += 8 * (size_t)nr;
	memmove(q, rest, nrest);
	q += nrest;
	c.hdr.size = q - (unsigned char *)dst;
	memcpy(dst, &c, sizeof(c));
	return c.hdr.size;
}

void exp_csample_expand(struct lwprof_rec_sample *dst,
			const struct exp_rec_csample *c, unsigned int nr_regs)
{
	const unsigned char *p = (const unsigned char *)(c + 1);
	unsigned char *q = (unsigned char *)(dst + 1);
	size_t nrest = 8 * ((size_t)c->nr_user + c->nr_kernel) +
		       (((size_t)c->stack_size + 7) & ~(size_t)7);
	unsigned int i;

	memset(dst, 0, sizeof(*dst));
	dst->hdr.type = LWPROF_REC_SAMPLE;
	dst->hdr.flags = c->hdr.flags;
	dst->hdr.size = exp_csample_full(c, nr_regs);
	dst->time_ns = c->time_ns;
	dst->pid = c->pid;
	dst->tid = c->tid;
	dst->cpu = c->cpu;
	dst->kind = c->kind;
	dst->counter = c->counter;
	dst->value = c->value;
	dst->nr_user = c->nr_user;
	dst->nr_kernel = c->nr_kernel;
	dst->stack_size = c->stack_size;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (c->ms_mask >> i & 1) {
			memcpy(&dst->mstate_ns[i], p, 8);
			p += 8;
		}
	p += 8 * (size_t)__builtin_popcount(c->ms_mask & ~EXP_CS_MS_MASK);
	if (c->hdr.flags & LWPROF_RS_REGS) {
		for (i = 0; i < nr_regs; i++, q += 8) {
			if (i < 32 && c->reg_mask >> i & 1) {
				memcpy(q, p, 8);
				p += 8;
			} else {
				memset(q, 0, 8);
			}
		}
	}
	memcpy(q, p, nrest);
}
