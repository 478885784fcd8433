// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP waits other than a barrier, with known times (tests/host/omp_*):
 * each thread measures around each construct it waits in, less the time
 * it spent running tasks inside it, and prints its sums:
 * "wait TID WAITS NS N SLACK": NS in the waits of <OMP-WAITS> (more than
 * one joined by '+'), N times, with SLACK ns of run delay (truth.h)
 * around them.
 *
 *   sync WHAT ROUNDS UNIT_MS
 *
 * Each construct is in a function of its own, not inlined: clang gives
 * the runtime call of an inlined region no source line.
 *
 * WHAT:
 *   critical  in each round thread k enters a critical section after
 *             k * UNIT / 4 and holds it for UNIT: the others wait for it
 *   lock      the same with omp_set_lock / omp_unset_lock
 *   tasks     thread 0 makes 2 * team tasks a round, task j working
 *             (j % 3 + 1) * UNIT / 2, and waits in taskwait; the others
 *             take tasks at an explicit barrier
 *   nested    a region of 2 threads, each opening one of 2: inner thread
 *             k works (k + 1) * UNIT in work() and waits at an explicit
 *             barrier (OMP_MAX_ACTIVE_LEVELS=2)
 *   taskmade  thread 0 makes 2 * team tasks a round in spawn(), a
 *             function of its own; each task takes an omp lock in
 *             task_locked() and holds it for UNIT / 2, the team runs
 *             them at a barrier: their time and lock waits belong to
 *             spawn(), which made them, not to the region's function
 *   reduction thread k works (k + 1) * UNIT in a region with a
 *             reduction clause: thread 0 measures from its work's end to
 *             the region's, which its reduction and the barrier that
 *             ends the region take
 *   udr       thread k works UNIT in a region whose reduction the
 *             program declared, its combiner working UNIT too: built by
 *             gcc, the threads merge their results in turn under one
 *             lock, each waiting for the merges before its own; a
 *             thread measures from its work's end to its merge's start
 *             (gcc's merge: each thread its own result)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "truth.h"

#define MAXT	16

/* per thread number: its sums (a line of its own, no false sharing) */
static struct acct {
	unsigned long long wait, tasks;	/* tasks: time running tasks */
	unsigned long long slack;	/* run delay around the waits */
	long tid;
	int n;
	char pad[64 - 36];
} sums[MAXT * MAXT];

static void report(const char *what, int slot)
{
	struct acct *a = &sums[slot];

	if (!a->n)
		return;
#pragma omp critical(report)
	printf("wait %ld %s %llu %d %llu\n", a->tid, what, a->wait, a->n,
	       a->slack);
}

/* A wait from t0 to t1 (run delay rd0 before t0) less the tasks run in it. */
static void account(int slot, unsigned long long t0, unsigned long long t1,
		    unsigned long long tasks_before, unsigned long long rd0)
{
	struct acct *a = &sums[slot];

	a->slack += run_delay() - rd0;
	a->tid = syscall(SYS_gettid);
	a->wait += (t1 - t0) - (a->tasks - tasks_before);
	a->n++;
}

__attribute__((noinline))
static void mutexes(int lock, int rounds, unsigned long long unit)
{
	omp_lock_t l;

	omp_init_lock(&l);
#pragma omp parallel
	{
		int k = omp_get_thread_num(), r;
		unsigned long long t0, rd0;

		if (k >= MAXT)
			abort();
		for (r = 0; r < rounds; r++) {
#pragma omp barrier
			work(k * unit / 4);
			rd0 = run_delay();
			t0 = now();
			if (lock) {
				omp_set_lock(&l);
				account(k, t0, now(), sums[k].tasks, rd0);
				work(unit);
				omp_unset_lock(&l);
			} else {
#pragma omp critical(held)
				{
					account(k, t0, now(), sums[k].tasks, rd0);
					work(unit);
				}
			}
		}
		report(lock ? "lock" : "critical_section", k);
	}
	omp_destroy_lock(&l);
}

static void task_body(unsigned long long ns)
{
	int k = omp_get_thread_num();
	unsigned long long t0 = now();

	work(ns);
	sums[k].tasks += now() - t0;
}

__attribute__((noinline))
static void tasks(int rounds, unsigned long long unit)
{
	static struct acct bar[MAXT];

#pragma omp parallel
	{
		int k = omp_get_thread_num(), n = omp_get_num_threads(), r, j;
		unsigned long long t0, before, rd0;

		if (k >= MAXT)
			abort();
		for (r = 0; r < rounds; r++) {
			if (k == 0) {
				for (j = 0; j < 2 * n; j++) {
					unsigned long long ns = (j % 3 + 1) * unit / 2;
#pragma omp task firstprivate(ns)
					task_body(ns);
				}
				before = sums[k].tasks;
				rd0 = run_delay();
				t0 = now();
#pragma omp taskwait
				account(k, t0, now(), before, rd0);
			}
			before = sums[k].tasks;
			rd0 = run_delay();
			t0 = now();
#pragma omp barrier
			bar[k].wait += now() - t0 - (sums[k].tasks - before);
			bar[k].slack += run_delay() - rd0;
			bar[k].tid = syscall(SYS_gettid);
			bar[k].n++;
		}
		report("taskwait", k);
		sums[k] = bar[k];
		report("explicit_barrier", k);
	}
}

static omp_lock_t task_lock;

/* A task's: the lock for ns, its wait accounted to the thread running it. */
__attribute__((noinline))
static void task_locked(unsigned long long ns)
{
	int k = omp_get_thread_num();
	unsigned long long t0, rd0;

	rd0 = run_delay();
	t0 = now();
	omp_set_lock(&task_lock);
	account(k, t0, now(), sums[k].tasks, rd0);
	work(ns);
	omp_unset_lock(&task_lock);
}

__attribute__((noinline))
static void spawn(int ntasks, unsigned long long ns)
{
	int j;

	for (j = 0; j < ntasks; j++) {
#pragma omp task default(shared) firstprivate(ns)
		task_locked(ns);
	}
}

__attribute__((noinline))
static void taskmade(int rounds, unsigned long long unit)
{
	omp_init_lock(&task_lock);
#pragma omp parallel
	{
		int k = omp_get_thread_num(), n = omp_get_num_threads(), r;

		if (k >= MAXT)
			abort();
		for (r = 0; r < rounds; r++) {
			if (k == 0)
				spawn(2 * n, unit / 2);
#pragma omp barrier
		}
		report("lock", k);
	}
	omp_destroy_lock(&task_lock);
}

__attribute__((noinline))
static void nested(int rounds, unsigned long long unit)
{
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();

#pragma omp parallel num_threads(2)
		{
			int k = omp_get_thread_num(), slot = outer * MAXT + k, r;
			unsigned long long t0, rd0;

			for (r = 0; r < rounds; r++) {
				work((outer + k + 1) * unit);
				rd0 = run_delay();
				t0 = now();
#pragma omp barrier
				account(slot, t0, now(), sums[slot].tasks, rd0);
			}
			report("explicit_barrier", slot);
		}
	}
}

