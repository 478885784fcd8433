// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt workload: thread "spinner" spins in user mode for 300 ms while
 * an interval timer it armed on its CPU fires every 200 us (each expiry is
 * a timer interrupt that lands on the spinning thread, then a SIGALRM, which
 * main blocks so that the spinner gets it).
 * Ground truth: the spin's wall and CPU time, and how many SIGALRMs the
 * handler ran.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include "mstate.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	alarms++;
}

static void *spinner(void *arg)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	uint64_t t0, t1, c0, c1;
	sigset_t set;

	ms_tid("spinner");
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	c0 = ms_cpu();
	t0 = ms_now();
	setitimer(ITIMER_REAL, &it, NULL);
	ms_spin_until(t0 + 300 * MS_MS);
	setitimer(ITIMER_REAL, &off, NULL);
	t1 = ms_now();
	c1 = ms_cpu();
	ms_truth("spin_wall_ns", t1 - t0);
	ms_truth("spin_cpu_ns", c1 - c0);
	ms_truth("alarms", alarms);
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigset_t set;
	pthread_t t;

	ms_tid("main");
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, spinner, NULL) || pthread_join(t, NULL))
		return 2;
	return 0;
}
