// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing follows descendants (tests/host/trace_fork.sh): a
 * multithreaded parent forks (its other thread allocating all the
 * while), the child leaks and execs this program again, which leaks
 * again; posix_spawn and vfork + exec start two more.  Each leaks a known
 * number of known blocks in a function of its own and says so:
 * "truth FUNC LEAKS BYTES".  The vfork child allocates before its exec
 * too (vfork_child_work): those calls are its own, not its parent's
 * ("vfork_child PID" names it).
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

extern char **environ;
static void *volatile keep[16];
static volatile int stop;

NOINLINE static void parent_work(void) { truth_leak("parent_work", 1, 200); }
NOINLINE static void child_work(void) { truth_leak("child_work", 7, 10); }
NOINLINE static void exec_work(void) { truth_leak("exec_work", 5, 30); }
NOINLINE static void spawn_work(void) { truth_leak("spawn_work", 2, 40); }
NOINLINE static void vfork_work(void) { truth_leak("vfork_work", 3, 50); }

/* In the vfork child: no stdio (its parent's, under a real vfork). */
NOINLINE static void vfork_child_work(void)
{
	int i;

	for (i = 0; i < 4; i++)
		keep[i] = malloc(60);
}

static void *churn(void *arg)
{
	while (!stop)
		free(malloc(16));
	return NULL;
}

int main(int argc, char **argv)
{
	static char obuf[BUFSIZ];
	char *args[] = { argv[0], NULL, NULL };
	pthread_t t;
	pid_t pid;
	int st;

	/*
	 * stdout's buffer is ours: stdio would malloc it at the first printf,
	 * inside a function whose truth is printed (a leak there, which a
	 * stack copy reaching that far rightly charges to it).
	 */
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (argc > 1) {
		if (!strcmp(argv[1], "exec"))
			exec_work();
		else if (!strcmp(argv[1], "spawn"))
			spawn_work();
		else if (!strcmp(argv[1], "vfork"))
			vfork_work();
		return 0;
	}
	parent_work();
	if (pthread_create(&t, NULL, churn, NULL))
		return 1;
	pid = fork();
	if (!pid) {
		child_work();
		args[1] = "exec";
		execv(argv[0], args);
		_exit(127);
	}
	stop = 1;
	pthread_join(t, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		return 1;
	args[1] = "spawn";
	if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) ||
	    waitpid(pid, &st, 0) != pid || st)
		return 1;
	args[1] = "vfork";
	pid = vfork();
	if (!pid) {
		vfork_child_work();
		execv(argv[0], args);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		return 1;
	printf("truth vfork_child_work 4 240\nvfork_child %d\n", pid);
	return 0;
}
