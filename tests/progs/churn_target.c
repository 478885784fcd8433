// SPDX-License-Identifier: GPL-2.0
/*
 * churn_target SECS [THREADS]: for SECS seconds, fork a child that starts
 * THREADS threads (default 64), each spinning and yielding for a few
 * milliseconds, joins them and exits; then fork the next.  Exercises
 * lwprof's fork, exit and free paths and the rings under thread churn.
 * Prints the number of children it forked.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	double end = now() + 0.002;
	volatile unsigned long n = 0;

	while (now() < end) {
		n++;
		if (!(n & 1023))
			sched_yield();
	}
	return arg;
}

static int child(int nthreads)
{
	pthread_t *t = calloc(nthreads, sizeof(*t));
	int i, started = 0;

	if (!t)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (!pthread_create(&t[i], NULL, worker, NULL))
			started++;
		else
			break;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return started ? 0 : 1;
}

int main(int argc, char **argv)
{
	double end;
	int nthreads = argc > 2 ? atoi(argv[2]) : 64;
	long children = 0;
	pid_t pid;

	if (argc < 2 || nthreads < 1) {
		fprintf(stderr, "usage: churn_target SECS [THREADS]\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end) {
		pid = fork();
		if (pid < 0) {
			perror("churn_target: fork");
			return 1;
		}
		if (!pid)
			_exit(child(nthreads));
		if (waitpid(pid, NULL, 0) == pid)
			children++;
	}
	printf("%ld\n", children);
	return 0;
}
