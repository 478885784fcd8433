// SPDX-License-Identifier: GPL-2.0
/*
 * nthreads N MS: start N threads that each sleep MS milliseconds, join
 * them and exit.  The process has N + 1 threads in all.  For each thread,
 * once all are joined, it prints how long its sleep took by
 * CLOCK_MONOTONIC and the thread's time asleep by the scheduler's own
 * statistics over it (sum_sleep_runtime, -1 without schedstats):
 * "tid TID slept SECS asleep SECS".  A worker makes no other call that
 * could sleep: no stdio, no allocation (ms_slept() reads into a stack
 * buffer).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mstate.h"

struct worker {
	pthread_t t;
	int tid;
	double took, asleep;
};

static long ms;

static void *sleeper(void *arg)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L }, t0, t1;
	struct worker *w = arg;
	long long s0, s1;

	w->tid = gettid();
	s0 = ms_slept();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s1 = ms_slept();
	w->took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	w->asleep = s0 >= 0 && s1 >= 0 ? (s1 - s0) / 1e9 : -1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *w;
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: nthreads N MS\n");
		return 2;
	}
	n = atoi(argv[1]);
	ms = atol(argv[2]);
	w = calloc(n > 0 ? n : 1, sizeof(*w));
	if (!w)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&w[i].t, NULL, sleeper, &w[i]))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(w[i].t, NULL);
	for (i = 0; i < n; i++)
		printf("tid %d slept %.9f asleep %.9f\n", w[i].tid, w[i].took,
		       w[i].asleep);
	free(w);
	return 0;
}
