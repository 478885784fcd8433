// SPDX-License-Identifier: GPL-2.0
/*
 * qsort_unwind FILE: built -O2 -fomit-frame-pointer.  Sorts an array with
 * libc's qsort; on the 500th call of the comparison callback it saves its
 * own registers (DWARF order, rip = a label inside the callback) and the
 * top of its stack, then after the sort writes them with /proc/self/maps
 * to FILE (tests/lib/capture.h).  tests/lib/gen_exp turns that into a
 * sample: only DWARF CFI unwinding through libc finds the callers.  At
 * the same call libunwind's walk (what the tracing library writes of a
 * heap call's stack) goes to FILE.pcs: its pcs, from the callback out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "capture.h"

static struct lwprof_capture cap;
static void *pcs[64];
static int npcs;
static uint8_t stack_copy[16384];
static uint64_t stack_top;
static int calls;

static __attribute__((noinline)) void save(uint64_t *r)
{
	uint64_t n = stack_top - r[7];

	if (n > sizeof(stack_copy))
		n = sizeof(stack_copy);
	memcpy(stack_copy, (void *)r[7], n);
	cap.stack_size = n;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (++calls == 500) {
		uint64_t *r = cap.regs;

		__asm__ volatile(
			"mov %%rax, 0(%0)\n\tmov %%rdx, 8(%0)\n\t"
			"mov %%rcx, 16(%0)\n\tmov %%rbx, 24(%0)\n\t"
			"mov %%rsi, 32(%0)\n\tmov %%rdi, 40(%0)\n\t"
			"mov %%rbp, 48(%0)\n\tmov %%rsp, 56(%0)\n\t"
			"mov %%r8, 64(%0)\n\tmov %%r9, 72(%0)\n\t"
			"mov %%r10, 80(%0)\n\tmov %%r11, 88(%0)\n\t"
			"mov %%r12, 96(%0)\n\tmov %%r13, 104(%0)\n\t"
			"mov %%r14, 112(%0)\n\tmov %%r15, 120(%0)\n\t"
			"lea 1f(%%rip), %%rax\n\tmov %%rax, 128(%0)\n1:\n\t"
			: : "r"(r) : "rax", "memory");
		save(r);
		npcs = unw_backtrace(pcs, 64);
	}
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static int a[4096];
	static char maps[65536];
	size_t mlen;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: qsort_unwind FILE\n");
		return 2;
	}
	stack_top = capture_stack_top();
	srand(1);
	for (int i = 0; i < 4096; i++)
		a[i] = rand();
	qsort(a, 4096, sizeof(a[0]), cmp);
	f = fopen("/proc/self/maps", "r");
	mlen = f ? fread(maps, 1, sizeof(maps), f) : 0;
	if (f)
		fclose(f);
	memcpy(cap.magic, CAPTURE_MAGIC, 8);
	cap.pid = getpid();
	cap.tid = syscall(SYS_gettid);
	f = fopen(argv[1], "w");
	if (!f || !cap.stack_size || !mlen ||
	    fwrite(&cap, sizeof(cap), 1, f) != 1 ||
	    fwrite(stack_copy, 1, cap.stack_size, f) != cap.stack_size ||
	    fwrite(maps, 1, mlen, f) != mlen || fclose(f)) {
		fprintf(stderr, "qsort_unwind: cannot write %s\n", argv[1]);
		return 1;
	}
	snprintf(maps, sizeof(maps), "%s.pcs", argv[1]);
	f = fopen(maps, "w");
	if (!f || npcs < 3 || fwrite(pcs, 8, npcs, f) != (size_t)npcs || fclose(f)) {
		fprintf(stderr, "qsort_unwind: cannot write %s\n", maps);
		return 1;
	}
	return 0;
}
