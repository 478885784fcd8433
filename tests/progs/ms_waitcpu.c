// SPDX-License-Identifier: GPL-2.0
/*
 * Wait-CPU workload: three threads pinned to one CPU each spin in user
 * mode until 600 ms after main started them, so each runs about 200 ms
 * and waits for the CPU about 400 ms.  Ground truth per thread: the time
 * it was not running, (end - creation) - its CPU time, plus its schedstat
 * (run time and run-queue wait) just before it ends.
 *
 *   ms_waitcpu [CPU]     (default: the last CPU)
 */
#include <pthread.h>
#include <sched.h>

#include "mstate.h"

#define NTHREADS	3
#define SPIN_NS		(600 * MS_MS)

struct spinner {
	pthread_t thread;
	uint64_t created;	/* just before pthread_create */
	uint64_t deadline;
	char name[16];
};

static void *spin(void *arg)
{
	struct spinner *s = arg;
	uint64_t end, cpu;

	ms_tid(s->name);
	ms_spin_until(s->deadline);
	cpu = ms_cpu();
	end = ms_now();
	printf("truth %s_offcpu_ns %llu\n", s->name,
	       (unsigned long long)(end - s->created - cpu));
	printf("truth %s_cpu_ns %llu\n", s->name, (unsigned long long)cpu);
	ms_sched(s->name);
	return NULL;
}

int main(int argc, char **argv)
{
	struct spinner s[NTHREADS];
	int cpu = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	uint64_t deadline;
	cpu_set_t set;
	int i;

	ms_tid("main");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 2;
	}
	deadline = ms_now() + SPIN_NS;
	for (i = 0; i < NTHREADS; i++) {
		snprintf(s[i].name, sizeof(s[i].name), "spin%d", i);
		s[i].deadline = deadline;
		s[i].created = ms_now();
		if (pthread_create(&s[i].thread, NULL, spin, &s[i]))
			return 2;
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(s[i].thread, NULL);
	return 0;
}
