// SPDX-License-Identifier: GPL-2.0
/*
 * The perf source's converter (perf.h, docs/design/perf-backend.md): perf's
 * per-CPU mmap rings in, lwprof records out.  A thread's records come from
 * every CPU it ran on, so each pass indexes the new records of all rings,
 * sorts them by time and converts only what is older than PERF_HOLD_NS
 * before the pass began: perf writes a record within microseconds of its
 * time stamp, with preemption off, so nothing older can still be on its
 * way (the last pass, after the events are disabled, converts everything).
 * Records are converted where perf wrote them: a ring's space goes back
 * to perf up to its first record not yet converted.
 *
 * The microstates (thr.c keeps each thread's clock) come from three
 * things: the clock samples (task-clock: every interval of the thread's
 * CPU time; user or kernel mode where it landed), the PERF_RECORD_SWITCH
 * records (exact times on and off CPU; the preempt flag says the thread
 * was still runnable) and, where kernel sampling is allowed, the
 * context-switch software event sampled at every switch-out (the stacks
 * where each thread left the CPU; its kernel chain tells a futex wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "userspace/backend/perf/perf.h"

#define PERF_HOLD_NS	20000000ULL	/* 20 ms */

__u64 perf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int pconv_create(struct psrc *p, struct pconv **cp)
{
	struct pconv *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->p = p;
	c->guard = geteuid() != 0;	/* root may trace every thread */
	/* The largest lwprof sample: fixed part, registers, frames, stack. */
	c->scratch_len = sizeof(struct lwprof_rec_sample) + 8 * LWPROF_NR_REGS +
			 16 * ((size_t)p->depth + 2) + p->stack_bytes + 8;
	c->scratch = malloc(c->scratch_len);
	c->compact = malloc(c->scratch_len);
	if (!c->scratch || !c->compact) {
		free(c->scratch);
		free(c->compact);
		free(c);
		return -ENOMEM;
	}
	*cp = c;
	return 0;
}

void pconv_destroy(struct pconv *c)
{
	if (!c)
		return;
	free(c->pend);
	pthr_free_all(c);
	free(c->scratch);
	free(c->compact);
	free(c);
}

void pconv_totals(const struct pconv *c, struct ptotals *t)
{
	*t = (struct ptotals){ c->samples, c->switches, c->perf_lost,
			       c->throttled, c->wakeups, c->wake_unseen };
}

/*
 * The time of a record, for ordering; 0 if it has none.  Every event's
 * samples begin IDENTIFIER IP TID TIME (the wake-up's too: wake.c).
 */
static __u64 rec_time(const struct perf_event_header *h)
{
	const __u64 *q = (const __u64 *)(h + 1);
	struct ptrail t;

	if (h->type == PERF_RECORD_SAMPLE)
		return h->size >= sizeof(*h) + 4 * 8 ? q[3] : 0;
	return pconv_trailer(h, &t) ? 0 : t.time;
}

static int pend_push(struct pconv *c, const unsigned char *rec, __u32 cpu,
		     __u64 pos)
{
	struct pend *n;

	if (c->nr_pend == c->cap_pend) {
		size_t cap = c->cap_pend ? 2 * c->cap_pend : 1024;

		n = realloc(c->pend, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->pend = n;
		c->cap_pend = cap;
	}
	n = &c->pend[c->nr_pend++];
	n->rec = rec;
	n->pos = pos;
	n->cpu = cpu;
	n->seq = c->seq++;
	n->time = rec_time((const struct perf_event_header *)rec);
	return 0;
}

/*
 * A record that wraps around the end of CPU i's ring, made whole in the
 * CPU's wrap buffer.  Records stay in perf's ring, between its data_tail
 * and data_head, until they are converted, and the kernel writes only
 * past data_head: so at most one of them wraps at a time, and the buffer
 * is free again before the next one does.
 */
static const unsigned char *unwrap(struct pcpu *pc, const unsigned char *data,
				   __u64 size, __u64 off, __u32 len)
{
	__u64 first = size - off;
	unsigned char *n;

	if (pc->wrap_cap < len) {
		n = realloc(pc->wrap, len);
		if (!n)
			return NULL;
		pc->wrap = n;
		pc->wrap_cap = len;
	}
	memcpy(pc->wrap, data + off, first);
	memcpy(pc->wrap + first, data, len - first);
	return pc->wrap;
}

/*
 * Index the records CPU i's ring gained since the last pass: they are
 * converted where they lie (pconv_pass()), with no copy.  The header is
 * 8 bytes at an 8-byte position, so only a record's body can wrap.
 */
static void read_ring(struct pconv *c, unsigned int i)
{
	struct pcpu *pc = &c->p->cpu[i];
	struct perf_event_mmap_page *mp = pc->mp;
	const unsigned char *data, *rec;
	__u64 head, size, off;
	struct perf_event_header h;

	if (!mp)
		return;
	data = (const unsigned char *)mp + mp->data_offset;
	size = mp->data_size;
	/* Pairs with the kernel's store-release of data_head. */
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (pc->rd < head) {
		off = pc->rd & (size - 1);
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pc->rd)
			break;	/* not perf's protocol: drop the rest */
		rec = off + h.size <= size ? data + off :
		      unwrap(pc, data, size, off, h.size);
		if (!rec || pend_push(c, rec, i, pc->rd))
			c->perf_lost++;
		pc->rd += h.size;
	}
	pc->rd = head;
}

/*
 * Give perf back the bytes of every CPU's ring up to its first record not
 * yet converted (they are read in ring order, converted in time order).
 */
static void free_rings(struct pconv *c)
{
	struct psrc *p = c->p;
	unsigned int i;
	size_t k;

	for (i = 0; i < p->nr_cpus; i++)
		p->cpu[i].keep = p->cpu[i].rd;
	for (k = 0; k < c->nr_pend; k++) {
		struct pcpu *pc = &p->cpu[c->pend[k].cpu];

		if (c->pend[k].pos < pc->keep)
			pc->keep = c->pend[k].pos;
	}
	for (i = 0; i < p->nr_cpus; i++) {
		if (!p->cpu[i].mp)
			continue;
		/* Our reads of the records are done before the kernel reuses them. */
		__atomic_store_n(&p->cpu[i].mp->data_tail, p->cpu[i].keep,
				 __ATOMIC_RELEASE);
	}
}

static int by_time(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

unsigned int pconv_pass(struct pconv *c, bool final, __u64 end_ns)
{
	__u64 cutoff = perf_now_ns() - PERF_HOLD_NS, before = c->written;
	unsigned int i;
	size_t k, done;

	c->pass++;	/* thr.c asks each thread again, once */
	for (i = 0; i < c->p->nr_cpus; i++)
		read_ring(c, i);
	qsort(c->pend, c->nr_pend, sizeof(*c->pend), by_time);
	for (k = 0; k < c->nr_pend; k++) {
		if (!final && c->pend[k].time > cutoff)
			break;
		pconv_record(c, (const struct perf_event_header *)c->pend[k].rec,
			     c->pend[k].cpu);
	}
	done = k;
	memmove(c->pend, c->pend + done, (c->nr_pend - done) * sizeof(*c->pend));
	c->nr_pend -= done;
	free_rings(c);
	if (final)
		pthr_close_all(c, end_ns);
	return (unsigned int)(c->written - before);
}
