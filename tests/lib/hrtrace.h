/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own record of a timer's expiries, for tests that count
 * clock packets: the timer:hrtimer_expire_entry tracepoint, through
 * tracefs.  Each event names the timer's function, the thread that was
 * running (the trace line's pid) and the base's time (now=, ns of
 * CLOCK_MONOTONIC).
 *
 *   hrt_start()   clear the trace buffer, give it HRT_BUF_KB per CPU if
 *                 it has less, and enable the event; -errno (-ENOENT: no
 *                 tracefs here)
 *   hrt_stop()    stop; tracing_on and the event's enable as hrt_start
 *                 found them (also at exit, if a test ends before); the
 *                 buffer's size is put back at exit, once the trace has
 *                 been read: a resize drops the events it holds
 *   hrt_count()   expiries of function fn while tid ran, at times in
 *                 [from, to]; -errno
 */
#ifndef LWPROF_HRTRACE_H
#define LWPROF_HRTRACE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const hrt_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

#define HRT_EVENT "events/timer/hrtimer_expire_entry/enable"

/*
 * The buffer a 2 s trace at 1 ms needs, with room.  The kernel's default
 * (1408 KiB) is not to be relied on: 6.1 sizes the top buffer only at its
 * first use, and a tracefs instance made before (tests/lib/schedtrace.sh)
 * marks every buffer as sized, leaving this one at a page per CPU (7 KiB,
 * about 200 events: most expiries were overwritten).
 */
#define HRT_BUF_KB	1408
#define HRT_BUF_KB_STR	"1408"

/*
 * The one trace of a test program: where tracefs is, and the settings
 * hrt_start() found ("0" or "1"), which hrt_stop() puts back, at exit too
 * (t_fatal() and t_skip() exit) while started.
 */
static struct {
	const char *dir;
	char on[2], event[2];
	unsigned long buf_kb;	/* what hrt_start found; 0: left alone */
	bool started, atexit;
} hrt;

static inline int hrt_write(const char *file, const char *val, int flags)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hrt.dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* The first character of a setting ("1", "0*": soft-disabled) in val. */
static inline int hrt_read(const char *file, char val[2])
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hrt.dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, val, 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n == 1 && (val[0] == '0' || val[0] == '1')) {
		val[1] = 0;
		return 0;
	}
	return n < 0 ? (int)n : -EINVAL;
}

/* buffer_size_kb's number ("7 (expanded: 1408)" reads as 7), or 0. */
static inline unsigned long hrt_buf_kb(void)
{
	char path[256], val[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/buffer_size_kb", hrt.dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	val[n] = 0;
	return strtoul(val, NULL, 10);
}

static inline void hrt_stop(void)
{
	if (!hrt.started)
		return;
	hrt_write("tracing_on", "0", 0);
	hrt_write(HRT_EVENT, hrt.event, 0);
	hrt_write("tracing_on", hrt.on, 0);
	hrt.started = false;
}

/* At exit: stopped, and the buffer's size as the first hrt_start found. */
static inline void hrt_end(void)
{
	char kb[32];

	hrt_stop();
	if (hrt.buf_kb) {
		snprintf(kb, sizeof(kb), "%lu", hrt.buf_kb);
		hrt_write("buffer_size_kb", kb, 0);
		hrt.buf_kb = 0;
	}
}

static inline int hrt_start(void)
{
	char path[256];
	unsigned int i;
	int ret;

	for (i = 0; !hrt.dir && i < sizeof(hrt_dirs) / sizeof(hrt_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/trace", hrt_dirs[i]);
		if (!access(path, W_OK))
			hrt.dir = hrt_dirs[i];
	}
	if (!hrt.dir)
		return -ENOENT;
	ret = hrt_read("tracing_on", hrt.on);
	if (!ret)
		ret = hrt_read(HRT_EVENT, hrt.event);
	if (ret)
		return ret;
	if (!hrt.atexit && !atexit(hrt_end))
		hrt.atexit = true;
	hrt.started = true;
	ret = hrt_write("tracing_on", "0", 0);
	if (!ret)
		ret = hrt_write("trace", "", O_TRUNC);
	if (!ret && !hrt.buf_kb) {	/* not grown by an earlier start */
		unsigned long kb = hrt_buf_kb();

		if (kb && kb < HRT_BUF_KB) {
			ret = hrt_write("buffer_size_kb", HRT_BUF_KB_STR, 0);
			if (!ret)
				hrt.buf_kb = kb;	/* to put back at exit */
		}
	}
	if (!ret)
		ret = hrt_write(HRT_EVENT, "1", 0);
	if (!ret)
		ret = hrt_write("tracing_on", "1", 0);
	if (ret)
		hrt_stop();
	return ret;
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

	snprintf(path, sizeof(path), "%s/trace", hrt.dir);
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
