// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP barrier imbalance with known work (tests/host/omp_*): ROUNDS
 * rounds of a parallel region; in each, thread k works (k + 1) * UNIT ms
 * in work() (called from main's region: its user-mode caller is main),
 * then waits at an explicit barrier.  Each thread measures its own
 * waits and prints them: "wait TID explicit_barrier NS N SLACK" (N
 * barriers, SLACK: the run delay around them, truth.h), and the
 * threads' arrivals say who came last to each barrier (blame()).
 *
 *   imbal ROUNDS UNIT_MS
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "truth.h"

#define MAXT	16

/* per round and thread: its arrival, its wait and run delay around it */
struct arr {
	unsigned long long t0, ns, slack;
};

/*
 * Who came last to each round's barrier is blamed for the others'
 * waits: "blame TID NS N SLACK", N the rounds it came last, SLACK the
 * others' run delay then and, where another came within 1 ms of it (the
 * program's clock reads cannot order those as the runtime's do), their
 * waits too.
 */
static void blame(const struct arr *a, const long *tid, int rounds, int nt)
{
	unsigned long long ns[MAXT] = { 0 }, slack[MAXT] = { 0 };
	int n[MAXT] = { 0 }, r, k, last;

	for (r = 0; r < rounds; r++) {
		const struct arr *x = a + r * MAXT;

		for (last = 0, k = 1; k < nt; k++)
			if (x[k].t0 > x[last].t0)
				last = k;
		n[last]++;
		for (k = 0; k < nt; k++) {
			if (k == last)
				continue;
			ns[last] += x[k].ns;
			slack[last] += x[k].slack;
			if (x[last].t0 - x[k].t0 < 1000000) {
				slack[last] += x[k].ns;
				slack[k] += x[k].ns;
			}
		}
	}
	for (k = 0; k < nt; k++)
		printf("blame %ld %llu %d %llu\n", tid[k], ns[k], n[k], slack[k]);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, nt = 1;
	unsigned long long unit = (argc > 2 ? atoll(argv[2]) : 20) * 1000000ULL;
	struct arr *a = calloc((size_t)rounds * MAXT, sizeof(*a));
	unsigned long long waited[MAXT] = { 0 }, slack[MAXT] = { 0 };
	long tid[MAXT];
	int k;

	if (!a)
		return 1;
#pragma omp parallel
	{
		unsigned long long t0, rd0;
		int k = omp_get_thread_num(), r;
		struct arr *x;

		if (k >= MAXT)
			abort();
		nt = omp_get_num_threads();
		tid[k] = syscall(SYS_gettid);
		for (r = 0; r < rounds; r++) {
			work((k + 1) * unit);
			x = &a[r * MAXT + k];
			rd0 = run_delay();
			x->t0 = t0 = now();
#pragma omp barrier
			x->ns = now() - t0;
			x->slack = run_delay() - rd0;
			waited[k] += x->ns;
			slack[k] += x->slack;
		}
	}
	/* after the region: the team meets its end with nothing left to do */
	for (k = 0; k < nt; k++)
		printf("wait %ld explicit_barrier %llu %d %llu\n", tid[k],
		       waited[k], rounds, slack[k]);
	blame(a, tid, rounds, nt);
	free(a);
	return 0;
}
