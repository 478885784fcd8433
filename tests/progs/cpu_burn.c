// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_burn SECS [THREADS]: THREADS threads (default 1: the main thread
 * alone) each run in user mode until they have used SECS seconds of their
 * own CPU time (CLOCK_THREAD_CPUTIME_ID), then exit 0.  That clock is a
 * system call, so it is read only every million additions (a few ms in
 * the TCG guest): the loop stays in user mode.  Prints the process's pid
 * on stdout first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long n = 0;

	while (cpu_now() < secs)
		for (int i = 0; i < 1000000; i++)
			n++;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int i, nt;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: cpu_burn SECS [THREADS]\n");
		return 2;
	}
	secs = atof(argv[1]);
	nt = argc == 3 ? atoi(argv[2]) : 1;
	if (nt < 1 || nt > 64)
		return 2;
	printf("%d\n", getpid());
	fflush(stdout);
	for (i = 1; i < nt; i++)
		if (pthread_create(&t[i], NULL, burn, NULL))
			return 1;
	burn(NULL);
	for (i = 1; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}
