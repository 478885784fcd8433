// SPDX-License-Identifier: GPL-2.0
/*
 * A traced process killed by a signal (tests/host/trace_signal.sh):
 * "trace_signal MODE" leaks known blocks in a function of its own, in
 * its main thread and in a second one that then waits (its buffer is
 * another thread's), says so ("truth FUNC LEAKS BYTES", as trace_fork),
 * then dies as MODE says: term (SIGTERM sent to itself), segv (a write
 * through NULL), overflow (endless recursion: the main stack runs out),
 * abort, pipe (a write to a pipe nobody reads), kill (SIGKILL: nothing
 * can save the buffers).  "handler" checks that the program's own
 * handling is its own: SIGTERM reads as the default action, its handler
 * replaces the library's and runs, setting the default back brings the
 * library's back (read as the default), then it dies of SIGTERM.
 * "ignored": an ignored SIGHUP stays ignored, and it exits 0.  Before
 * dying each says "dying SIGNAL".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

static volatile int handled;
static int *volatile nowhere;	/* NULL */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

NOINLINE static void main_work(void) { truth_leak("main_work", 3, 30); }
NOINLINE static void thread_work(void) { truth_leak("thread_work", 5, 50); }

static void *other(void *arg)
{
	sigset_t all;

	sigfillset(&all);	/* the signals are for the main thread */
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	thread_work();
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	for (;;)
		pause();
	return NULL;
}

static void on_term(int sig)
{
	handled++;
}

static void die(int sig)
{
	printf("dying %d\n", sig);
	fflush(stdout);
}

/* deeper than any stack (a frame of 4 KiB or more, 2^31 times) */
NOINLINE static int recurse(volatile char *p, long depth)
{
	volatile char pad[4096];

	pad[0] = p ? p[0] + 1 : 0;
	return depth >= (1L << 31) ? 0 : recurse(pad, depth + 1) + pad[1];
}

/* The program's handling of SIGTERM: all its own. */
static int own_handler(void)
{
	struct sigaction sa = { .sa_handler = on_term }, old;

	if (sigaction(SIGTERM, NULL, &old) || old.sa_handler != SIG_DFL)
		return 1;	/* the library's must read as the default */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, &old) || old.sa_handler != SIG_DFL)
		return 2;
	raise(SIGTERM);
	if (handled != 1)
		return 3;	/* its handler, not the library's */
	if (signal(SIGTERM, SIG_DFL) != on_term)
		return 4;
	if (sigaction(SIGTERM, NULL, &old) || old.sa_handler != SIG_DFL)
		return 5;
	printf("own handler ran, SIGTERM reads as default\n");
	return 0;
}

int main(int argc, char **argv)
{
	int p[2], ret;
	pthread_t t;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "handler") && (ret = own_handler()))
		return 10 + ret;
	main_work();
	if (pthread_create(&t, NULL, other, NULL))
		return 1;
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);

	if (!strcmp(argv[1], "term") || !strcmp(argv[1], "handler")) {
		die(SIGTERM);
		kill(getpid(), SIGTERM);
	} else if (!strcmp(argv[1], "segv")) {
		die(SIGSEGV);
		*nowhere = 0;
	} else if (!strcmp(argv[1], "overflow")) {
		die(SIGSEGV);
		return recurse(NULL, 0);
	} else if (!strcmp(argv[1], "abort")) {
		die(SIGABRT);
		abort();
	} else if (!strcmp(argv[1], "pipe")) {
		die(SIGPIPE);
		if (pipe(p))
			return 1;
		close(p[0]);
		ret = write(p[1], "x", 1);
	} else if (!strcmp(argv[1], "kill")) {
		die(SIGKILL);
		kill(getpid(), SIGKILL);
	} else if (!strcmp(argv[1], "ignored")) {
		if (signal(SIGHUP, SIG_IGN) != SIG_IGN)
			return 3;	/* it must read as ignored, as it was */
		kill(getpid(), SIGHUP);
		printf("ignored SIGHUP\n");
		return 0;
	}
	for (;;)
		pause();
}
