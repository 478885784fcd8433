// SPDX-License-Identifier: GPL-2.0
/*
 * CPU workload: thread "spin" spins in user mode for 300 ms (no system
 * calls), then thread "sys" reads /dev/zero in 64 KiB chunks for 300 ms
 * (time in the kernel clearing the buffer).  Ground truth: each thread's
 * CPU time over its busy phase (CLOCK_THREAD_CPUTIME_ID), its wall time,
 * and its schedstat just before it ends.
 */
#include <fcntl.h>
#include <pthread.h>

#include "mstate.h"

#define PHASE_NS	(300 * MS_MS)

static char buf[64 << 10];

static void *spin(void *arg)
{
	uint64_t c0, t0, t1, c1;

	ms_tid("spin");
	c0 = ms_cpu();
	t0 = ms_now();
	ms_spin_until(t0 + PHASE_NS);
	t1 = ms_now();
	c1 = ms_cpu();
	ms_truth("spin_cpu_ns", c1 - c0);
	ms_truth("spin_wall_ns", t1 - t0);
	ms_sched("spin");
	return NULL;
}

static void *sys(void *arg)
{
	uint64_t c0, t0, c1, t1, calls = 0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("/dev/zero");
		exit(2);
	}
	ms_tid("sys");
	c0 = ms_cpu();
	t0 = ms_now();
	do {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror("read");
			exit(2);
		}
		calls++;
	} while (ms_now() < t0 + PHASE_NS);
	t1 = ms_now();
	c1 = ms_cpu();
	close(fd);
	ms_truth("sys_cpu_ns", c1 - c0);
	ms_truth("sys_wall_ns", t1 - t0);
	ms_truth("sys_calls", calls);
	ms_sched("sys");
	return NULL;
}

int main(void)
{
	pthread_t t;

	ms_tid("main");
	if (pthread_create(&t, NULL, spin, NULL) || pthread_join(t, NULL))
		return 2;
	if (pthread_create(&t, NULL, sys, NULL) || pthread_join(t, NULL))
		return 2;
	return 0;
}
