// SPDX-License-Identifier: GPL-2.0
/*
 * spin_exec [-w FILE] SECS PROG [ARGS...]: run in user mode for SECS
 * seconds of CPU time, then exec PROG: an ordinary program of the user's
 * own that a session records before it execs another (the security
 * tests).  -w FILE first spins until FILE exists (until the test has
 * attached a session, say).  Prints its pid on stdout first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile unsigned long n = 0;
	const char *wait = NULL;
	double end;

	if (argc > 2 && !strcmp(argv[1], "-w")) {
		wait = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: spin_exec [-w FILE] SECS PROG [ARGS...]\n");
		return 2;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	while (wait && access(wait, F_OK))
		for (int i = 0; i < 100000; i++)
			n++;
	for (end = cpu_now() + atof(argv[1]); cpu_now() < end;)
		for (int i = 0; i < 1000000; i++)
			n++;
	execv(argv[2], argv + 2);
	perror("spin_exec");
	return 127;
}
