/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the microstate workloads in tests/progs/ms_*.c.  Each
 * workload measures its own ground truth and prints it on stdout, one fact
 * per line, for the guest tests to compare with `lwprof ptime -m -L`:
 *
 *   tid NAME TID                    a thread's id, by role
 *   truth KEY NS                    a measured duration, in nanoseconds
 *   sched NAME TID RUN_NS WAIT_NS   /proc/thread-self/schedstat just
 *                                   before the thread ends
 */
#ifndef LWPROF_MSTATE_H
#define LWPROF_MSTATE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MS_NS	1000000000ULL
#define MS_MS	1000000ULL

static inline uint64_t ms_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts)) {
		perror("clock_gettime");
		exit(2);
	}
	return (uint64_t)ts.tv_sec * MS_NS + ts.tv_nsec;
}

/* CLOCK_MONOTONIC: the clock lwprof's times are in (vDSO, no syscall). */
static inline uint64_t ms_now(void)
{
	return ms_clock(CLOCK_MONOTONIC);
}

/* This thread's CPU time (a system call). */
static inline uint64_t ms_cpu(void)
{
	return ms_clock(CLOCK_THREAD_CPUTIME_ID);
}

static inline int ms_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/* Spin in user mode until the monotonic clock reaches deadline. */
static inline void ms_spin_until(uint64_t deadline)
{
	while (ms_now() < deadline)
		;
}

static inline void ms_tid(const char *name)
{
	printf("tid %s %d\n", name, ms_gettid());
}

static inline void ms_truth(const char *key, uint64_t ns)
{
	printf("truth %s %llu\n", key, (unsigned long long)ns);
}

/* Print this thread's schedstat (run time, run-queue wait). */
static inline void ms_sched(const char *name)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2) {
		perror("schedstat");
		exit(2);
	}
	fclose(f);
	printf("sched %s %d %llu %llu\n", name, ms_gettid(), run, wait);
}

#endif
