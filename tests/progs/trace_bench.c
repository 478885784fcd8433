// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bench KIND N: N traced calls of one kind in a loop, timed by the
 * program itself (scripts/bench-trace): malloc (N malloc/free pairs of 32
 * bytes: 2N heap events), lock (N uncontended pthread_mutex_lock/unlock:
 * N waits with -s all), io (N one-byte write()s to /dev/null).  Prints
 * "KIND N NS CPU_NS": the loop's elapsed and CPU (user + system)
 * nanoseconds; CPU time is what the benchmark compares, being less
 * moved by other work on a shared machine.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	unsigned long long t0, c0, i, n;
	int fd = open("/dev/null", O_WRONLY);
	char c = 0;

	if (argc < 3 || fd < 0)
		return 2;
	n = strtoull(argv[2], NULL, 10);
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (!strcmp(argv[1], "malloc")) {
		for (i = 0; i < n; i++)
			free(malloc(32));
	} else if (!strcmp(argv[1], "lock")) {
		for (i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
	} else if (!strcmp(argv[1], "io")) {
		for (i = 0; i < n; i++)
			if (write(fd, &c, 1) != 1)
				return 1;
	} else {
		return 2;
	}
	printf("%s %llu %llu %llu\n", argv[1], n, clock_ns(CLOCK_MONOTONIC) - t0,
	       clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
