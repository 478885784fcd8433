// SPDX-License-Identifier: GPL-2.0
/*
 * zero_reader [MS]: main -> reader -> read() of /dev/zero in 1 MiB blocks
 * for MS milliseconds of wall time (default 500): a process that spends
 * most of its time in the kernel, under a known user function (built with
 * frame pointers), for the analyzer's kernel-frame test.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) long reader(int fd, double secs)
{
	double end = now() + secs;
	long n = 0;

	while (now() < end)
		n += read(fd, buf, sizeof(buf));
	return n;
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("zero_reader: /dev/zero");
		return 1;
	}
	printf("%ld\n", reader(fd, (argc > 1 ? atoi(argv[1]) : 500) / 1e3));
	return 0;
}
