/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing tests' workloads (tests/progs/trace_*.c) leak known blocks
 * and say so: truth_leak(FUNC, N, SIZE) keeps N blocks of SIZE bytes and
 * prints "truth FUNC N BYTES", which the test compares with what print
 * shows at FUNC, the caller (it must not be inlined into it).
 */
#ifndef LWPROF_TESTS_TRUTH_H
#define LWPROF_TESTS_TRUTH_H

#include <stdio.h>
#include <stdlib.h>

static void *volatile truth_keep[64];

/*
 * stdout's buffer is the program's, not the heap's: the allocation
 * printf would make at the first truth line is in no function's truth.
 */
static __attribute__((constructor, unused)) void truth_stdout(void)
{
	static char buf[BUFSIZ];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

static __attribute__((noinline, unused)) void truth_leak(const char *f, int n,
							  size_t size)
{
	static int next;
	int i;

	for (i = 0; i < n; i++)
		truth_keep[next++ % 64] = malloc(size);
	printf("truth %s %d %zu\n", f, n, n * size);
	fflush(stdout);
}

#endif
