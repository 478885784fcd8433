// SPDX-License-Identifier: GPL-2.0
/*
 * nthreads N MS: start N threads that each sleep MS milliseconds, join
 * them and exit.  The process has N + 1 threads in all.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms;

static void *sleeper(void *arg)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: nthreads N MS\n");
		return 2;
	}
	n = atoi(argv[1]);
	ms = atol(argv[2]);
	t = calloc(n > 0 ? n : 1, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
