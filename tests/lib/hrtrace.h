/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own record of a timer's expiries, for tests that count
 * clock packets: the timer:hrtimer_expire_entry tracepoint, through
 * tracefs.  Each event names the timer's function, the thread that was
 * running (the trace line's pid) and the base's time (now=, ns of
 * CLOCK_MONOTONIC).
 *
 *   hrt_start()   clear the trace buffer and enable the event; -errno
 *                 (-ENOENT: no tracefs here)
 *   hrt_stop()    disable it
 *   hrt_count()   expiries of function fn while tid ran, at times in
 *                 [from, to]; -errno
 */
#ifndef LWPROF_HRTRACE_H
#define LWPROF_HRTRACE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const hrt_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

static const char *hrt_dir;

static inline int hrt_write(const char *file, const char *val, int flags)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hrt_dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

static inline int hrt_start(void)
{
	char path[256];
	unsigned int i;
	int ret;

	for (i = 0; !hrt_dir && i < sizeof(hrt_dirs) / sizeof(hrt_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/trace", hrt_dirs[i]);
		if (!access(path, W_OK))
			hrt_dir = hrt_dirs[i];
	}
	if (!hrt_dir)
		return -ENOENT;
	ret = hrt_write("tracing_on", "0", 0);
	if (!ret)
		ret = hrt_write("trace", "", O_TRUNC);
	if (!ret)
		ret = hrt_write("events/timer/hrtimer_expire_entry/enable", "1", 0);
	if (!ret)
		ret = hrt_write("tracing_on", "1", 0);
	return ret;
}

static inline void hrt_stop(void)
{
	hrt_write("tracing_on", "0", 0);
	hrt_write("events/timer/hrtimer_expire_entry/enable", "0", 0);
}

/*
 * A trace line: "  COMM-PID  [CPU] FLAGS  SECS: hrtimer_expire_entry:
 * hrtimer=P function=FN now=NS" (older kernels put now= before function=).
 */
static inline int hrt_count(const char *fn, pid_t tid, uint64_t from,
			    uint64_t to, unsigned int *lost)
{
	char path[256], line[512], want[128];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", hrt_dir);
	snprintf(want, sizeof(want), "function=%s ", fn);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*lost = 0;
	while (fgets(line, sizeof(line), f)) {
		char *cpu = strstr(line, " ["), *now = strstr(line, " now="), *p;
		uint64_t ns;
		long pid;

		/* the ring overwrote events: "CPU:N [LOST M EVENTS]" */
		if (!strncmp(line, "CPU:", 4) && strstr(line, " [LOST "))
			(*lost)++;
		if (!cpu || !now || !strstr(line, "hrtimer_expire_entry:") ||
		    !strstr(line, want))
			continue;
		for (p = cpu; p > line && p[-1] == ' '; p--)
			;		/* the pid ends before the padding */
		while (p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		pid = strtol(p, NULL, 10);
		ns = strtoull(now + 5, NULL, 10);
		n += pid == tid && ns >= from && ns <= to;
	}
	fclose(f);
	return n;
}

#endif
