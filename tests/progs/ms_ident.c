// SPDX-License-Identifier: GPL-2.0
/*
 * Identity workload: three single-threaded children pinned to one CPU each
 * spin 100 ms, make 2000 getppid() calls, sleep 30 ms and spin 100 ms
 * again, competing for the CPU.  Once a child has exited, and before it is
 * reaped, its /proc/PID/schedstat is final: the parent prints it
 * ("sched childN PID RUN WAIT"), so run time and run-queue wait cover the
 * child's whole life, exit included.
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
	unsigned long long run, wait;
	pid_t pid[NCHILD];
	char path[64];
	siginfo_t si;
	FILE *f;
	int i;

	ms_tid("main");
	fflush(stdout);
	for (i = 0; i < NCHILD; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 2;
		if (!pid[i])
			child(cpu);
		printf("tid child%d %d\n", i, pid[i]);
	}
	for (i = 0; i < NCHILD; i++) {
		if (waitid(P_PID, pid[i], &si, WEXITED | WNOWAIT))
			return 2;
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pid[i]);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2)
			return 2;
		fclose(f);
		printf("sched child%d %d %llu %llu\n", i, pid[i], run, wait);
		if (waitpid(pid[i], NULL, 0) != pid[i])
			return 2;
	}
	return 0;
}
