// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread tracepoint counters: two counting perf events per thread
 * (not inherited: each thread has its own, opened when it is first read),
 * kept in a table sorted by tid and closed once the thread is gone and
 * its final counts were read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

enum { PC_SCL, PC_SIG, PC_N };

static const char *const pc_events[PC_N] = {
	[PC_SCL] = "raw_syscalls/sys_enter",
	[PC_SIG] = "signal/signal_deliver",
};

static const char *const pc_tracefs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

struct pc_thread {
	__u32 tid;
	bool seen;		/* read since the last sweep */
	int fd[PC_N];
};

struct lwprof_pcnt {
	__u64 id[PC_N];		/* tracepoint ids */
	struct pc_thread *t;
	size_t n, cap;
};

static int tp_id(const char *event, __u64 *id)
{
	char path[128], buf[32];
	unsigned int i;
	int fd, err = -ENOENT;
	ssize_t n;

	for (i = 0; i < sizeof(pc_tracefs) / sizeof(pc_tracefs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", pc_tracefs[i],
			 event);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == EACCES || errno == EPERM)
				err = -EACCES;	/* there, not for us */
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		*id = strtoull(buf, NULL, 10);
		return 0;
	}
	return err;
}

static int pc_event(__u64 id, int tid)
{
	struct perf_event_attr a;

	pevent_attr(&a, PERF_TYPE_TRACEPOINT, id);
	return pevent_open(&a, tid, -1, -1);
}

int lwprof_pcnt_open(struct lwprof_pcnt **out)
{
	struct lwprof_pcnt *pc;
	struct rlimit rl;
	int i, err, fd;

	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	for (i = 0; i < PC_N; i++) {
		err = tp_id(pc_events[i], &pc->id[i]);
		if (err)
			goto fail;
	}
	/* May we?  Ask the kernel with a counter on ourselves. */
	fd = pc_event(pc->id[PC_SCL], 0);
	if (fd < 0) {
		err = fd == -EPERM ? -EACCES : fd;
		goto fail;
	}
	close(fd);
	/* Two descriptors a thread: as many as we may have. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	*out = pc;
	return 0;
fail:
	free(pc);
	return err;
}

static struct pc_thread *pc_find(struct lwprof_pcnt *pc, __u32 tid,
				 size_t *at)
{
	size_t lo = 0, hi = pc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc->t[mid].tid == tid)
			return &pc->t[mid];
		if (pc->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

/* Open tid's counters into a new entry at position at. */
static struct pc_thread *pc_add(struct lwprof_pcnt *pc, __u32 tid, size_t at)
{
	struct pc_thread t = { .tid = tid };
	int i;

	for (i = 0; i < PC_N; i++) {
		t.fd[i] = pc_event(pc->id[i], tid);
		if (t.fd[i] < 0) {
			while (i--)
				close(t.fd[i]);
			return NULL;
		}
	}
	if (pc->n == pc->cap) {
		size_t cap = pc->cap ? pc->cap * 2 : 64;
		struct pc_thread *p = realloc(pc->t, cap * sizeof(*p));

		if (!p) {
			for (i = 0; i < PC_N; i++)
				close(t.fd[i]);
			return NULL;
		}
		pc->t = p;
		pc->cap = cap;
	}
	memmove(pc->t + at + 1, pc->t + at, (pc->n - at) * sizeof(*pc->t));
	pc->t[at] = t;
	pc->n++;
	return &pc->t[at];
}

int lwprof_pcnt_read(struct lwprof_pcnt *pc, __u32 tid, __u64 *syscalls,
		     __u64 *signals)
{
	struct pc_thread *t;
	__u64 v[PC_N];
	size_t at = 0;
	int i;

	t = pc_find(pc, tid, &at);
	if (!t)
		t = pc_add(pc, tid, at);
	if (!t)
		return -ESRCH;
	t->seen = true;
	for (i = 0; i < PC_N; i++)
		if (read(t->fd[i], &v[i], sizeof(v[i])) != sizeof(v[i]))
			return -EIO;
	*syscalls = v[PC_SCL];
	*signals = v[PC_SIG];
	return 0;
}

void lwprof_pcnt_sweep(struct lwprof_pcnt *pc)
{
	size_t i, n;
	int j;

	for (i = 0, n = 0; i < pc->n; i++) {
		if (pc->t[i].seen) {
			pc->t[i].seen = false;
			pc->t[n++] = pc->t[i];
			continue;
		}
		for (j = 0; j < PC_N; j++)
			close(pc->t[i].fd[j]);
	}
	pc->n = n;
}

void lwprof_pcnt_close(struct lwprof_pcnt *pc)
{
	size_t i;
	int j;

	if (!pc)
		return;
	for (i = 0; i < pc->n; i++)
		for (j = 0; j < PC_N; j++)
			close(pc->t[i].fd[j]);
	free(pc->t);
	free(pc);
}
