// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_loop SECS: call clock_gettime(CLOCK_MONOTONIC) for SECS seconds, so
 * that nearly all of the time is in the vDSO's __vdso_clock_gettime (or in
 * the system call it falls back to, under a clock the vDSO cannot read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	double end;

	if (argc != 2) {
		fprintf(stderr, "usage: vdso_loop SECS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + atof(argv[1]);
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
