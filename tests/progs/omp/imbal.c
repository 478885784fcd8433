// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP barrier imbalance with known work (tests/host/omp_*): ROUNDS
 * rounds of a parallel region; in each, thread k works (k + 1) * UNIT ms
 * in work() (called from main's region: its user-mode caller is main),
 * then waits at an explicit barrier.  Each thread measures its own
 * waits and prints them: "wait TID explicit_barrier NS N SLACK" (N
 * barriers, SLACK: the run delay around them, truth.h).
 *
 *   imbal ROUNDS UNIT_MS
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "truth.h"

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	unsigned long long unit = (argc > 2 ? atoll(argv[2]) : 20) * 1000000ULL;

#pragma omp parallel
	{
		unsigned long long waited = 0, slack = 0, t0, rd0;
		int k = omp_get_thread_num(), r;

		for (r = 0; r < rounds; r++) {
			work((k + 1) * unit);
			rd0 = run_delay();
			t0 = now();
#pragma omp barrier
			waited += now() - t0;
			slack += run_delay() - rd0;
		}
#pragma omp critical
		printf("wait %ld explicit_barrier %llu %d %llu\n",
		       (long)syscall(SYS_gettid), waited, rounds, slack);
	}
	return 0;
}
