// SPDX-License-Identifier: GPL-2.0
/*
 * Identity workload: three single-threaded children pinned to one CPU each
 * spin 100 ms, make 2000 getppid() calls, sleep 30 ms and spin 100 ms
 * again, competing for the CPU.  The test's truth is the kernel's trace of
 * the scheduler (tests/lib/schedtrace.sh), so this prints only the tids.
 * A first child that exits at once runs the module's fork, wakeup and exit
 * probes once before the measured ones: in the TCG guest a module's code
 * first run after its load is translated then, which put up to 80 us
 * between the trace's event and lwprof's probe on the same tracepoint
 * (widening the test's brackets).
 */
#include <sched.h>
#include <sys/wait.h>

#include "mstate.h"

#define NCHILD	3

static void child(int cpu)
{
	struct timespec ts = { 0, 30 * MS_MS };
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
	ms_spin_until(ms_now() + 100 * MS_MS);
	for (i = 0; i < 2000; i++)
		syscall(SYS_getppid);
	nanosleep(&ts, NULL);
	ms_spin_until(ms_now() + 100 * MS_MS);
	_exit(0);
}

int main(void)
{
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	pid_t pid[NCHILD];
	int i;

	ms_tid("main");
	fflush(stdout);
	pid[0] = fork();
	if (pid[0] < 0)
		return 2;
	if (!pid[0])
		_exit(0);
	if (waitpid(pid[0], NULL, 0) != pid[0])
		return 2;
	for (i = 0; i < NCHILD; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 2;
		if (!pid[i])
			child(cpu);
		printf("tid child%d %d\n", i, pid[i]);
	}
	for (i = 0; i < NCHILD; i++)
		if (waitpid(pid[i], NULL, 0) != pid[i])
			return 2;
	return 0;
}
