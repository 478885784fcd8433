// SPDX-License-Identifier: GPL-2.0
/*
 * deep_recurse [SECONDS]: built -O2 -fomit-frame-pointer (no frame
 * pointers: only DWARF unwinding finds the callers).  For SECONDS
 * (default 2) of CPU: main -> descend -> rec_a -> rec_b -> rec_a ... ->
 * rec_b -> leaf_spin, 30 to 49 rec_a/rec_b pairs deep, spinning in
 * leaf_spin at the bottom.  The depth changes every 64 rounds, so the
 * stack is mostly the same from one sample to the next, as in a program
 * with a hot loop under a deep call chain.  leaf_spin's only caller is
 * rec_b, rec_b's is rec_a, rec_a's are rec_b and descend, descend's is
 * main.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t sink;

__attribute__((noipa)) uint64_t leaf_spin(void)
{
	uint64_t i, s = sink;

	for (i = 0; i < 1000000; i++)
		s = s * 6364136223846793005ULL + i;
	sink = s;
	return s & 1;
}

uint64_t rec_a(int n);

__attribute__((noipa)) uint64_t rec_b(int n)
{
	volatile uint64_t pad[2] = { n, n * 3 };

	return (n ? rec_a(n - 1) : leaf_spin()) + pad[1] % 2;
}

__attribute__((noipa)) uint64_t rec_a(int n)
{
	volatile uint64_t pad[3] = { n, n * 5, n * 7 };

	return rec_b(n) + pad[2] % 2;
}

__attribute__((noipa)) uint64_t descend(int depth)
{
	return rec_a(depth) + 1;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	uint64_t k = 0, r = 0;

	while (cpu_s() < secs) {
		r += descend(30 + (k / 64) % 20);
		k++;
	}
	sink = r;
	return 0;
}
