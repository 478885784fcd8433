// SPDX-License-Identifier: GPL-2.0
/*
 * Descendants the tracing library cannot enter, and those whose
 * environment lost it (tests/host/trace_untraced.sh).  Run as
 * "trace_untraced STATIC SCRIPT [SETUID]": STATIC a statically linked
 * program, SCRIPT a script whose interpreter is STATIC, SETUID a program
 * set-user-ID to another user (each exits 0).  It starts them in every
 * way a program can and says what must be reported, one line each:
 * "untraced PID PATH KIND" (PID 0: a child of system/popen, then its
 * parent's pid follows: "untraced 0 PPID PATH KIND").  Programs it
 * starts with an environment of its own making (execle, posix_spawn),
 * without LD_PRELOAD, must still be traced: they leak known blocks in a
 * function of their own ("truth FUNC LEAKS BYTES", as trace_fork).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

extern char **environ;

NOINLINE static void env_work(void) { truth_leak("env_work", 3, 11); }
NOINLINE static void spawn_env_work(void) { truth_leak("spawn_env_work", 4, 12); }
NOINLINE static void failed_exec_work(void) { truth_leak("failed_exec_work", 2, 10); }

/* The child pid's exit status must be 0. */
static int reap(pid_t pid, const char *what)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "trace_untraced: %s failed\n", what);
		exit(1);
	}
	return 0;
}

/* fork, and exec path (with arg, if any) in the child */
static pid_t fork_exec(const char *path, const char *arg)
{
	char *args[] = { (char *)path, (char *)arg, NULL };
	pid_t pid = fork();

	if (!pid) {
		execv(path, args);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	char *empty[] = { NULL }, *some[] = { "TRACE_UNTRACED=1", NULL };
	char *args[] = { argv[0], NULL, NULL };
	const char *st, *script;
	char line[4200], *big;
	pid_t pid;
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "env_work")) {
		env_work();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "spawn_env_work")) {
		spawn_env_work();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "noop"))
		return 0;
	if (argc < 3)
		return 2;
	st = argv[1];
	script = argv[2];

	/* fork + exec of a static program */
	pid = fork_exec(st, NULL);
	reap(pid, "fork + exec static");
	printf("untraced %d %s static\n", pid, st);

	/* posix_spawn of it */
	args[0] = (char *)st;
	if (posix_spawn(&pid, st, NULL, NULL, args, environ))
		return 1;
	reap(pid, "posix_spawn static");
	printf("untraced %d %s static\n", pid, st);

	/*
	 * An exec of it that fails (an argument over the kernel's 128 KiB),
	 * the process traced on, then one that succeeds: said once.
	 */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		big = malloc(200000);
		memset(big, 'x', 199999);
		big[199999] = 0;
		args[1] = big;
		execv(st, args);
		if (errno != E2BIG)
			_exit(3);
		free(big);
		failed_exec_work();
		args[1] = NULL;
		execv(st, args);
		_exit(127);
	}
	reap(pid, "a failed exec, then one");
	printf("untraced %d %s static\n", pid, st);

	/* a script whose interpreter is static: the interpreter is named */
	pid = fork_exec(script, NULL);
	reap(pid, "exec of a script");
	printf("untraced %d %s static\n", pid, st);

	/* set-user-ID to another user */
	if (argc > 3) {
		pid = fork_exec(argv[3], "noop");
		reap(pid, "exec set-user-ID");
		printf("untraced %d %s setuid\n", pid, argv[3]);
	}

	/* environments without LD_PRELOAD: the library puts it back */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		execle(argv[0], argv[0], "env_work", (char *)NULL, empty);
		_exit(127);
	}
	reap(pid, "execle with an empty environment");
	args[0] = argv[0];
	args[1] = "spawn_env_work";
	if (posix_spawn(&pid, argv[0], NULL, NULL, args, some))
		return 1;
	reap(pid, "posix_spawn with an environment of its own");

	/* system from an environment the program took LD_PRELOAD out of */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		unsetenv("LD_PRELOAD");
		_exit(system("exit 0") ? 4 : 0);
	}
	reap(pid, "system without LD_PRELOAD");
	printf("untraced 0 %d /bin/sh env\n", pid);

	/* popen's shell (traced) execs the static program: its own pid */
	snprintf(line, sizeof(line), "echo $$; exec %s", st);
	f = popen(line, "r");
	if (!f || !fgets(line, sizeof(line), f) || pclose(f))
		return 1;
	printf("untraced %d %s static\n", atoi(line), st);
	return 0;
}
