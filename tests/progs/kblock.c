// SPDX-License-Identifier: GPL-2.0
/*
 * kblock [MS]: three threads that block in the kernel for MS milliseconds
 * (default 1000) each, at once: "napper" in nanosleep(), "piper" in read()
 * of an empty pipe (main writes a byte after MS), "futexer" in FUTEX_WAIT
 * (main wakes it after MS).  Each prints "NAME BLOCKED_NS": the wall time
 * of its blocking call, the ground truth for where whole-machine kernel
 * profiling puts its Sleep / User Lock time.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long ms = 1000;
static int pfd[2];
static atomic_int fword;
static long long took[3];

static long long now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *napper(void *arg)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	long long t0;

	pthread_setname_np(pthread_self(), "napper");
	t0 = now();
	nanosleep(&ts, NULL);
	took[0] = now() - t0;
	return NULL;
}

static void *piper(void *arg)
{
	long long t0;
	char c;

	pthread_setname_np(pthread_self(), "piper");
	t0 = now();
	if (read(pfd[0], &c, 1) != 1)
		perror("read");
	took[1] = now() - t0;
	return NULL;
}

static void *futexer(void *arg)
{
	long long t0;

	pthread_setname_np(pthread_self(), "futexer");
	t0 = now();
	while (!atomic_load(&fword))
		syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	took[2] = now() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[3])(void *) = { napper, piper, futexer };
	static const char *const names[3] = { "napper", "piper", "futexer" };
	struct timespec ts;
	pthread_t t[3];
	int i;

	if (argc > 1)
		ms = atol(argv[1]);
	if (ms <= 0 || pipe(pfd))
		return 2;
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL))
			return 1;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&ts, NULL);
	if (write(pfd[1], "x", 1) != 1)
		return 1;
	atomic_store(&fword, 1);
	syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		printf("%s %lld\n", names[i], took[i]);
	}
	return 0;
}
