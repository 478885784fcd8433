// SPDX-License-Identifier: GPL-2.0
/*
 * nap SECS: one nanosleep of SECS seconds; prints how long it took, as
 * the program saw it on CLOCK_MONOTONIC ("slept 0.300123456").
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1, ts;
	double secs;

	if (argc != 2) {
		fprintf(stderr, "usage: nap SECS\n");
		return 2;
	}
	secs = atof(argv[1]);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("slept %.9f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
