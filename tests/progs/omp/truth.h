/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the OpenMP test programs measure themselves with: the clock, a
 * busy work() of a known time, and the time a thread has waited for a
 * CPU (its run delay, /proc/thread-self/schedstat; 0 where the kernel
 * does not say).  A thread that waits for a CPU between its own clock
 * read and the runtime's entry (or exit) measures more than the runtime
 * waited: the run delay around each measure bounds that.
 */
#ifndef LWPROF_TEST_OMP_TRUTH_H
#define LWPROF_TEST_OMP_TRUTH_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline unsigned long long now(void)
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

/* The calling thread's run delay so far, in ns. */
static inline unsigned long long run_delay(void)
{
	static __thread int fd = -1;
	unsigned long long run, delay;
	char buf[96];
	ssize_t n;

	if (fd < 0)
		fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &run, &delay) == 2 ? delay : 0;
}

#endif
