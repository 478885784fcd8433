// SPDX-License-Identifier: GPL-2.0
/*
 * The usage set every backend fills (backend.h): one record per thread,
 * successive reads merged, exited threads spilled; sums and rebasing for
 * ptime and top.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/backend/backend.h"

const int lwprof_ms_order[LWPROF_MS_COUNT] = {
	LWPROF_MS_USER, LWPROF_MS_SYSTEM, LWPROF_MS_TRAP, LWPROF_MS_TFAULT,
	LWPROF_MS_DFAULT, LWPROF_MS_KFAULT, LWPROF_MS_USER_LOCK,
	LWPROF_MS_SLEEP, LWPROF_MS_WAIT_CPU, LWPROF_MS_STOPPED,
};

int lwprof_parse_pid(const char *s, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT32_MAX)
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

char *lwprof_fmt_sec(char *buf, size_t len, __u64 ns)
{
	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000));
	return buf;
}

const char *lwprof_ptrace_refusal(int pid, char *buf, size_t len)
{
	snprintf(buf, len, "not allowed to trace PID %d (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)",
		 pid);
	return buf;
}

void lwprof_usage_init(struct lwprof_usage_set *set)
{
	memset(set, 0, sizeof(*set));
}

void lwprof_usage_free(struct lwprof_usage_set *set)
{
	free(set->tu);
	lwprof_usage_init(set);
}

void lwprof_usage_clear(struct lwprof_usage_set *set)
{
	set->n = 0;
}

static int cmp_key(const struct lwprof_thread_usage *a,
		   const struct lwprof_thread_usage *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return 0;
}

/* Key order, then the newest record of a thread last. */
static int cmp_age(const void *pa, const void *pb)
{
	const struct lwprof_thread_usage *a = pa, *b = pb;
	int c = cmp_key(a, b);

	if (c)
		return c;
	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns ? -1 : 1;
	return (int)(a->flags & LWPROF_TU_EXITED) -
	       (int)(b->flags & LWPROF_TU_EXITED);
}

int lwprof_usage_grow(struct lwprof_thread_usage **v, size_t *cap,
		      size_t want)
{
	struct lwprof_thread_usage *p;
	size_t ncap = *cap ? *cap : 64;

	if (want <= *cap)
		return 0;
	while (ncap < want)
		ncap *= 2;
	p = realloc(*v, ncap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

int lwprof_usage_merge(struct lwprof_usage_set *set,
		 const struct lwprof_thread_usage *tu, size_t n)
{
	size_t i, out;
	int err;

	err = lwprof_usage_grow(&set->tu, &set->cap, set->n + n);
	if (err)
		return err;
	memcpy(set->tu + set->n, tu, n * sizeof(*tu));
	set->n += n;
	qsort(set->tu, set->n, sizeof(*set->tu), cmp_age);
	for (i = 0, out = 0; i < set->n; i++) {
		if (out && !cmp_key(&set->tu[out - 1], &set->tu[i]))
			out--;	/* an older record of the same thread */
		set->tu[out++] = set->tu[i];
	}
	set->n = out;
	return 0;
}

int lwprof_usage_spill(struct lwprof_usage_set *set,
		       int (*put)(void *arg,
				  const struct lwprof_thread_usage *tu,
				  size_t n),
		       void *arg)
{
	size_t i = 0, run, out = 0;
	int err = 0;

	while (i < set->n) {
		for (run = 0; i + run < set->n &&
		     (set->tu[i + run].flags & LWPROF_TU_EXITED); run++)
			;
		if (run && !err)
			err = put(arg, set->tu + i, run);
		if (!run || err) {	/* live, or kept after a failure */
			if (!run)
				run = 1;
			memmove(set->tu + out, set->tu + i,
				run * sizeof(*set->tu));
			out += run;
		}
		i += run;
	}
	set->n = out;
	/* give back the room of a burst of exits: keep it for the live */
	if (set->cap > 2 * out + 256) {
		struct lwprof_thread_usage *p;

		p = realloc(set->tu, (out + 64) * sizeof(*p));
		if (p) {
			set->tu = p;
			set->cap = out + 64;
		}
	}
	return err;
}

const struct lwprof_thread_usage *
lwprof_usage_find(const struct lwprof_usage_set *set,
		  const struct lwprof_thread_usage *key)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(&set->tu[mid], key);

		if (!c)
			return &set->tu[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static __u64 delta(__u64 now, __u64 then)
{
	return now > then ? now - then : 0;
}

void lwprof_usage_add(struct lwprof_usage_sum *sum,
		      const struct lwprof_thread_usage *tu,
		      const struct lwprof_thread_usage *old)
{
	static const struct lwprof_thread_usage zero;
	int i;

	if (!old)
		old = &zero;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		sum->ms[i] += delta(tu->mstate_ns[i], old->mstate_ns[i]);
	sum->vcsw += delta(tu->vcsw, old->vcsw);
	sum->ivcsw += delta(tu->ivcsw, old->ivcsw);
	sum->minflt += delta(tu->minflt, old->minflt);
	sum->majflt += delta(tu->majflt, old->majflt);
	sum->syscalls += delta(tu->syscalls, old->syscalls);
	sum->signals += delta(tu->signals, old->signals);
}

void lwprof_usage_rebase(struct lwprof_usage_set *set,
			 const struct lwprof_usage_set *base)
{
	size_t i;
	int j;

	for (i = 0; i < set->n; i++) {
		struct lwprof_thread_usage *tu = &set->tu[i];
		const struct lwprof_thread_usage *b = lwprof_usage_find(base, tu);

		if (!b)
			continue;
		for (j = 0; j < LWPROF_MS_COUNT; j++)
			tu->mstate_ns[j] = delta(tu->mstate_ns[j], b->mstate_ns[j]);
		tu->vcsw = delta(tu->vcsw, b->vcsw);
		tu->ivcsw = delta(tu->ivcsw, b->ivcsw);
		tu->minflt = delta(tu->minflt, b->minflt);
		tu->majflt = delta(tu->majflt, b->majflt);
		tu->syscalls = delta(tu->syscalls, b->syscalls);
		tu->signals = delta(tu->signals, b->signals);
		tu->start_ns = b->end_ns;
	}
}

__u64 lwprof_usage_real(const struct lwprof_usage_set *set, int tid)
{
	__u64 start = UINT64_MAX, end = 0;
	size_t i;

	/* The first thread with that tid (a recycled tid comes later). */
	for (i = 0; i < set->n; i++) {
		const struct lwprof_thread_usage *tu = &set->tu[i];

		if ((int)tu->tid == tid && (start == UINT64_MAX ||
					    tu->start_ns < start)) {
			start = tu->start_ns;
			end = tu->end_ns;
		}
	}
	if (start != UINT64_MAX)
		return delta(end, start);
	/* Not recorded: the span of the whole session. */
	for (i = 0; i < set->n; i++) {
		if (set->tu[i].start_ns < start)
			start = set->tu[i].start_ns;
		if (set->tu[i].end_ns > end)
			end = set->tu[i].end_ns;
	}
	return set->n ? delta(end, start) : 0;
}
