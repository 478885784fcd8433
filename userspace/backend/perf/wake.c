// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's tracepoints in the perf backend (docs/design/perf-backend.md,
 * "Wait CPU after a wake-up", "On CPU from the switch"), opened as perf
 * events on every CPU for every task:
 *  - sched:sched_wakeup says when each blocked thread was put back on a
 *    run queue, so that its time off CPU splits into the blocked state
 *    (switch-out to wake-up) and Wait CPU (wake-up to switch-in), as the
 *    module counts them;
 *  - sched:sched_wakeup_new says when a new thread was first put on a
 *    run queue: its accounting begins there, as the module's does (from
 *    its creation, perf's FORK record, to there it is on no run queue
 *    and its creator may still be delayed);
 *  - sched:sched_switch says when the scheduler switched: it fires before
 *    the switch itself and before perf's own work at it (the switch-out
 *    sample's stack copy, the events' schedule-out and -in), which the
 *    kernel charges to the incoming thread's CPU time; PERF_RECORD_SWITCH
 *    comes after all of it, tens of microseconds later on a virtual
 *    machine, and would count them as its Wait CPU.
 * Their ids and where the pids lie in their raw data come from tracefs:
 * where it is mounted, or, for root where it is not, from a tracefs
 * mounted for the moment in a mount namespace of a child process (the
 * machine's mounts do not change).  The events, raw tracepoint data on
 * every CPU, need CAP_PERFMON (or kernel.perf_event_paranoid at -1):
 * without them, or without tracefs, the wait after a wake-up stays in the
 * state before it, the switch's work in Wait CPU, and log.txt says why.
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

#define TP_WAKEUP	"events/sched/sched_wakeup/"
#define TP_WAKE_NEW	"events/sched/sched_wakeup_new/"
#define TP_SWITCH	"events/sched/sched_switch/"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing/", "/sys/kernel/debug/tracing/",
};

/* What the two tracepoints' format files say, or why they could not. */
struct ptp {
	int err;		/* sched_wakeup's (without it, neither is used) */
	int sw_err;		/* sched_switch's */
	int wn_err;		/* sched_wakeup_new's */
	__u64 wake_id, sw_id, wn_id;
	__u32 wake_pid, sw_prev, sw_next, wn_pid;
};

/*
 * Tracepoint tp's id, and the offsets of its n 4-byte fields names[]
 * (pid_t) in its raw data, from dir.
 */
static int read_tp(const char *dir, const char *tp, __u64 *id,
		   const char *const *names, __u32 *offs, unsigned int n)
{
	char path[160], line[256], fmt[96];
	unsigned long long v;
	unsigned int o, sz, i, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s%sid", dir, tp);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	i = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!i)
		return -EINVAL;
	*id = v;
	snprintf(path, sizeof(path), "%s%sformat", dir, tp);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found != (1u << n) - 1 && fgets(line, sizeof(line), f)) {
		for (i = 0; i < n; i++) {
			snprintf(fmt, sizeof(fmt),
				 " field:pid_t %s; offset:%%u; size:%%u;", names[i]);
			if (sscanf(line, fmt, &o, &sz) == 2 && sz == 4) {
				offs[i] = o;
				found |= 1u << i;
			}
		}
	}
	fclose(f);
	return found == (1u << n) - 1 ? 0 : -EINVAL;
}

static void read_tps(const char *dir, struct ptp *t)
{
	static const char *const wake[] = { "pid" };
	static const char *const sw[] = { "prev_pid", "next_pid" };
	__u32 off[2];

	t->err = read_tp(dir, TP_WAKEUP, &t->wake_id, wake, &t->wake_pid, 1);
	if (t->err)
		return;
	t->wn_err = read_tp(dir, TP_WAKE_NEW, &t->wn_id, wake, &t->wn_pid, 1);
	t->sw_err = read_tp(dir, TP_SWITCH, &t->sw_id, sw, off, 2);
	t->sw_prev = off[0];
	t->sw_next = off[1];
}

