// SPDX-License-Identifier: GPL-2.0
/*
 * User-lock workload.  Phase 1: thread "holder" takes a mutex, tells
 * thread "waiter", holds the mutex for 300 ms (asleep in nanosleep) and
 * unlocks; the waiter's pthread_mutex_lock() blocks meanwhile.  Phase 2:
 * thread "cvwaiter" waits on a condition variable that main signals 300 ms
 * later.  Ground truth: the wall time each blocking call took (the
 * holder's nanosleep too), its start and end, and, with schedstats on, the
 * time the scheduler had the thread asleep meanwhile.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "mstate.h"

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cv_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_int held, cv_waiting;
static int cv_done;

static void *holder(void *arg)
{
	struct timespec ts = { 0, 300 * MS_MS };
	uint64_t t0, t1;
	long long slept, slept1;

	ms_tid("holder");
	pthread_mutex_lock(&mtx);
	atomic_store(&held, 1);
	slept = ms_slept();
	t0 = ms_now();
	nanosleep(&ts, NULL);
	t1 = ms_now();
	slept1 = ms_slept();
	pthread_mutex_unlock(&mtx);
	ms_truth("holder_sleep_ns", t1 - t0);
	ms_window("holder_sleep", t0, t1);
	ms_truth_slept("holder_sleep_slept_ns", slept, slept1);
	return NULL;
}

static void *waiter(void *arg)
{
	uint64_t t0, t1;
	long long slept, slept1;

	ms_tid("waiter");
	while (!atomic_load(&held))
		usleep(1000);
	slept = ms_slept();
	t0 = ms_now();
	pthread_mutex_lock(&mtx);
	t1 = ms_now();
	slept1 = ms_slept();
	pthread_mutex_unlock(&mtx);
	ms_truth("waiter_lock_ns", t1 - t0);
	ms_window("waiter_lock", t0, t1);
	ms_truth_slept("waiter_lock_slept_ns", slept, slept1);
	return NULL;
}

static void *cvwaiter(void *arg)
{
	uint64_t t0, t1;
	long long slept, slept1;

	ms_tid("cvwaiter");
	pthread_mutex_lock(&cv_mtx);
	atomic_store(&cv_waiting, 1);
	slept = ms_slept();
	t0 = ms_now();
	while (!cv_done)
		pthread_cond_wait(&cv, &cv_mtx);
	t1 = ms_now();
	slept1 = ms_slept();
	pthread_mutex_unlock(&cv_mtx);
	ms_truth("cv_wait_ns", t1 - t0);
	ms_window("cv_wait", t0, t1);
	ms_truth_slept("cv_wait_slept_ns", slept, slept1);
	return NULL;
}

int main(void)
{
	struct timespec ts = { 0, 300 * MS_MS };
	pthread_t h, w;

	ms_tid("main");
	if (pthread_create(&h, NULL, holder, NULL) ||
	    pthread_create(&w, NULL, waiter, NULL))
		return 2;
	pthread_join(h, NULL);
	pthread_join(w, NULL);

	if (pthread_create(&w, NULL, cvwaiter, NULL))
		return 2;
	while (!atomic_load(&cv_waiting))
		usleep(1000);
	nanosleep(&ts, NULL);
	pthread_mutex_lock(&cv_mtx);
	cv_done = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cv_mtx);
	pthread_join(w, NULL);
	return 0;
}
