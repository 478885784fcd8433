// SPDX-License-Identifier: GPL-2.0
/*
 * Thread life-cycle workload: a thread that exits early, a forked child
 * that execs this program again ("exec" mode) and there starts a bare
 * clone(CLONE_THREAD) thread that ends with exit(2), and 1000 short-lived
 * threads (created 8 at a time).  Prints "tid ROLE TID" for every thread
 * (and "pid ROLE PID" for processes) so the test can find each one.
 *
 *   ms_life [NSHORT]
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>

#include "mstate.h"

static atomic_int clone_done;
static char clone_stack[64 << 10] __attribute__((aligned(16)));

static void *exiter(void *arg)
{
	ms_tid("exiter");
	ms_spin_until(ms_now() + 20 * MS_MS);
	pthread_exit(NULL);
}

static void *short_thread(void *arg)
{
	ms_tid("short");
	ms_spin_until(ms_now() + 100000);
	return NULL;
}

static int bare_thread(void *arg)
{
	ms_tid("clone");
	fflush(stdout);
	ms_spin_until(ms_now() + 20 * MS_MS);
	atomic_store(&clone_done, 1);
	syscall(SYS_exit, 0);
	return 0;
}

static int exec_mode(void)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD | CLONE_SYSVSEM;

	printf("pid exec %d\n", getpid());
	ms_tid("exec");
	ms_spin_until(ms_now() + 20 * MS_MS);
	fflush(stdout);
	if (clone(bare_thread, clone_stack + sizeof(clone_stack), flags,
		  NULL) < 0) {
		perror("clone");
		return 2;
	}
	while (!atomic_load(&clone_done))
		usleep(1000);
	usleep(10000);	/* let the bare thread finish exiting */
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int nshort = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t t[8];
	int i, j, n, status;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return exec_mode();
	printf("pid main %d\n", getpid());
	ms_tid("main");
	if (pthread_create(&t[0], NULL, exiter, NULL) ||
	    pthread_join(t[0], NULL))
		return 2;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		printf("pid forked %d\n", getpid());
		ms_tid("forked");
		ms_spin_until(ms_now() + 20 * MS_MS);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
		perror("exec");
		_exit(2);
	}
	if (waitpid(child, &status, 0) != child || status != 0)
		return 2;

	for (i = 0; i < nshort; i += n) {
		n = nshort - i < 8 ? nshort - i : 8;
		for (j = 0; j < n; j++)
			if (pthread_create(&t[j], NULL, short_thread, NULL))
				return 2;
		for (j = 0; j < n; j++)
			pthread_join(t[j], NULL);
	}
	return 0;
}
