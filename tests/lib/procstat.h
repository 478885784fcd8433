/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/stat's per-CPU times, for tests whose truth is the kernel's own
 * account of a CPU (its idle, its interrupt and steal time).
 */
#ifndef LWPROF_PROCSTAT_H
#define LWPROF_PROCSTAT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The columns of a "cpuN" line, in their order. */
enum {
	PS_USER, PS_NICE, PS_SYSTEM, PS_IDLE, PS_IOWAIT, PS_IRQ, PS_SOFTIRQ,
	PS_STEAL, PS_N
};

/*
 * Each CPU's times below max, in ns (of USER_HZ ticks), into v[cpu]; the
 * CPUs not listed are left as they are.  Returns the highest CPU read + 1.
 */
static inline int proc_stat(uint64_t (*v)[PS_N], int max)
{
	uint64_t tick = 1000000000ULL / sysconf(_SC_CLK_TCK);
	unsigned long long x[PS_N];
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int cpu, i, n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &x[6],
			   &x[7]) != 1 + PS_N || cpu < 0 || cpu >= max)
			continue;
		for (i = 0; i < PS_N; i++)
			v[cpu][i] = x[i] * tick;
		n = cpu + 1;
	}
	if (f)
		fclose(f);
	return n;
}

#endif
