// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_burst [N] [MIB]: a thread "reader" that blocks in read() of an
 * empty pipe and, once woken, copies MIB mebibytes (default 8) in the
 * kernel before it returns, N times (default 30); after each read it
 * spins 3 ms in user mode.  A thread "writer" sleeps 30 ms, then writes
 * the MIB at once (the pipe holds them: the reader wakes at the end of
 * the write), N times.  So the reader's system time comes after each
 * block, none before it: the test of where a tick in the kernel that
 * finds saved off-CPU frames puts that time (guest/sample_ktick).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static int rounds = 30;
static size_t len = 8 << 20;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *writer(void *arg)
{
	const struct timespec nap = { 0, 30000000 };
	char *buf = calloc(1, len);
	size_t off;
	ssize_t n;
	int i;

	prctl(PR_SET_NAME, "writer");
	for (i = 0; buf && i < rounds; i++) {
		nanosleep(&nap, NULL);
		for (off = 0; off < len; off += n) {
			n = write(fds[1], buf + off, len - off);
			if (n <= 0)
				exit(1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w;
	size_t got;
	ssize_t n;
	char *buf;
	double end;
	int i;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		len = strtoul(argv[2], NULL, 10) << 20;
	buf = malloc(len);
	if (!buf || pipe(fds) || fcntl(fds[1], F_SETPIPE_SZ, (int)len) < 0) {
		perror("pipe_burst: a pipe of that size (needs root above pipe-max-size)");
		return 1;
	}
	prctl(PR_SET_NAME, "reader");
	if (pthread_create(&w, NULL, writer, NULL))
		return 1;
	for (i = 0; i < rounds; i++) {
		for (got = 0; got < len; got += n) {
			n = read(fds[0], buf + got, len - got);
			if (n <= 0)
				return 1;
		}
		for (end = now() + 0.003; now() < end;)
			;
	}
	pthread_join(w, NULL);
	printf("read %d x %zu bytes\n", rounds, len);
	return 0;
}