/*
 * Root without tracefs mounted: a child mounts one in a mount namespace
 * of its own, reads the numbers and tells them through a pipe.
 */
static void read_tps_ns(struct ptp *t)
{
	int fd[2], st;
	pid_t pid;

	t->err = -ENOENT;
	if (pipe2(fd, O_CLOEXEC)) {
		t->err = -errno;
		return;
	}
	pid = fork();
	if (pid < 0) {
		t->err = -errno;
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (!pid) {
		close(fd[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tracefs", tracefs_dirs[0], "tracefs", 0, NULL))
			t->err = -errno;
		else
			read_tps(tracefs_dirs[0], t);
		_exit(write(fd[1], t, sizeof(*t)) != sizeof(*t));
	}
	close(fd[1]);
	if (read(fd[0], t, sizeof(*t)) != sizeof(*t))
		t->err = -EIO;
	close(fd[0]);
	waitpid(pid, &st, 0);
}

void pwake_attr(const struct psrc *p, struct perf_event_attr *a, __u64 id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = 1;
	/* The clock's first six words (conv.c reads the time there). */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	/* On from the start: the records of threads not ours are passed over. */
}

void pwake_setup(struct psrc *p)
{
	struct perf_event_attr a;
	struct ptp t = { .err = -ENOENT };
	unsigned int i;
	int fd;

	for (i = 0; t.err && i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		read_tps(tracefs_dirs[i], &t);
	if (t.err && !geteuid())
		read_tps_ns(&t);
	if (t.err && geteuid()) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "sched:sched_wakeup needs root, or CAP_PERFMON and a tracefs it can read (%s)",
			 strerror(-t.err));
		return;
	}
	if (t.err) {
		snprintf(p->wake_why, sizeof(p->wake_why),
			 "no tracefs for sched:sched_wakeup (%s)", strerror(-t.err));
		return;
	}
	p->wake_id = t.wake_id;
	p->wake_pid_off = t.wake_pid;
	pwake_attr(p, &a, p->wake_id);
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
	/* The same rights open the others; a kernel without one does without. */
	if (!t.wn_err) {
		p->wnew_id = t.wn_id;
		p->wnew_pid_off = t.wn_pid;
		p->wake_new = true;
	}
	if (!t.sw_err) {
		p->sw_id = t.sw_id;
		p->sw_prev_off = t.sw_prev;
		p->sw_next_off = t.sw_next;
		p->sched_switch = true;
	}
}

/* The raw data of a tracepoint's sample h, and its time; NULL if cut. */
static const unsigned char *tp_raw(const struct perf_event_header *h,
				   __u64 *time, __u32 *len)
{
	const __u64 *q = (const __u64 *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;

	/* IDENTIFIER IP TID TIME CPU PERIOD, then RAW: u32 size, data. */
	if (h->size < sizeof(*h) + 6 * 8 + 4)
		return NULL;
	*time = q[3];
	memcpy(len, q + 6, 4);
	if (*len > (__u64)(end - (const unsigned char *)(q + 6)) - 4)
		return NULL;
	return (const unsigned char *)(q + 6) + 4;
}

int pwake_sample(const struct psrc *p, const struct perf_event_header *h,
		 bool new_task, __u64 *time, __u32 *tid)
{
	__u32 n, off = new_task ? p->wnew_pid_off : p->wake_pid_off;
	const unsigned char *raw;

	raw = tp_raw(h, time, &n);
	if (!raw || off + 4 > n)
		return -EINVAL;
	memcpy(tid, raw + off, 4);
	return 0;
}

int psw_sample(const struct psrc *p, const struct perf_event_header *h,
	       __u64 *time, __u32 *prev, __u32 *next)
{
	const unsigned char *raw;
	__u32 n;

	raw = tp_raw(h, time, &n);
	if (!raw || p->sw_prev_off + 4 > n || p->sw_next_off + 4 > n)
		return -EINVAL;
	memcpy(prev, raw + p->sw_prev_off, 4);
	memcpy(next, raw + p->sw_next_off, 4);
	return 0;
}
