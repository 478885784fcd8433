// SPDX-License-Identifier: GPL-2.0
/*
 * CPU workload: thread "spin" spins in user mode for 300 ms (no system
 * calls), then thread "sys" reads /dev/zero in 64 KiB chunks for 300 ms
 * (time in the kernel clearing the buffer).  Ground truth: each thread's
 * CPU time over its busy phase (CLOCK_THREAD_CPUTIME_ID), its wall time,
 * and its schedstat once done (see struct ms_worker).  The spin also notes
 * every break of more than 10 us in its loop (an interrupt, a preemption,
 * or the host not running the vCPU): spin_run_ns is the spin's wall time
 * minus those breaks, the time it was seen running its own code.  At the
 * end, main prints the CPU time of both threads up to their release by the
 * kernel (process CPU clock minus its own), which includes their exit.
 */
#include <fcntl.h>

#include "mstate.h"

#define PHASE_NS	(300 * MS_MS)
#define BREAK_NS	10000

static char buf[64 << 10];
static uint64_t spin_cpu, spin_wall, spin_run, spin_breaks;
static uint64_t sys_cpu, sys_wall, sys_calls;

static void *spin(void *arg)
{
	struct ms_worker *w = arg;
	uint64_t c0, t0, t, prev, gaps = 0;

	ms_worker_begin(w);
	c0 = ms_cpu();
	t0 = prev = ms_now();
	do {
		t = ms_now();
		if (t - prev > BREAK_NS) {
			gaps += t - prev;
			spin_breaks++;
		}
		prev = t;
	} while (t < t0 + PHASE_NS);
	spin_cpu = ms_cpu() - c0;
	spin_wall = t - t0;
	spin_run = spin_wall - gaps;
	ms_worker_park(w);
	return NULL;
}

static void *sys(void *arg)
{
	struct ms_worker *w = arg;
	int fd = open("/dev/zero", O_RDONLY);
	uint64_t c0, t0;

	if (fd < 0) {
		perror("/dev/zero");
		exit(2);
	}
	ms_worker_begin(w);
	c0 = ms_cpu();
	t0 = ms_now();
	do {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror("read");
			exit(2);
		}
		sys_calls++;
	} while (ms_now() < t0 + PHASE_NS);
	sys_cpu = ms_cpu() - c0;
	sys_wall = ms_now() - t0;
	close(fd);
	ms_worker_park(w);
	return NULL;
}

int main(void)
{
	struct ms_worker w;

	ms_tid("main");
	if (ms_worker_start(&w, "spin", spin))
		return 2;
	ms_worker_reap(&w);
	ms_truth("spin_cpu_ns", spin_cpu);
	ms_truth("spin_wall_ns", spin_wall);
	ms_truth("spin_run_ns", spin_run);
	ms_truth("spin_breaks", spin_breaks);
	if (ms_worker_start(&w, "sys", sys))
		return 2;
	ms_worker_reap(&w);
	ms_truth("sys_cpu_ns", sys_cpu);
	ms_truth("sys_wall_ns", sys_wall);
	ms_truth("sys_calls", sys_calls);
	ms_truth("dead_threads_cpu_ns", ms_dead_threads_cpu());
	return 0;
}