__attribute__((noinline))
static void reduction(int rounds, unsigned long long unit)
{
	unsigned long long done = 0, rd0 = 0;
	double total = 0;
	int r;

	for (r = 0; r < rounds; r++) {
		double s = 0;

#pragma omp parallel reduction(+:s)
		{
			int k = omp_get_thread_num();

			work((k + 1) * unit);
			s += k;
			if (k == 0) {
				rd0 = run_delay();
				done = now();
			}
		}
		account(0, done, now(), sums[0].tasks, rd0);
		total += s;
	}
	if (total < 0)
		abort();
	report("implicit_barrier+reduction", 0);
}

static unsigned long long udr_unit, udr_end[MAXT], udr_rd[MAXT];

/* The declared reduction's combiner: the wait for the turn, then work. */
__attribute__((noinline))
static double udr_merge(double a, double b)
{
	int k = omp_get_thread_num();

	account(k, udr_end[k], now(), sums[k].tasks, udr_rd[k]);
	work(udr_unit);
	return a + b;
}

#pragma omp declare reduction(slowadd : double : omp_out = udr_merge(omp_out, omp_in)) \
	initializer(omp_priv = 0)

__attribute__((noinline))
static void udr(int rounds, unsigned long long unit)
{
	double total = 0;
	int r, k;

	udr_unit = unit;
	for (r = 0; r < rounds; r++) {
		double s = 0;

#pragma omp parallel reduction(slowadd : s)
		{
			int t = omp_get_thread_num();

			if (t >= MAXT)
				abort();
			work(unit);
			s += t;
			udr_rd[t] = run_delay();
			udr_end[t] = now();
		}
		total += s;
	}
	if (total < 0)
		abort();
	for (k = 0; k < MAXT; k++)
		report("reduction", k);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "critical";
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	unsigned long long unit = (argc > 3 ? atoll(argv[3]) : 20) * 1000000ULL;

	if (!strcmp(what, "critical") || !strcmp(what, "lock"))
		mutexes(!strcmp(what, "lock"), rounds, unit);
	else if (!strcmp(what, "tasks"))
		tasks(rounds, unit);
	else if (!strcmp(what, "nested"))
		nested(rounds, unit);
	else if (!strcmp(what, "taskmade"))
		taskmade(rounds, unit);
	else if (!strcmp(what, "reduction"))
		reduction(rounds, unit);
	else if (!strcmp(what, "udr"))
		udr(rounds, unit);
	else
		return fprintf(stderr, "sync: unknown %s\n", what), 2;
	return 0;
}
