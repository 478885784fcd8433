// SPDX-License-Identifier: GPL-2.0
/*
 * thread_churn N MS: a sampling session on itself (a 1 ms clock, 64 KiB
 * stack copies as deltas: per-thread buffers in the module), then N
 * threads one after the other, each running MS ms of CPU; it never reads
 * the session's usage.  Prints "avail BEFORE AFTER": MemAvailable in KiB
 * before the threads and a second after the last.  The security tests'
 * ordinary user making the module hold memory for short threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lwprof.h"

static double ms;

static long avail_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	volatile unsigned long n = 0;
	double end = cpu_now() + ms;

	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			n++;
	return arg;
}

int main(int argc, char **argv)
{
	struct lwprof_sample_start ss;
	struct lwprof_ring_setup rs;
	struct lwprof_attach a;
	long before, n, i;
	pthread_t t;
	int fd;

	if (argc != 3 || (n = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: thread_churn N MS\n");
		return 2;
	}
	ms = atof(argv[2]);
	memset(&a, 0, sizeof(a));
	memset(&rs, 0, sizeof(rs));
	memset(&ss, 0, sizeof(ss));
	a.pid = getpid();
	rs.data_pages = 128;
	ss.clock_ns = 1000000;
	ss.stack_bytes = LWPROF_STACK_MAX;
	ss.flags = LWPROF_SS_SDELTA;
	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &a) ||
	    ioctl(fd, LWPROF_IOC_RING_SETUP, &rs) ||
	    ioctl(fd, LWPROF_IOC_SAMPLE_START, &ss)) {
		perror("thread_churn: the session");
		return 1;
	}
	before = avail_kb();
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, spin, NULL) || pthread_join(t, NULL)) {
			perror("thread_churn: a thread");
			return 1;
		}
	}
	sleep(1);	/* the threads' last frees come after a grace period */
	printf("avail %ld %ld\n", before, avail_kb());
	return 0;
}
