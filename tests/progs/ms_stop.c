// SPDX-License-Identifier: GPL-2.0
/*
 * Stop workload: main forks a child that spins in user mode; once the
 * child says it runs (a byte on a pipe), main stops it with SIGSTOP, waits until it has stopped, sleeps 300 ms and sends
 * SIGCONT.  Ground truth: from the stop being reported (waitpid WUNTRACED)
 * to SIGCONT, and from before SIGSTOP to after SIGCONT.
 */
#include <signal.h>
#include <sys/wait.h>

#include "mstate.h"

int main(void)
{
	struct timespec ts = { 0, 300 * MS_MS };
	uint64_t t0, t1, t2;
	int status;
	int ready[2];
	pid_t child;
	char c = 0;

	ms_tid("main");
	fflush(stdout);
	if (pipe(ready))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		ms_spin_until(ms_now() + 5 * MS_NS);
		_exit(0);
	}
	printf("tid child %d\n", child);
	if (read(ready[0], &c, 1) != 1)
		return 2;
	t0 = ms_now();
	kill(child, SIGSTOP);
	if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status))
		return 2;
	t1 = ms_now();
	nanosleep(&ts, NULL);
	t2 = ms_now();
	kill(child, SIGCONT);
	ms_truth("stop_min_ns", t2 - t1);
	ms_truth("stop_max_ns", ms_now() - t0);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return 0;
}
