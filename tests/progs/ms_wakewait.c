// SPDX-License-Identifier: GPL-2.0
/*
 * Wake-up wait workload (tests/host/perf_wakewait.sh): a spinner pinned to
 * every CPU this process may use keeps them all busy, and a sleeper pinned
 * to the first of them, SCHED_BATCH (its wake-ups never preempt), sleeps
 * 10 ms NAPS times: after each wake-up it waits in that CPU's run queue
 * until the spinner there is preempted at a tick.  Then it stops the
 * spinners and, last, reads its own schedstat and exits.  Truth: "sched
 * sleeper TID RUN WAIT" (schedstat: CPU time and run-queue wait, enqueue
 * to switch-in, over the thread's life up to that read) and "truth
 * sleeper_wall_ns" (the wall time of its nanosleeps).
 *
 *   ms_wakewait [NAPS]   (default 40)
 */
#include <sched.h>

#include "mstate.h"

#define NAP_NS	(10 * MS_MS)

static volatile int stop;
static int naps = 40, first_cpu;

static void *spinner(void *arg)
{
	ms_pin((int)(long)arg);
	while (!stop)
		;
	return NULL;
}

static void *sleeper(void *arg)
{
	struct ms_worker *w = arg;
	struct sched_param sp = { 0 };
	struct timespec nap = { 0, NAP_NS };
	uint64_t t0, wall = 0;
	int i;

	ms_worker_begin(w);
	ms_pin(first_cpu);
	if (sched_setscheduler(0, SCHED_BATCH, &sp)) {
		perror("SCHED_BATCH");
		exit(2);
	}
	for (i = 0; i < naps; i++) {
		t0 = ms_now();
		while (nanosleep(&nap, NULL))
			;
		wall += ms_now() - t0;
	}
	stop = 1;
	ms_truth("sleeper_wall_ns", wall);
	ms_sched("sleeper");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t spin[CPU_SETSIZE];
	struct ms_worker s;
	int cpu, n = 0, i;
	cpu_set_t set;

	if (argc > 1)
		naps = atoi(argv[1]);
	if (sched_getaffinity(0, sizeof(set), &set))
		return 2;
	first_cpu = -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (first_cpu < 0)
			first_cpu = cpu;
		if (pthread_create(&spin[n++], NULL, spinner, (void *)(long)cpu))
			return 2;
	}
	ms_tid("main");
	if (ms_worker_start(&s, "sleeper", sleeper))
		return 2;
	pthread_join(s.thread, NULL);
	for (i = 0; i < n; i++)
		pthread_join(spin[i], NULL);
	return 0;
}
