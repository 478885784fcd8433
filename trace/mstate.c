// SPDX-License-Identifier: GPL-2.0
/*
 * The module's microstates over a traced call (trace.h, docs/design/tracing.md):
 * where lwprof.ko accounts the process, each thread reads its own ten
 * accumulators from a slot the module writes at every return to user
 * mode (uapi/lwprof.h, LWPROF_IOC_USTATE_*), at the call's start and end,
 * without a system call.  The record then says how a 300 ms mutex wait
 * was spent: User Lock, Wait CPU, System CPU...
 *
 * Per process (set at its start, kept by a forked child): the area's
 * mapping.  Per thread: its slot, claimed at its first
 * traced call (one ioctl), and the reading at the start of the call being
 * traced.  The library does not nest (tr_in), so one reading per thread
 * is enough; a reading is used once, and only by the call that took it
 * (its start time).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

/* The process's area, mapped (NULL: no module, or one before ABI 1.5). */
static const struct lwprof_ustate *ms_area;

static __thread const struct lwprof_ustate *ms_slot TR_TLS;
static __thread bool ms_tried TR_TLS;	/* claimed, or failed to */
static __thread uint32_t ms_tid TR_TLS;
/* The readings at the start and end of the call being traced. */
struct ms_reading {
	bool ok;
	uint64_t t;
	uint64_t v[LWPROF_MS_COUNT];
};
static __thread struct ms_reading ms_start TR_TLS, ms_end TR_TLS;

/*
 * Where the module accounts this process: its area, mapped.  Called at
 * the process's start (after an exec too); a forked child keeps its
 * parent's mapping.  The area's descriptor is closed at once: a claim
 * names the mapping, so a program that closes every descriptor cannot
 * take it away.
 */
void tr_ms_open(void)
{
	struct lwprof_ustate_open req = { 0 };
	int dev, fd;
	void *p;

	if (ms_area)
		return;
	dev = open(LWPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		return;
	fd = ioctl(dev, LWPROF_IOC_USTATE_OPEN, &req);
	close(dev);
	if (fd < 0)
		return;	/* a module older than ABI 1.5: no microstates */
	p = mmap(NULL, LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate),
		 PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		ms_area = p;
}

bool tr_ms_mapped(void)
{
	return ms_area;
}

/* A forked child's thread claims a slot of its own. */
void tr_ms_after_fork(void)
{
	ms_slot = NULL;
	ms_tried = false;
	ms_start.ok = false;
}

/* This thread's slot: one open, ioctl and close, at its first traced call. */
static bool ms_claim(void)
{
	struct lwprof_ustate_claim req = { .area = (uint64_t)ms_area };
	int dev, slot;

	ms_tried = true;
	dev = open(LWPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		return false;
	slot = ioctl(dev, LWPROF_IOC_USTATE_CLAIM, &req);
	close(dev);
	if (slot < 0 || slot >= LWPROF_USTATE_SLOTS)
		return false;	/* not accounted (any more), or no slot left */
	ms_tid = gettid();
	ms_slot = ms_area + slot;
	return true;
}

/*
 * The clock, and in v the thread's microstates at that instant (the
 * module's accumulators, and the time since their last change in the
 * state it is in); *ok false if the slot is not this thread's.  The
 * module writes the slot whenever this thread returns to user mode, so
 * the clock is read between two readings of its count: a kernel entry in
 * between (an interrupt, a page fault) and the reading is taken again.
 */
static uint64_t ms_now(uint64_t *v, bool *ok)
{
	const struct lwprof_ustate *us = ms_slot;
	uint32_t seq, tid = 0, state = 0, tries = 0;
	uint64_t last = 0, now;
	int i;

	*ok = false;
	if (!us)
		return tr_now();
	do {
		/* Acquire: the fields below are of this count or a later one. */
		seq = __atomic_load_n(&us->seq, __ATOMIC_ACQUIRE);
		tid = __atomic_load_n(&us->tid, __ATOMIC_RELAXED);
		state = __atomic_load_n(&us->state, __ATOMIC_RELAXED);
		last = __atomic_load_n(&us->last_ns, __ATOMIC_RELAXED);
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			v[i] = __atomic_load_n(&us->mstate_ns[i], __ATOMIC_RELAXED);
		now = tr_now();
		/* The loads and the clock before the count is read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1 || seq != __atomic_load_n(&us->seq, __ATOMIC_RELAXED)) &&
		 ++tries < 16);
	if (tries == 16 || tid != ms_tid || state >= LWPROF_MS_COUNT)
		return now;
	/* Modulo 2^64: the clocks' offset cancels in an end minus a start. */
	v[state] += now - last;
	*ok = true;
	return now;
}

uint64_t tr_clock_start(void)
{
	if (ms_area && !ms_slot && !ms_tried)
		ms_claim();	/* before the call's time begins */
	ms_start.t = ms_now(ms_start.v, &ms_start.ok);
	return ms_start.t;
}

uint64_t tr_clock_end(void)
{
	ms_end.t = ms_now(ms_end.v, &ms_end.ok);
	return ms_end.t;
}

bool tr_ms_delta(uint64_t t0, uint64_t t1, uint64_t *ms)
{
	if (!ms_start.ok || !ms_end.ok || ms_start.t != t0 || ms_end.t != t1)
		return false;
	ms_start.ok = false;	/* used once */
	tr_ms_sub(ms_start.v, ms_end.v, t1 - t0, ms);
	return true;
}

bool tr_clock_ms(uint64_t *t, uint64_t *v)
{
	bool ok;

	if (ms_area && !ms_slot && !ms_tried)
		ms_claim();
	*t = ms_now(v, &ok);
	return ok;
}

void tr_ms_sub(const uint64_t *v0, const uint64_t *v1, uint64_t span,
	       uint64_t *ms)
{
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		ms[i] = v1[i] - v0[i];
		if (ms[i] > span)
			ms[i] = 0;	/* the clocks' rates differ: under 0 */
	}
}
