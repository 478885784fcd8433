// SPDX-License-Identifier: GPL-2.0
/*
 * The heap tracer's records (format 1.10, libexp/trace.h): the stacks a
 * file defines, interned as raw stacks of their thread's process, and
 * the slices' counts, which become one sample per allocation entry (its
 * count and bytes, on its stack, at the slice's start) and side table
 * entries (load/trace.c matches their frees with them).  Both may come
 * deflated (EXP_REC_TZ).  Counts may name a stack defined later in the
 * file: they wait in the file's state until its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"

/* A node of the file's stack tree (libexp/trace.h): its frame, thread. */
struct node {
	uint64_t pc;
	uint32_t parent;	/* 0: the outermost */
	uint32_t thr, tid;
	uint32_t raw;		/* the stack it ends, once made; UINT32_MAX */
	bool trunc;		/* the outermost of a cut walk */
	bool defined;
};

struct pend {
	uint32_t pid;
	uint64_t time;			/* the entry's first call */
	uint64_t slice_start, slice;
	struct exp_theap_ent e;
};

struct an_heapfile {
	struct an *an;
	uint32_t exp;
	struct an_vec nodes;		/* struct node, by id */
	struct an_vec pend;		/* struct pend */
	uint8_t *zbuf;			/* EXP_TZ_MAX: deflated records inflated */
};

struct an_heapfile *an_heap_open(struct an *an, uint32_t exp)
{
	struct an_heapfile *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->an = an;
	h->exp = exp;
	h->nodes.esz = sizeof(struct node);
	h->pend.esz = sizeof(struct pend);
	return h;
}

int an_heap_stack(struct an_heapfile *h, const struct exp_rec_tstack *s,
		  const char **why)
{
	const uint8_t *p = (const uint8_t *)(s + 1);
	const struct exp_tchain *c;
	struct an *an = h->an;
	struct node *x;
	uint32_t i, k, thr;
	uint64_t pc;

	if (!(an->need & AN_NEED_HEAP))
		return 0;
	for (i = 0; i < s->nchain; i++, p += sizeof(*c) + 8 * c->nr) {
		c = (const void *)p;
		thr = an_thread_get(an, h->exp, s->pid, c->tid);
		if (thr == UINT32_MAX)
			return -ENOMEM;
		while (h->nodes.n < c->id + c->nr) {
			x = an_vec_push(&h->nodes);
			if (!x)
				return -ENOMEM;
			memset(x, 0, sizeof(*x));
		}
		/* the parent's pc, that the chain's differ from */
		pc = c->parent && c->parent < h->nodes.n ?
			AN_VEC(h->nodes, struct node, c->parent).pc : 0;
		for (k = 0; k < c->nr; k++) {
			x = &AN_VEC(h->nodes, struct node, c->id + k);
			pc += c->pc[k];
			*x = (struct node){ pc, k ? c->id + k - 1 : c->parent,
					    thr, c->tid, UINT32_MAX,
					    !k && (c->flags & EXP_TSK_TRUNC), true };
		}
	}
	return 0;
}

/*
 * The raw stack of node id (its pcs and its ancestors', leaf first), made
 * once; UINT32_MAX: out of memory, *x NULL: not a node the file defines.
 */
static uint32_t node_raw(struct an_heapfile *h, uint32_t pid, uint32_t id,
			 struct node **leaf)
{
	uint64_t ips[EXP_TSTACK_MAX];
	struct node *x = NULL;
	uint32_t n = 0, as, flags = 0, at = id;

	*leaf = NULL;
	while (at && at < h->nodes.n && n < EXP_TSTACK_MAX) {
		x = &AN_VEC(h->nodes, struct node, at);
		if (!x->defined)
			return 0;
		if (n == 0 && x->raw != UINT32_MAX) {
			*leaf = x;
			return x->raw;
		}
		ips[n++] = x->pc;
		flags = x->trunc ? AN_RAW_TRUNC : 0;
		at = x->parent;
	}
	if (!n || at)
		return 0;	/* not defined, or a loop: <Unknown> */
	x = &AN_VEC(h->nodes, struct node, id);
	as = an_as_get(h->an, h->exp, pid, 0);
	if (as == UINT32_MAX)
		return UINT32_MAX;
	x->raw = an_raw_intern_h(h->an, an_raw_hash(as, ips, n, flags), as, ips,
				 n, flags);
	*leaf = x;
	return x->raw;
}

int an_heap_counts(struct an_heapfile *h, const struct exp_rec_theap *r,
		   const char **why)
{
	struct an_exp *e = &AN_VEC(h->an->exps, struct an_exp, h->exp);
	struct pend *p;
	uint32_t i;

	if (e->heap_pid && e->heap_pid != r->pid)
		e->heap_multi = true;
	e->heap_pid = r->pid;
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
	if (!(h->an->need & AN_NEED_HEAP)) {
		/* the time span, as a record counted but not decoded */
		if (r->time_ns < h->an->ld->skip_tmin)
			h->an->ld->skip_tmin = r->time_ns;
		if (r->time_ns > h->an->ld->skip_tmax)
			h->an->ld->skip_tmax = r->time_ns;
		return 0;
	}
	for (i = 0; i < r->nent; i++) {
		p = an_vec_push(&h->pend);
		if (!p)
			return -ENOMEM;
		p->pid = r->pid;
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
	struct exp_tcall t = { .event = p->e.event, .bytes = p->e.bytes };
	uint32_t layout, raw, thr, as, tid;
	struct an_thread *th;
	struct node *x;
	uint64_t vals[4];
	int nv;

	raw = node_raw(h, p->pid, p->e.stack, &x);
	if (raw == UINT32_MAX)
		return -ENOMEM;
	if (x) {
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

int an_heap_tz(struct an_heapfile *h, const struct exp_rec_tz *z,
	       const char **why, uint32_t *at)
{
	const struct lwprof_rec *r;
	unsigned int where;
	long n, off;
	int err;

	if (!h->zbuf && !(h->zbuf = malloc(EXP_TZ_MAX)))
		return -ENOMEM;
	n = exp_tz_inflate(z, h->zbuf, why);
	if (n < 0) {
		*at = 0;
		return -EINVAL;
	}
	for (off = 0; off < n; off += r->size) {
		r = (const void *)(h->zbuf + off);
		if (r->type == EXP_REC_TSTACK) {
			*why = exp_tstack_check((const void *)r, &where);
			err = *why ? -EINVAL : an_heap_stack(h, (const void *)r, why);
		} else {
			*why = r->size < sizeof(struct exp_rec_theap) ?
				"heap record too short" :
				exp_theap_check((const void *)r, &where);
			err = *why ? -EINVAL : an_heap_counts(h, (const void *)r, why);
		}
		if (err) {
			*at = off + where;
			return err;
		}
	}
	return 0;
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
	free(h->nodes.p);
	free(h->zbuf);
	free(h->pend.p);
	free(h);
	return err;
}
