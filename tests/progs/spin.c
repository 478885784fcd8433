// SPDX-License-Identifier: GPL-2.0
/*
 * spin SECS: run in user mode for SECS seconds (the clock is read through
 * the vDSO), then exit 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile unsigned long n = 0;
	double end;

	if (argc != 2) {
		fprintf(stderr, "usage: spin SECS\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			n++;
	return 0;
}
