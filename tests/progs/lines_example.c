// SPDX-License-Identifier: GPL-2.0
/*
 * lines_example [N]: a hot loop inlined into its caller (built -O2 with
 * DWARF 5, and a DWARF 4 copy, lines_example_dw4).  The analyzer's line
 * tests name the lines by the markers in the comments: samples in the
 * loop's body must show on the body's lines (in the inlined function's
 * code), charged to the caller, outer(), unless -inline on.
 */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) unsigned long
hot_loop(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005UL + (i ^ (s >> 7)); /* LINE:body */
	return s;
}

__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	unsigned long r = hot_loop(n);

	return r ^ (r >> 11); /* LINE:after */
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;

	printf("%lu\n", outer(n)); /* LINE:call */
	return 0;
}
