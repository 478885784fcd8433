// SPDX-License-Identifier: GPL-2.0
/*
 * The heap tracer's records (format 1.7, libexp/trace.h): the stacks a
 * file defines, interned as raw stacks of their thread's process, and
 * the slices' counts, which become one sample per allocation entry (its
 * count and bytes, on its stack, at the slice's start) and side table
 * entries (load/trace.c matches their frees with them).  Counts may
 * name a stack defined later in the file (another thread wrote them):
 * they wait in the file's state until its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"

struct sid {
	uint32_t raw, thr, tid;	/* raw UINT32_MAX: not defined */
	uint16_t event;
};

struct pend {
	uint32_t pid;
	uint64_t time;			/* the entry's first call */
	uint64_t slice_start, slice;
	struct exp_theap_ent e;
};

struct an_heapfile {
	struct an *an;
	uint32_t exp, pid, tid;		/* the last mark's */
	struct an_vec sids;		/* struct sid, by id */
	struct an_vec pend;		/* struct pend */
};

struct an_heapfile *an_heap_open(struct an *an, uint32_t exp)
{
	struct an_heapfile *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->an = an;
	h->exp = exp;
	h->sids.esz = sizeof(struct sid);
	h->pend.esz = sizeof(struct pend);
	return h;
}

int an_heap_mark(struct an_heapfile *h, const struct exp_rec_tmark *m)
{
	h->pid = m->pid;
	h->tid = m->tid;
	return 0;
}

int an_heap_stack(struct an_heapfile *h, const struct exp_rec_tstack *s,
		  const char **why)
{
	struct an *an = h->an;
	uint32_t as, flags = s->hdr.flags & EXP_TSK_TRUNC ? AN_RAW_TRUNC : 0;
	struct sid *x;

	if (!h->pid) {
		*why = "stack record before any thread mark";
		return -EINVAL;
	}
	if (!(an->need & AN_NEED_TRACE))
		return 0;
	while (h->sids.n <= s->id) {
		x = an_vec_push(&h->sids);
		if (!x)
			return -ENOMEM;
		x->raw = UINT32_MAX;
	}
	x = &AN_VEC(h->sids, struct sid, s->id);
	as = an_as_get(an, h->exp, h->pid, 0);
	x->thr = an_thread_get(an, h->exp, h->pid, h->tid);
	if (as == UINT32_MAX || x->thr == UINT32_MAX)
		return -ENOMEM;
	x->raw = an_raw_intern_h(an, an_raw_hash(as, (const uint64_t *)s->pc,
						 s->nr, flags),
				 as, (const uint64_t *)s->pc, s->nr, flags);
	x->tid = h->tid;
	x->event = s->event;
	return x->raw == UINT32_MAX ? -ENOMEM : 0;
}

int an_heap_counts(struct an_heapfile *h, const struct exp_rec_theap *r,
		   const char **why)
{
	struct an_exp *e = &AN_VEC(h->an->exps, struct an_exp, h->exp);
	struct pend *p;
	uint32_t i;

	if (!h->pid) {
		*why = "heap record before any thread mark";
		return -EINVAL;
	}
	if (e->heap_pid && e->heap_pid != h->pid)
		e->heap_multi = true;
	e->heap_pid = h->pid;
	if (r->peak > e->heap_peak) {
		e->heap_peak = r->peak;
		e->heap_peak_ns = r->peak_ns;
	}
	for (i = 0; i < r->nent; i++) {
		const struct exp_theap_ent *x = &r->e[i];

		if (x->flags & EXP_THE_FREE)
			continue;
		/* each allocation entry is a sample of its traced calls */
		e->nsamples++;
		e->ncalls++;
		e->ncounted += x->count - 1;
	}
	if (!(h->an->need & AN_NEED_TRACE))
		return 0;
	for (i = 0; i < r->nent; i++) {
		p = an_vec_push(&h->pend);
		if (!p)
			return -ENOMEM;
		p->pid = h->pid;
		p->time = r->time_ns + r->e[i].first_ns;
		p->slice_start = r->time_ns;
		p->slice = r->slice_ns;
		p->e = r->e[i];
	}
	return 0;
}

/* An allocation entry: its sample on the stack of its id, and its entry. */
static int made(struct an_heapfile *h, const struct pend *p)
{
	static const uint64_t no_ips[1];
	struct an *an = h->an;
	struct sid *x = p->e.stack < h->sids.n ?
		&AN_VEC(h->sids, struct sid, p->e.stack) : NULL;
	struct exp_tcall t = { .event = p->e.event, .bytes = p->e.bytes };
	uint32_t layout, raw, thr, as, tid;
	struct an_thread *th;
	uint64_t vals[4];
	int nv;

	if (x && x->raw != UINT32_MAX) {
		raw = x->raw;
		thr = x->thr;
		tid = x->tid;
	} else {	/* a stack the file does not define: <Unknown>, its process's */
		as = an_as_get(an, h->exp, p->pid, 0);
		thr = an_thread_get(an, h->exp, p->pid, p->pid);
		if (as == UINT32_MAX || thr == UINT32_MAX)
			return -ENOMEM;
		raw = an_raw_intern_h(an, an_raw_hash(as, no_ips, 0, AN_RAW_UNKNOWN),
				      as, no_ips, 0, AN_RAW_UNKNOWN);
		tid = p->pid;
		if (raw == UINT32_MAX)
			return -ENOMEM;
	}
	nv = an_trace_decode(an, &t, &layout, vals);
	if (nv < 0)
		return -ENOMEM;
	vals[0] = p->e.count;
	vals[1] = p->e.count * p->e.bytes;
	th = &AN_VEC(an->threads, struct an_thread, thr);
	if (!th->nsamples || p->time < th->first_ns)
		th->first_ns = p->time;
	if (p->time > th->last_ns)
		th->last_ns = p->time;
	th->nsamples++;
	if (an_sample_add(an, p->time, raw, thr, 0, layout, vals, nv, 0))
		return -ENOMEM;
	return an_trace_add_count(an, &(struct an_tev){
		.sample = an->s.n - 1, .exp = h->exp, .pid = p->pid, .tid = tid,
		.event = p->e.event, .kind = AN_TEV_MADE, .fd = -1,
		.file = UINT32_MAX, .t0 = p->slice_start, .t1 = p->time,
		.addr = p->e.stack, .bytes = p->e.bytes, .unw = UINT32_MAX,
		.ms = UINT32_MAX, .count = p->e.count });
}

static int freed(struct an_heapfile *h, const struct pend *p)
{
	return an_trace_add_count(h->an, &(struct an_tev){
		.sample = UINT32_MAX, .exp = h->exp, .pid = p->pid,
		.event = p->e.event, .kind = AN_TEV_FREED, .fd = -1,
		.file = UINT32_MAX, .t0 = p->slice_start - p->e.age * p->slice,
		.t1 = p->time, .addr = p->e.stack, .bytes = p->e.bytes,
		.unw = UINT32_MAX, .ms = UINT32_MAX, .count = p->e.count });
}

int an_heap_close(struct an_heapfile *h)
{
	const struct pend *p;
	size_t i;
	int err = 0;

	for (i = 0; i < h->pend.n && !err; i++) {
		p = &AN_VEC(h->pend, struct pend, i);
		err = p->e.flags & EXP_THE_FREE ? freed(h, p) : made(h, p);
	}
	free(h->sids.p);
	free(h->pend.p);
	free(h);
	return err;
}
