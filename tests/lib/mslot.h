/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Truths that hold whatever the host does, for the microstate workloads
 * (tests/progs/ms_*.c; include mstate.h first).
 *
 * Why: the test guest is QEMU TCG, and the host stops its vCPU for
 * milliseconds whenever it likes (a "stall"); the guest's clock runs on,
 * and the time goes to whatever the vCPU was doing.  The kernel's own
 * figures (the CPU clock, schedstat) stamp a context switch with the run
 * queue's clock at the __schedule() entry, lwprof at the sched_switch
 * tracepoint; a stall between the two is run time for one and wait or
 * system time for the other.  No reading from outside can tell such a
 * stall apart, but two kinds of reading are exact:
 *
 *  - the thread's own, in user mode: there the module's slot for it (ABI
 *    1.5, uapi/lwprof.h) holds its microstates as of its last return to
 *    user mode, in state USER since then; read between two loads of the
 *    slot's count, with the clock, they are its microstates at that
 *    instant, in the same instant as the clock reading;
 *  - what the thread sees of itself while it spins: the slot's count
 *    changes at every return to user mode, so between two clock readings
 *    with the same count on both sides the thread was in user mode, on a
 *    CPU, all along ("covered"; a stall there is its USER for everyone).
 *    Threads pinned to one CPU never overlap in that time, and while one
 *    of them is covered the others are off the CPU.
 *
 * So a window [a, b] between two of a thread's user-mode readings gives the
 * module's totals over exactly that window, and bounds that are exact:
 * USER >= covered time, and USER <= the kernel's CPU time over the window
 * (user mode lies inside every run of the kernel's, whose ends are kernel
 * code; the CPU clock is read before a and after b); for a thread that
 * never blocks in the window, WAIT_CPU <= its uncovered time ("breaks")
 * and >= the time siblings pinned to its CPU were covered in its window.
 */
#ifndef LWPROF_MSLOT_H
#define LWPROF_MSLOT_H

#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "lwprof.h"

/* The process's slot area, mapped; NULL without a module of ABI 1.5. */
static inline const struct lwprof_ustate *ms_area_map(void)
{
	struct lwprof_ustate_open req = { 0 };
	int dev, fd;
	void *p;

	dev = open(LWPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		return NULL;
	fd = ioctl(dev, LWPROF_IOC_USTATE_OPEN, &req);
	close(dev);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate),
		 PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* The calling thread's slot (it must be accounted: run under ptime). */
static inline const struct lwprof_ustate *ms_slot_claim(const struct lwprof_ustate *area)
{
	struct lwprof_ustate_claim req = { .area = (uint64_t)area };
	int dev, slot;

	if (!area)
		return NULL;
	dev = open(LWPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		return NULL;
	slot = ioctl(dev, LWPROF_IOC_USTATE_CLAIM, &req);
	close(dev);
	return slot < 0 || slot >= LWPROF_USTATE_SLOTS ? NULL : area + slot;
}

static inline uint32_t ms_slot_seq(const struct lwprof_ustate *us)
{
	/* Acquire: what follows is read after the count. */
	return __atomic_load_n(&us->seq, __ATOMIC_ACQUIRE);
}

/*
 * A reading in user mode: the clock t and the module's accumulators v[] as
 * of its last change at last (module clock), state USER since.
 */
struct ms_reading {
	uint64_t t, last;
	uint64_t v[LWPROF_MS_COUNT];
};

/* Take a reading; false if the slot is not this thread's. */
static inline bool ms_read(const struct lwprof_ustate *us, struct ms_reading *r)
{
	uint32_t seq, tid = (uint32_t)ms_gettid();
	int i, tries;

	for (tries = 0; tries < 1000; tries++) {
		seq = ms_slot_seq(us);
		r->last = __atomic_load_n(&us->last_ns, __ATOMIC_RELAXED);
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			r->v[i] = __atomic_load_n(&us->mstate_ns[i], __ATOMIC_RELAXED);
		r->t = ms_now();
		/* The loads and the clock before the count is read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && seq == __atomic_load_n(&us->seq, __ATOMIC_RELAXED))
			return __atomic_load_n(&us->tid, __ATOMIC_RELAXED) == tid &&
			       __atomic_load_n(&us->state, __ATOMIC_RELAXED) == LWPROF_MS_USER;
	}
	return false;
}

/*
 * State s from reading a to reading b.  USER runs on since the slot's last
 * change: the module's clock and CLOCK_MONOTONIC may differ by an offset
 * (docs/design/mstate.md), which cancels here.
 */
static inline int64_t ms_delta(const struct ms_reading *a,
			       const struct ms_reading *b, int s)
{
	int64_t d = (int64_t)(b->v[s] - a->v[s]);

	if (s == LWPROF_MS_USER)
		d += (int64_t)((b->t - b->last) - (a->t - a->last));
	return d;
}

/*
 * What a spinning thread saw of itself: its covered stretches [t0, t1]
 * (user mode all along), in order.
 */
struct ms_trail {
	uint64_t (*run)[2];
	size_t n, max;
	uint64_t covered;
	bool full;
};

static inline void ms_trail_add(struct ms_trail *tr, uint64_t t0, uint64_t t1)
{
	tr->covered += t1 - t0;
	if (tr->n && tr->run[tr->n - 1][1] == t0) {
		tr->run[tr->n - 1][1] = t1;
		return;
	}
	if (tr->n == tr->max) {
		tr->full = true;
		return;
	}
	tr->run[tr->n][0] = t0;
	tr->run[tr->n][1] = t1;
	tr->n++;
}

/*
 * Spin in user mode until the clock reaches deadline, from reading a
 * (taken just before), noting the covered stretches.  A return to user
 * mode between clock readings t[k-1] and t[k] happened before t[k] and
 * after the count read before t[k-1]: the interval is covered if the
 * counts read after t[k-2] and after t[k] are equal.
 */
static inline void ms_spin_watch(const struct lwprof_ustate *us,
				 uint64_t deadline, struct ms_trail *tr)
{
	uint32_t s2 = ms_slot_seq(us), s1, s;
	uint64_t prev = ms_now(), t;

	s1 = ms_slot_seq(us);
	do {
		t = ms_now();
		s = ms_slot_seq(us);
		if (s == s2)
			ms_trail_add(tr, prev, t);
		s2 = s1;
		s1 = s;
		prev = t;
	} while (t < deadline);
}

/* How much of [a, b] the trail's stretches cover. */
static inline uint64_t ms_trail_within(const struct ms_trail *tr,
				       uint64_t a, uint64_t b)
{
	uint64_t sum = 0, lo, hi;
	size_t i;

	for (i = 0; i < tr->n; i++) {
		lo = tr->run[i][0] > a ? tr->run[i][0] : a;
		hi = tr->run[i][1] < b ? tr->run[i][1] : b;
		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* How much two trails overlap (threads on one CPU: none). */
static inline uint64_t ms_trail_overlap(const struct ms_trail *x,
					const struct ms_trail *y)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < x->n; i++)
		sum += ms_trail_within(y, x->run[i][0], x->run[i][1]);
	return sum;
}

#endif
