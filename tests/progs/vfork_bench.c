// SPDX-License-Identifier: GPL-2.0
/*
 * What vfork costs against fork (scripts/bench-vfork): touch MIB MiB of
 * heap, then N times vfork (or fork) and exec /bin/true, waiting for
 * each; prints "MODE MIB us_per_spawn" (elapsed).  Under tracing the
 * library makes vfork a fork (docs/design/tracing.md): this is its price.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *args[] = { "/bin/true", NULL }, *p;
	struct timespec a, b;
	size_t mib;
	volatile int i;	/* live across vfork */
	int n, st, vf;
	pid_t pid;

	if (argc != 4)
		return 2;
	mib = strtoul(argv[1], NULL, 0);
	n = atoi(argv[2]);
	vf = !strcmp(argv[3], "vfork");
	p = malloc((mib << 20) + 1);
	if (!p || n <= 0)
		return 1;
	memset(p, 1, mib << 20);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		pid = vf ? vfork() : fork();
		if (!pid) {
			execv(args[0], args);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s %zu %.1f\n", argv[3], mib,
	       ((b.tv_sec - a.tv_sec) * 1e9 + b.tv_nsec - a.tv_nsec) / n / 1e3);
	return 0;
}
