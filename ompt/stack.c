// SPDX-License-Identifier: GPL-2.0
/*
 * The call stacks of the OpenMP records (ompt.h): unwound with glibc's
 * backtrace() (the programs' and the runtime's CFI) the first time a
 * thread is at a place, then named by id: a thread remembers the last
 * places it was at, by the program's return address and its task's
 * frames, which a loop that enters the same region or barrier again and
 * again keeps, so it unwinds once.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <string.h>

#include "libexp/omp.h"
#include "ompt/ompt.h"
#include "trace.h"

#define CACHE	64		/* places a thread remembers */
#define DEPTH	128		/* frames unwound */

struct place {
	uint64_t k1, k2, k3;
	uint32_t pid, id;
};

static __thread struct place cache[CACHE] TR_TLS;
static uint32_t next_id;
static uintptr_t self_lo, self_hi;	/* this library's text */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t base = (uintptr_t)arg, lo, hi;
	int i;

	if (info->dlpi_addr != base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		lo = base + p->p_vaddr;
		hi = lo + p->p_memsz;
		if (!self_lo || lo < self_lo)
			self_lo = lo;
		if (hi > self_hi)
			self_hi = hi;
	}
	return 1;
}

void omp_stack_init(void)
{
	void *ips[4];
	Dl_info di;

	if (dladdr((void *)omp_stack_init, &di) && di.dli_fbase)
		dl_iterate_phdr(find_self, di.dli_fbase);
	backtrace(ips, 4);	/* loads the unwinder now, not in a callback */
}

uint32_t omp_stack(uint64_t k1, uint64_t k2, uint64_t k3)
{
	uint64_t h = (k1 ^ (k2 * 0x9e3779b97f4a7c15ULL) ^ (k3 >> 4)) * 0xff51afd7ed558ccdULL;
	struct place *p = &cache[(h >> 58) & (CACHE - 1)];
	struct exp_rec_omp_stack *s;
	void *ips[DEPTH];
	int n, i = 0;
	size_t size;

	if (p->id && p->pid == (uint32_t)tr.pid && p->k1 == k1 && p->k2 == k2 &&
	    p->k3 == k3)
		return p->id;
	n = backtrace(ips, DEPTH);
	while (i < n && (uintptr_t)ips[i] >= self_lo && (uintptr_t)ips[i] < self_hi)
		i++;	/* the tool's own frames */
	size = sizeof(*s) + 8 * (size_t)(n - i);
	s = (struct exp_rec_omp_stack *)tr_reserve(size);
	if (!s)
		return 0;
	memset(s, 0, sizeof(*s));
	s->hdr.type = EXP_REC_OMP_STACK;
	s->hdr.size = size;
	s->pid = tr.pid;
	s->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	s->nr = n - i;
	memcpy(s->ips, ips + i, 8 * (size_t)(n - i));
	tr_commit(size);
	*p = (struct place){ k1, k2, k3, tr.pid, s->id };
	return s->id;
}
