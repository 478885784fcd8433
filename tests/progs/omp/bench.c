// SPDX-License-Identifier: GPL-2.0
/*
 * What the OMPT tool costs an OpenMP program (scripts/bench-omp): it
 * times its own loop, after a first region has started the team.
 *
 *   bench empty N        N empty parallel regions
 *   bench coarse N MS    N regions in which each thread works MS ms
 *   bench paced N US     N empty regions, each followed by US
 *                        microseconds of serial work: with 9, a program
 *                        of some 10^5 regions a second
 *
 * prints "WHAT N NS CPU": the loop's elapsed time and the process's CPU
 * time in it (ns).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "truth.h"

static unsigned long long cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "empty";
	long n = argc > 2 ? atol(argv[2]) : 100000, i;
	unsigned long long ms = (argc > 3 ? atoll(argv[3]) : 10) * 1000000ULL;
	unsigned long long t0, c0, end;
	int coarse = !strcmp(what, "coarse"), paced = !strcmp(what, "paced");

#pragma omp parallel
	sink = omp_get_thread_num();	/* the team, started */
	c0 = cpu();
	t0 = now();
	for (i = 0; i < n; i++) {
#pragma omp parallel
		if (coarse)
			work(ms);
		if (paced)	/* ms is the US given, in thousands of ns */
			for (end = now() + ms / 1000; now() < end;)
				;
	}
	t0 = now() - t0;
	printf("%s %ld %llu %llu\n", what, n, t0, cpu() - c0);
	return 0;
}
