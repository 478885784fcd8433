// SPDX-License-Identifier: GPL-2.0
/*
 * named_spin SECS: a process that names itself and its second thread
 * (prctl PR_SET_NAME: "nspin_main", "nspin_worker") and spins in user
 * mode in nspin_outer() -> nspin_inner() on both for SECS seconds.  The
 * names are set before it prints "ready": a recorder started after that
 * can learn them only from /proc (tests/host/perf_preexist.sh).  On
 * SIGUSR1 the main thread renames itself "nspin_renamed".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long nspin_inner(unsigned long n)
{
	for (int i = 0; i < 100000; i++)
		n = n * 6364136223846793005UL + 1442695040888963407UL;
	return n;
}

__attribute__((noinline)) static unsigned long nspin_outer(double end)
{
	unsigned long n = 1;

	while (now() < end)
		n = nspin_inner(n);
	return n;
}

static void renamed(int sig)
{
	prctl(PR_SET_NAME, "nspin_renamed");
}

static void *worker(void *arg)
{
	return (void *)nspin_outer(*(double *)arg);
}

int main(int argc, char **argv)
{
	pthread_t t;
	sigset_t set;
	double end;

	if (argc != 2) {
		fprintf(stderr, "usage: named_spin SECS\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	prctl(PR_SET_NAME, "nspin_main");
	/* the worker blocks SIGUSR1: the main thread is the one renamed */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	signal(SIGUSR1, renamed);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, worker, &end))
		return 1;
	/* named here, before "ready" (the worker itself might run later) */
	if (pthread_setname_np(t, "nspin_worker"))
		return 1;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	nspin_outer(end);
	pthread_join(t, NULL);
	return 0;
}
