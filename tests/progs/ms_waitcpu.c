// SPDX-License-Identifier: GPL-2.0
/*
 * Wait-CPU workload: three threads pin themselves to one CPU and sleep at
 * a start gate; main opens the gate (at time T) and they spin in user mode
 * until T + 600 ms, so each runs about 200 ms and waits for the CPU about
 * 400 ms.  Ground truth per thread: the time it was not running from T to
 * its end, (end - T) - (CPU time at end - CPU time at the gate), plus the
 * run-queue wait it had before the gate (thread start, moving to the CPU:
 * microseconds on a quiet host, milliseconds when the host stalls the
 * guest), read from its schedstat just before it sleeps at the gate; and
 * its schedstat once done (see struct ms_worker).
 *
 *   ms_waitcpu [CPU]     (default: the last CPU)
 */
#include <sched.h>

#include "mstate.h"

#define NTHREADS	3
#define SPIN_NS		(600 * MS_MS)

static uint64_t gate_time, deadline;
static sem_t ready, gate;
static int pin_cpu;
static uint64_t cpu_at_gate[NTHREADS];
static unsigned long long wait_at_gate[NTHREADS];

static void *spin(void *arg)
{
	struct ms_worker *w = arg;
	int i = w->name[4] - '0';
	unsigned long long run;
	cpu_set_t set;

	ms_worker_begin(w);
	CPU_ZERO(&set);
	CPU_SET(pin_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
	ms_schedstat(&run, &wait_at_gate[i]);
	cpu_at_gate[i] = ms_cpu();
	sem_post(&ready);
	while (sem_wait(&gate))
		;
	ms_spin_until(deadline);
	ms_worker_park(w);
	return NULL;
}

int main(int argc, char **argv)
{
	struct ms_worker s[NTHREADS];
	char name[16];
	int i;

	pin_cpu = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	ms_tid("main");
	sem_init(&ready, 0, 0);
	sem_init(&gate, 0, 0);
	for (i = 0; i < NTHREADS; i++) {
		snprintf(name, sizeof(name), "spin%d", i);
		if (ms_worker_start(&s[i], name, spin))
			return 2;
	}
	for (i = 0; i < NTHREADS; i++)
		while (sem_wait(&ready))
			;
	for (i = 0; i < NTHREADS; i++)
		while (ms_task_state(s[i].tid) != 'S')
			usleep(1000);
	gate_time = ms_now();
	deadline = gate_time + SPIN_NS;
	for (i = 0; i < NTHREADS; i++)
		sem_post(&gate);
	for (i = 0; i < NTHREADS; i++) {
		ms_worker_reap(&s[i]);
		printf("truth %s_offcpu_ns %llu\n", s[i].name,
		       (unsigned long long)(s[i].end - gate_time -
					    (s[i].cpu - cpu_at_gate[i]) +
					    wait_at_gate[i]));
		printf("truth %s_cpu_ns %llu\n", s[i].name,
		       (unsigned long long)s[i].cpu);
		printf("truth %s_late_ns %lld\n", s[i].name,
		       (long long)(s[i].end - deadline));
	}
	return 0;
}
