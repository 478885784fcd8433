// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP barrier imbalance with known work (tests/host/omp_*): ROUNDS
 * rounds of a parallel region; in each, thread k works (k + 1) * UNIT ms
 * in work() (called from main's region: its user-mode caller is main),
 * then waits at an explicit barrier.  Each thread measures its own
 * waits and prints them: "wait TID NS N" (N barriers).
 *
 *   imbal ROUNDS UNIT_MS
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static volatile double sink;

__attribute__((noinline)) void work(unsigned long long ns)
{
	unsigned long long end = now() + ns;
	double s = 0;
	long i;

	while (now() < end)
		for (i = 0; i < 1000; i++)
			s += i * 0.5;
	sink = s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	unsigned long long unit = (argc > 2 ? atoll(argv[2]) : 20) * 1000000ULL;

#pragma omp parallel
	{
		unsigned long long waited = 0, t0;
		int k = omp_get_thread_num(), r;

		for (r = 0; r < rounds; r++) {
			work((k + 1) * unit);
			t0 = now();
#pragma omp barrier
			waited += now() - t0;
		}
#pragma omp critical
		printf("wait %ld %llu %d\n", (long)syscall(SYS_gettid), waited,
		       rounds);
	}
	return 0;
}
