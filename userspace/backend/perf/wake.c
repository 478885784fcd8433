// SPDX-License-Identifier: GPL-2.0
/*
 * The wake-up tracepoint of the perf backend (docs/design/perf-backend.md, "Wait
 * CPU after a wake-up"): sched:sched_wakeup, opened as a perf event on
 * every CPU for every task, says when each blocked thread was put back on
 * a run queue, so that its time off CPU splits into the blocked state
 * (switch-out to wake-up) and Wait CPU (wake-up to switch-in), as the
 * module counts them.  Its id and where the woken task's pid lies in its
 * raw data come from tracefs: where it is mounted, or, for root where it
 * is not, from a tracefs mounted for the moment in a mount namespace of a
 * child process (the machine's mounts do not change).  The event, raw
 * tracepoint data on every CPU, needs CAP_PERFMON (or
 * kernel.perf_event_paranoid at -1): without it, or without tracefs, the
 * wait after a wake-up stays in the state before it, and log.txt says
 * why.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

#define TP	"events/sched/sched_wakeup/"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing/", "/sys/kernel/debug/tracing/",
};

/* The tracepoint's id and the offset of its "pid" field, from dir. */
static int read_tp(const char *dir, __u64 *id, __u32 *off)
{
	char path[128], line[256];
	unsigned long long v;
	unsigned int o, sz;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s" TP "id", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	found = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!found)
		return -EINVAL;
	*id = v;
	snprintf(path, sizeof(path), "%s" TP "format", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	found = 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, " field:pid_t pid; offset:%u; size:%u;",
			       &o, &sz) == 2 && sz == 4;
	fclose(f);
	if (!found)
		return -EINVAL;
	*off = o;
	return 0;
}

/*
 * Root without tracefs mounted: a child mounts one in a mount namespace
 * of its own, reads the two numbers and tells them through a pipe.
 */
static int read_tp_ns(__u64 *id, __u32 *off)
{
	struct { int err; __u32 off; __u64 id; } m = { -ENOENT, 0, 0 };
	int fd[2], st;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (!pid) {
		close(fd[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tracefs", tracefs_dirs[0], "tracefs", 0, NULL))
			m.err = -errno;
		else
			m.err = read_tp(tracefs_dirs[0], &m.id, &m.off);
		_exit(write(fd[1], &m, sizeof(m)) != sizeof(m));
	}
	close(fd[1]);
	if (read(fd[0], &m, sizeof(m)) != sizeof(m))
		m.err = -EIO;
	close(fd[0]);
	waitpid(pid, &st, 0);
	*id = m.id;
	*off = m.off;
	return m.err;
}

void pwake_attr(const struct psrc *p, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = p->wake_id;
	a->sample_period = 1;
	/* The clock's first six words (conv.c reads the time there). */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	/* On from the start: wake-ups of threads not ours are passed over. */
}

void pwake_setup(struct psrc *p)
{
	struct perf_event_attr a;
	unsigned int i;
	int err = -ENOENT, fd;

	for (i = 0; err && i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		err = read_tp(tracefs_dirs[i], &p->wake_id, &p->wake_pid_off);
	if (err && !geteuid())
		err = read_tp_ns(&p->wake_id, &p->wake_pid_off);
	if (err && geteuid()) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "sched:sched_wakeup needs root, or CAP_PERFMON and a tracefs it can read (%s)",
			 strerror(-err));
		return;
	}
	if (err) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "no tracefs for sched:sched_wakeup (%s)", strerror(-err));
		return;
	}
	pwake_attr(p, &a);
	fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "sched:sched_wakeup with its raw data on every CPU needs CAP_PERFMON, or kernel.perf_event_paranoid at -1 (it is %d)",
			 p->paranoid);
		return;
	}
	if (fd < 0) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "sched:sched_wakeup: %s", strerror(errno));
		return;
	}
	close(fd);
	p->wake = true;
}

int pwake_sample(const struct psrc *p, const struct perf_event_header *h,
		 __u64 *time, __u32 *tid)
{
	const __u64 *q = (const __u64 *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	__u32 n;

	/* IDENTIFIER IP TID TIME CPU PERIOD, then RAW: u32 size, data. */
	if (h->size < sizeof(*h) + 6 * 8 + 4)
		return -EINVAL;
	*time = q[3];
	memcpy(&n, q + 6, 4);
	if (n > (__u64)(end - (const unsigned char *)(q + 6)) - 4 ||
	    p->wake_pid_off + 4 > n)
		return -EINVAL;
	memcpy(tid, (const unsigned char *)(q + 6) + 4 + p->wake_pid_off, 4);
	return 0;
}
