// SPDX-License-Identifier: GPL-2.0
/*
 * spin_nap [MS]: for MS milliseconds of wall time (default 1000), spin in
 * user mode for 2 ms, then nanosleep() for 8 ms, and again: a thread whose
 * clock packets, taken at the return from nanosleep(), carry both User CPU
 * (the spin) and Sleep (the nap), for the test that on-CPU time never
 * lands on the kernel stack where the thread blocked.  Prints the loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 8000000 };
	double end = now() + (argc > 1 ? atoi(argv[1]) : 1000) / 1e3;
	long n = 0;

	while (now() < end) {
		spin(0.002);
		nanosleep(&nap, NULL);
		n++;
	}
	printf("%ld\n", n);
	return 0;
}
