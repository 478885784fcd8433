// SPDX-License-Identifier: GPL-2.0
/*
 * smp_busy THREADS SECS: THREADS threads spin in user mode (three calls
 * deep) for SECS seconds each, then exit 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void busy_leaf(double end)
{
	volatile uint64_t x = 1;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ULL + 1;
}

__attribute__((noinline)) void busy_mid(double end)
{
	busy_leaf(end);
	asm volatile("" ::: "memory");
}

static void *busy(void *arg)
{
	busy_mid(now() + secs);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: smp_busy THREADS SECS\n");
		return 2;
	}
	n = atoi(argv[1]);
	secs = atof(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, busy, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
