// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads for scripts/bench-mstate (a benchmark, not a test):
 *
 *   ms_bench pingpong N   two threads on one CPU pass a byte back and forth
 *                         over two pipes N times (two context switches per
 *                         trip; on one CPU so that no trip waits for an
 *                         idle CPU to wake up)
 *   ms_bench getppid N    N getppid() system calls
 *   ms_bench cpu N        N rounds of integer arithmetic, no system calls
 *
 * Prints "elapsed_ns NS cpu_ns NS" for the loop alone (not start-up or
 * exit): its wall time, and the CPU time of the process's threads over it
 * (under QEMU's -icount, the instructions they executed, the kernel's on
 * their behalf included, and none of other tasks that ran meanwhile).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "mstate.h"

static int ping[2], pong[2];
static long rounds;

static void *ponger(void *arg)
{
	char c;
	long i;

	for (i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(2);
	return NULL;
}

static void pingpong(void)
{
	pthread_t t;
	char c = 'x';
	long i;

	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    pipe(ping) || pipe(pong) ||
	    pthread_create(&t, NULL, ponger, NULL))
		exit(2);
	for (i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			exit(2);
	pthread_join(t, NULL);
}

static void getppid_loop(void)
{
	long i;

	for (i = 0; i < rounds; i++)
		syscall(SYS_getppid);
}

static void cpu_loop(void)
{
	volatile uint64_t sink;
	uint64_t x = 88172645463325252ULL;
	long i;

	for (i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
	(void)sink;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t t0, c0;

	if (argc != 3) {
		fprintf(stderr, "usage: ms_bench pingpong|getppid|cpu N\n");
		return 2;
	}
	rounds = atol(argv[2]);
	c0 = cpu_ns();
	t0 = ms_now();
	if (!strcmp(argv[1], "pingpong"))
		pingpong();
	else if (!strcmp(argv[1], "getppid"))
		getppid_loop();
	else if (!strcmp(argv[1], "cpu"))
		cpu_loop();
	else
		return 2;
	t0 = ms_now() - t0;
	printf("elapsed_ns %llu cpu_ns %llu\n", (unsigned long long)t0,
	       (unsigned long long)(cpu_ns() - c0));
	return 0;
}
