// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof sample records from perf samples (perf.h): the user
 * registers in the DWARF order of uapi/lwprof_record.h, perf's call chain
 * cut at its context markers into user frames and kernel frames (leaf
 * first, as the module writes them), the copy of the top of the user
 * stack.  The layout is libexp/sample.h's; each goes into its ring as a
 * compact sample (EXP_REC_CSAMPLE): its nonzero microstates and the
 * registers x86-64 unwinding reads (EXP_X86_64_UNWIND_REGS).
 */
#include <string.h>

#include "libexp/sample.h"
#include "userspace/backend/perf/perf.h"

/*
 * For each lwprof register (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip)
 * its index among perf's (AX BX CX DX SI DI BP SP IP R8..R15).
 */
static const unsigned char dwarf_from_perf[LWPROF_NR_REGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8,
};

/* Split perf's chain into kernel and user frames, markers dropped. */
static void split_chain(const struct psample *s, const __u64 **k,
			unsigned int *nk, const __u64 **u, unsigned int *nu)
{
	const __u64 **cur = NULL;
	unsigned int *n = NULL;
	__u64 i;

	*k = *u = NULL;
	*nk = *nu = 0;
	for (i = 0; i < s->nr; i++) {
		__u64 ip = s->chain[i];

		if (ip >= (__u64)PERF_CONTEXT_MAX) {
			if (ip == (__u64)PERF_CONTEXT_KERNEL) {
				cur = k;
				n = nk;
			} else if (ip == (__u64)PERF_CONTEXT_USER) {
				cur = u;
				n = nu;
			} else {
				cur = NULL;	/* guest or hypervisor */
				n = NULL;
			}
			if (cur && !*cur)
				*cur = s->chain + i + 1;
			continue;
		}
		if (n && *cur + *n == s->chain + i)
			(*n)++;	/* contiguous after its marker */
	}
}

bool prec_futex(const struct psrc *p, const struct psample *s)
{
	const __u64 *k, *u;
	unsigned int nk, nu, i, j;

	if (!p->futex)
		return false;
	split_chain(s, &k, &nk, &u, &nu);
	for (i = 0; i < nk; i++)
		for (j = 0; j < p->nr_futex_fn; j++)
			if (k[i] >= p->futex_fn[j].start &&
			    k[i] < p->futex_fn[j].end)
				return true;
	return false;
}

unsigned char *prec_head(struct pconv *c, struct lwprof_rec_sample *r,
			 const struct psample *s, __u16 kind, __u16 counter,
			 __u64 value, __u16 flags)
{
	const struct psrc *p = c->p;
	unsigned char *q = (unsigned char *)(r + 1);
	const __u64 *k, *u;
	unsigned int nk, nu, i;

	split_chain(s, &k, &nk, &u, &nu);
	/*
	 * perf stops a chain at sample_max_stack frames, kernel and user
	 * together: a chain that long was cut, its user walk did not end
	 * at the program's first frame (the module's max_depth rule).
	 */
	if (nu && nk + nu >= p->depth)
		flags |= LWPROF_RS_TRUNC;
	if (!p->o->kstack)
		nk = 0;
	if (nu > p->depth + 1)
		nu = p->depth + 1;
	if (nk > p->depth + 1)
		nk = p->depth + 1;
	memset(r, 0, sizeof(*r));
	r->hdr.type = LWPROF_REC_SAMPLE;
	r->time_ns = s->time;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = s->cpu;
	r->kind = kind;
	r->counter = counter;
	r->value = value;
	r->nr_user = nu;
	r->nr_kernel = nk;
	if ((s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		flags |= LWPROF_RS_KMODE;
	if (s->regs) {
		flags |= LWPROF_RS_REGS;
		for (i = 0; i < LWPROF_NR_REGS; i++, q += 8)
			memcpy(q, &s->regs[dwarf_from_perf[i]], 8);
	}
	memcpy(q, u, 8 * (size_t)nu);
	q += 8 * (size_t)nu;
	memcpy(q, k, 8 * (size_t)nk);
	q += 8 * (size_t)nk;
	r->hdr.flags = flags;
	r->hdr.size = q - (unsigned char *)r;
	return q;
}

struct lwprof_rec_sample *prec_begin(struct pconv *c, __u32 cpu)
{
	void *r = pout_room(&c->p->cpu[prec_ring(c, cpu)].out, c->scratch_len);

	return r ? r : (void *)c->scratch;
}

bool prec_end(struct pconv *c, struct lwprof_rec_sample *r)
{
	if ((unsigned char *)r == c->scratch)
		return prec_put(c, r, r->cpu, r->time_ns);
	/* in its ring, where it shrinks in place */
	exp_sample_compact(r, r, LWPROF_NR_REGS, EXP_X86_64_UNWIND_REGS);
	pout_commit(&c->p->cpu[prec_ring(c, r->cpu)].out, r);
	c->written++;
	return true;
}

struct lwprof_rec_mmap *prec_mmap(union prec_mmap_buf *u, const struct pmap *m)
{
	size_t n = m->path_len < 4095 ? m->path_len : 4095;

	memset(u, 0, sizeof(*u));
	u->r.hdr.type = LWPROF_REC_MMAP;
	u->r.time_ns = m->time;
	u->r.pid = m->pid;
	u->r.tid = m->tid;
	u->r.start = m->start;
	u->r.len = m->len;
	u->r.pgoff = m->pgoff;
	u->r.ino = m->ino;
	u->r.dev_major = m->maj;
	u->r.dev_minor = m->min;
	u->r.prot = m->prot;
	/*
	 * A file's path begins with one '/'; perf names memory of no file
	 * with two ("//anon", "//toolong"), as the module does anonymous
	 * memory, or in brackets ("[heap]"): all anonymous, no file to
	 * archive or read, no file offset.
	 */
	if ((n > 1 && m->path[0] == '/' && m->path[1] != '/') ||
	    (n == 6 && !memcmp(m->path, "[vdso]", 6))) {
		memcpy(u->r.path, m->path, n);
	} else {
		n = 6;
		memcpy(u->r.path, "//anon", n);
		u->r.hdr.flags = LWPROF_MMAP_ANON;
		u->r.pgoff = 0;
	}
	u->r.hdr.size = (sizeof(u->r) + n + 1 + 7) & ~7UL;
	return &u->r;
}

__u32 prec_ring(const struct pconv *c, __u32 cpu)
{
	return cpu < c->p->nr_cpus ? cpu : 0;
}

bool prec_put(struct pconv *c, const void *rec, __u32 cpu, __u64 time_ns)
{
	const struct lwprof_rec *h = rec;

	if (h->type == LWPROF_REC_SAMPLE && h->size <= c->scratch_len) {
		exp_sample_compact(c->compact, rec, LWPROF_NR_REGS,
				   EXP_X86_64_UNWIND_REGS);
		rec = c->compact;
	}
	cpu = prec_ring(c, cpu);
	if (!pout_put(&c->p->cpu[cpu].out, rec, cpu, time_ns))
		return false;
	c->written++;
	return true;
}
