// SPDX-License-Identifier: GPL-2.0
/*
 * deep_fp DEPTH SECS: main -> deep_rec -> deep_rec ... (DEPTH calls of
 * deep_rec) -> deep_spin, which spins for SECS seconds.  Built with frame
 * pointers, each frame a few dozen bytes: at DEPTH 500 every sample's
 * stack is deeper than perf's chain (kernel.perf_event_max_stack, 127 by
 * default) and than an 8 KiB stack copy, so no recorder reaches main
 * from deep_spin; at DEPTH 20 every one does.
 */
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void deep_spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		for (volatile int i = 0; i < 100000; i++)
			;
}

__attribute__((noinline)) void deep_rec(int n, double secs)
{
	if (n > 1)
		deep_rec(n - 1, secs);
	else
		deep_spin(secs);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	deep_rec(atoi(argv[1]), atof(argv[2]));
	return 0;
}
