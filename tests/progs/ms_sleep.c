// SPDX-License-Identifier: GPL-2.0
/*
 * Sleep workload: thread "sleeper" calls nanosleep(300 ms).  Ground truth:
 * the wall time from before the call to after it (and those two times).
 */
#include <pthread.h>

#include "mstate.h"

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 300 * MS_MS };
	uint64_t t0, t1;
	long long slept, slept1;

	ms_tid("sleeper");
	slept = ms_slept();
	t0 = ms_now();
	if (nanosleep(&ts, NULL)) {
		perror("nanosleep");
		exit(2);
	}
	t1 = ms_now();
	slept1 = ms_slept();
	ms_truth("sleep_ns", t1 - t0);
	ms_window("sleep", t0, t1);
	ms_truth_slept("sleep_slept_ns", slept, slept1);
	ms_sched("sleeper");
	return NULL;
}

int main(void)
{
	pthread_t t;

	ms_tid("main");
	if (pthread_create(&t, NULL, sleeper, NULL) || pthread_join(t, NULL))
		return 2;
	return 0;
}
