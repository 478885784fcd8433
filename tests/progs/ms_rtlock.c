// SPDX-License-Identifier: GPL-2.0
/*
 * Lock-wait workload: two threads of one process pinned to one CPU take
 * their process's signal lock (sighand->siglock, a spinlock_t).  The
 * holder, an ordinary thread, sets SIGUSR2's action to SIG_IGN for 1.5 s,
 * which walks the process's threads under that lock to discard the
 * signal (256 of them park meanwhile, so the walk is long); the waiter,
 * SCHED_FIFO, sleeps 2 ms at a time and then calls sigprocmask(), which
 * takes the lock.  Its
 * timer wakes it and it preempts the holder at once, mostly inside the
 * lock: on PREEMPT_RT, where spinlock_t is an rt_mutex and the holder
 * can be preempted with it, the waiter then sleeps on the lock
 * (TASK_RTLOCK_WAIT, "D" in the scheduler's trace) until the boosted
 * holder lets go; elsewhere the lock keeps preemption off, so the waiter
 * never finds it held on its own CPU.  The test's truth is the
 * scheduler's trace (tests/lib/schedtrace.sh), so this prints only the
 * tids and the waiter's loop (its other sleeps, its output to a 9p file
 * or a page-in, are outside it).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

#include "mstate.h"

#define NPARKED	256

static atomic_int stop;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int parked_go;

static void *parked(void *arg)
{
	pthread_mutex_lock(&park_lock);
	while (!parked_go)
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
	return NULL;
}

static void mask_unmask(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void *holder(void *arg)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	ms_pin(0);
	ms_tid("holder");
	fflush(stdout);
	while (!atomic_load(&stop))
		sigaction(SIGUSR2, &ign, NULL);
	return NULL;
}

static void *waiter(void *arg)
{
	struct timespec ts = { 0, 2 * MS_MS };
	uint64_t t0, end;

	ms_pin(0);
	ms_tid("waiter");
	fflush(stdout);
	t0 = ms_now();
	end = t0 + 1500 * MS_MS;
	while (ms_now() < end) {
		nanosleep(&ts, NULL);
		mask_unmask();
	}
	ms_window("loop", t0, ms_now());
	atomic_store(&stop, 1);
	return NULL;
}

int main(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_t h, w, p[NPARKED];
	pthread_attr_t attr;

	ms_tid("main");
	fflush(stdout);
	for (int i = 0; i < NPARKED; i++)
		if (pthread_create(&p[i], NULL, parked, NULL))
			return 2;
	if (pthread_create(&h, NULL, holder, NULL))
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	if (pthread_create(&w, &attr, waiter, NULL))
		return 2;
	pthread_join(w, NULL);
	pthread_join(h, NULL);
	pthread_mutex_lock(&park_lock);
	parked_go = 1;
	pthread_cond_broadcast(&park_cond);
	pthread_mutex_unlock(&park_lock);
	for (int i = 0; i < NPARKED; i++)
		pthread_join(p[i], NULL);
	return 0;
}
