// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP records (libexp/omp.h) into the model (model/omp.h).  While the
 * files are read: the runtimes, regions, implicit tasks and waits as
 * written, their stacks interned as raw stacks of their processes.  Once
 * the stacks are resolved (an_omp_finish(), from an_finish()): threads,
 * regions and stacks found by their keys, the spans sorted per thread,
 * and the metrics: each wait a row of the sample table on its stack
 * with its time as ompwait (exact: the tool's clock reads) and, where the
 * module accounted it, its time in each microstate, and each
 * clock sample of an OpenMP process taken outside a wait a row of its
 * thread time as ompwork.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "analyzer/model/omp.h"
#include "libexp/omp.h"

/* While loading: a stack record's raw stack, by (exp, pid, id). */
struct ostack {
	uint32_t exp, pid, id, raw;
};

/* ... and the keys of a span or region until the threads are numbered. */
struct okey {
	uint32_t exp, pid, tid, stack;
	uint64_t region;
};

struct an_omp_load {
	struct an_vec stacks;	/* struct ostack */
	struct an_vec rkeys;	/* struct okey per region */
	struct an_vec tkeys;	/* ... per implicit task */
	struct an_vec xkeys;	/* ... per explicit task's run */
	struct an_vec wkeys;	/* ... per wait */
	uint32_t lay_work, lay_wait, lay_wait_ms, lay_blame;
	struct an_vec clock;	/* struct csample: the tool's threads' clock samples */
};

/* A clock sample of a thread the tool recorded, for the blame's stack. */
struct csample {
	uint32_t thr, stack;
	uint64_t t, v;		/* v: its thread time */
	uint16_t cpu;
};

static struct an_omp_load *ld_of(struct an *an)
{
	if (!an->ld->omp)
		an->ld->omp = calloc(1, sizeof(*an->ld->omp));
	return an->ld->omp;
}

void an_omp_load_free(struct an_omp_load *l)
{
	if (!l)
		return;
	free(l->stacks.p);
	free(l->rkeys.p);
	free(l->tkeys.p);
	free(l->xkeys.p);
	free(l->clock.p);
	free(l->wkeys.p);
	free(l);
}

int an_omp_init(struct an *an)
{
	uint32_t i;

	for (i = 0; i < AN_OMP_B_COUNT; i++)
		if (an_base_id(an, AN_B_OMP, i) == UINT32_MAX)
			return -ENOMEM;
	return 0;
}

static struct an_omp *omp_get(struct an *an)
{
	struct an_omp *o = an->omp;

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o || !ld_of(an)) {
		free(o);
		return NULL;
	}
	o->regions.esz = sizeof(struct an_omp_region);
	o->tasks.esz = o->waits.esz = o->xtasks.esz = sizeof(struct an_omp_span);
	o->ms.esz = 8 * LWPROF_MS_COUNT;
	o->rts.esz = sizeof(struct an_omp_rt);
	ld_of(an)->stacks.esz = sizeof(struct ostack);
	ld_of(an)->clock.esz = sizeof(struct csample);
	ld_of(an)->rkeys.esz = ld_of(an)->tkeys.esz = ld_of(an)->wkeys.esz =
		ld_of(an)->xkeys.esz = sizeof(struct okey);
	an->omp = o;
	return o;
}

static int wait_kind(unsigned int ev)
{
	return ev - EXP_OMP_IDLE + AN_OMP_IDLE;	/* in the same order */
}

int an_omp_rec(struct an *an, uint32_t exp, const struct lwprof_rec *h)
{
	struct an_omp *o = omp_get(an);
	struct an_omp_load *l = ld_of(an);
	const struct exp_rec_omp_event *e = (const void *)h;
	struct an_omp_span *sp;
	struct okey *k;

	if (!o)
		return -ENOMEM;
	switch (h->type) {
	case EXP_REC_OMP_RUNTIME: {
		const struct exp_rec_omp_runtime *r = (const void *)h;
		struct an_omp_rt *rt = an_vec_push(&o->rts);

		if (!rt)
			return -ENOMEM;
		rt->exp = exp;
		rt->pid = r->pid;
		rt->version = strdup(r->version);
		return rt->version ? 0 : -ENOMEM;
	}
	case EXP_REC_OMP_STACK: {
		const struct exp_rec_omp_stack *s = (const void *)h;
		uint32_t as = an_as_get(an, exp, s->pid, 0);
		struct ostack *st = an_vec_push(&l->stacks);

		if (!st || as == UINT32_MAX)
			return -ENOMEM;
		*st = (struct ostack){ exp, s->pid, s->id,
			an_raw_intern(an, as, (const uint64_t *)s->ips, s->nr, 0) };
		return st->raw == UINT32_MAX ? -ENOMEM : 0;
	}
	case EXP_REC_OMP_EVENT:
		break;
	case EXP_REC_OMP_FOLD: {
		struct exp_rec_omp_event ev[4];
		unsigned int i, n = exp_omp_unfold((const void *)h, ev);
		int err = 0;

		for (i = 0; i < n && !err; i++)
			err = an_omp_rec(an, exp, &ev[i].hdr);
		return err;
	}
	default:
		return 0;
	}
	if (e->event == EXP_OMP_REGION) {
		struct an_omp_region *g = an_vec_push(&o->regions);

		k = an_vec_push(&l->rkeys);
		if (!g || !k)
			return -ENOMEM;
		*g = (struct an_omp_region){ .exp = exp, .pid = e->pid,
			.stack = UINT32_MAX, .id = e->region, .t0 = e->start_ns,
			.t1 = e->end_ns, .codeptr = e->codeptr, .team = e->obj };
		*k = (struct okey){ exp, e->pid, e->tid, e->stack, e->region };
		return 0;
	}
	if (e->event >= EXP_OMP_EVENT_MAX)
		return 0;	/* a newer minor's */
	if (e->event == EXP_OMP_ITASK) {
		sp = an_vec_push(&o->tasks);
		k = an_vec_push(&l->tkeys);
	} else if (e->event == EXP_OMP_TASK) {
		sp = an_vec_push(&o->xtasks);
		k = an_vec_push(&l->xkeys);
	} else {
		sp = an_vec_push(&o->waits);
		k = an_vec_push(&l->wkeys);
	}
	if (!sp || !k)
		return -ENOMEM;
	*sp = (struct an_omp_span){ .t0 = e->start_ns, .t1 = e->end_ns,
		.region = UINT32_MAX, .ms = UINT32_MAX, .stack = UINT32_MAX,
		.sample = UINT32_MAX, .obj = e->obj, .codeptr = e->codeptr,
		.thr = e->cpu };	/* the CPU until the thread is known */
	if (e->event == EXP_OMP_ITASK) {
		sp->index = (uint16_t)e->obj;
	} else if (e->event != EXP_OMP_TASK) {
		sp->kind = wait_kind(e->event);
		sp->index = !!(h->flags & EXP_OMPF_CONT);
		if (h->flags & EXP_OMPF_MS) {
			uint64_t *m = an_vec_push(&o->ms);

			if (!m)
				return -ENOMEM;
			memcpy(m, e->ms, 8 * LWPROF_MS_COUNT);
			sp->ms = o->ms.n - 1;
		}
	}
	*k = (struct okey){ exp, e->pid, e->tid, e->stack, e->region };
	return 0;
}

int an_omp_rehome(struct an *an)
{
	struct an_omp_load *l = an->ld->omp;
	uint32_t g, as;
	size_t i;

	for (i = 0; l && i < l->stacks.n; i++) {
		struct ostack *s = &AN_VEC(l->stacks, struct ostack, i);

		g = an_gen_at(an, s->exp, s->pid, UINT64_MAX);
		if (!g)
			continue;
		as = an_as_get(an, s->exp, s->pid, g);
		s->raw = as == UINT32_MAX ? as : an_raw_rehome(an, s->raw, as);
		if (s->raw == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

/* ---- after the stacks are resolved ---- */

static uint32_t find_thread(struct an *an, const struct okey *k)
{
	const struct an_thread *t = an->threads.p;
	size_t lo = 0, hi = an->threads.n, m;

	while (lo < hi) {	/* sorted by exp, pid, tid (load.c) */
		m = (lo + hi) / 2;
		if (t[m].exp < k->exp || (t[m].exp == k->exp &&
		    (t[m].pid < k->pid || (t[m].pid == k->pid && t[m].tid < k->tid))))
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < an->threads.n && t[lo].exp == k->exp && t[lo].pid == k->pid &&
	    t[lo].tid == k->tid)
		return lo;
	return UINT32_MAX;
}

static int ostack_cmp(const void *a, const void *b)
{
	const struct ostack *x = a, *y = b;

	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t find_stack(struct an *an, struct an_omp_load *l,
			   const struct okey *k)
{
	struct ostack key = { k->exp, k->pid, k->stack, 0 }, *s;

	if (!k->stack || !l->stacks.n)
		return UINT32_MAX;
	s = bsearch(&key, l->stacks.p, l->stacks.n, sizeof(key), ostack_cmp);
	return s ? AN_VEC(an->ld->raws, struct an_raw, s->raw).node : UINT32_MAX;
}

static int region_cmp(const void *a, const void *b)
{
	const struct an_omp_region *x = a, *y = b;

	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t find_region(struct an_omp *o, const struct okey *k)
{
	struct an_omp_region key = { .exp = k->exp, .pid = k->pid, .id = k->region },
			     *g;

	if (!k->region || !o->regions.n)
		return UINT32_MAX;
	g = bsearch(&key, o->regions.p, o->regions.n, sizeof(key), region_cmp);
	return g ? g - (struct an_omp_region *)o->regions.p : UINT32_MAX;
}

static int span_cmp(const void *a, const void *b)
{
	const struct an_omp_span *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->t1 > y->t1 ? -1 : x->t1 < y->t1;	/* the outer first */
}

/* Threads, regions and stacks of the spans v (keys kv), then sorted. */
static int settle(struct an *an, struct an_omp_load *l, struct an_vec *v,
		  struct an_vec *kv, uint32_t **first)
{
	struct an_omp *o = an->omp;
	size_t i, n = 0;
	uint32_t t;

	for (i = 0; i < v->n; i++) {
		struct an_omp_span *s = &AN_VEC(*v, struct an_omp_span, i);
		const struct okey *k = &AN_VEC(*kv, struct okey, i);
		uint32_t thr = find_thread(an, k);

		if (thr == UINT32_MAX)
			continue;	/* a thread of no record: dropped */
		s->sample = s->thr;	/* keep the CPU a moment */
		s->thr = thr;
		s->region = find_region(o, k);
		s->stack = find_stack(an, l, k);
		AN_VEC(*v, struct an_omp_span, n++) = *s;
	}
	v->n = n;
	an_vec_sort(v, span_cmp);
	*first = calloc(an->threads.n + 1, sizeof(**first));
	if (!*first)
		return -ENOMEM;
	for (i = 0, t = 0; t <= an->threads.n; t++) {
		while (i < v->n && AN_VEC(*v, struct an_omp_span, i).thr < t)
			i++;
		(*first)[t] = i;
	}
	return 0;
}

/* The sum of sample i's microstates; *off moves past its values. */
static uint64_t thread_time(struct an *an, size_t i, size_t *off, bool *clock)
{
	const uint32_t *lay = an_layout(an, an->s.layout[i]);
	const struct an_base *b = an->bases.p;
	uint64_t sum = 0;
	uint32_t j;

	*clock = false;
	for (j = 1; j <= lay[0]; j++) {
		if (b[lay[j]].kind == AN_B_MSTATE) {
			sum += an->s.vals[*off + j - 1];
			*clock = true;
		} else if (b[lay[j]].kind != AN_B_IDLE && b[lay[j]].kind != AN_B_WALL) {
			*clock = false;
			break;
		}
	}
	*off += lay[0];
	return sum;
}

/*
 * A runtime that cannot tell a program's barrier from its own (libomp
 * under gcc's GOMP_barrier says implicit): the entry the program called.
 */
static void explicit_barriers(struct an *an, struct an_omp *o)
{
	const struct an_node *nd = an->nodes.p;
	const struct an_pc *pc = an->pcs.p;
	const struct an_func *fn = an->funcs.p;
	uint32_t n, d;
	size_t i;

	for (i = 0; i < o->waits.n; i++) {
		struct an_omp_span *w = &AN_VEC(o->waits, struct an_omp_span, i);

		if (w->kind != AN_OMP_BARRIER_IMPLICIT)
			continue;
		for (n = w->stack, d = 0; n != UINT32_MAX && d < 64; n = nd[n].parent, d++) {
			const char *name = fn[pc[nd[n].pc].func].name;

			if (name && !strcmp(name, "GOMP_barrier")) {
				w->kind = AN_OMP_BARRIER_EXPLICIT;
				break;
			}
		}
	}
}

/*
 * gcc merges a reduction's results under GOMP_atomic_start() where one
 * atomic operation cannot (several variables, an array, a reduction the
 * program declared), code it writes for the construct, not for a
 * statement of the region's body: in the outlined function, the code
 * after the call is on the construct's line (the function's first) or
 * the declared reduction's, before it or in another file.  A wait for
 * that lock entered there is the region's reduction; a program's atomic
 * goes on at its own line, in the body.
 */
static bool gcc_reduction(struct an *an, const struct an_omp_span *w)
{
	const struct an_node *nd = an->nodes.p;
	const struct an_func *fn = an->funcs.p;
	const struct an_pc *pc = an->pcs.p, *p;
	const char *name, *file, *at;
	uint32_t n, d, f, line, ifunc;
	int first;

	for (n = w->stack, d = 0; n != UINT32_MAX && d < 64; n = nd[n].parent, d++) {
		name = fn[pc[nd[n].pc].func].name;
		if (name && !strcmp(name, "GOMP_atomic_start"))
			break;
	}
	if (n == UINT32_MAX || d == 64 || (n = nd[n].parent) == UINT32_MAX)
		return false;
	p = &pc[nd[n].pc];
	f = p->func;
	if (!fn[f].name || !strstr(fn[f].name, "._omp_fn.") || p->ret != 1 ||
	    an_func_src(an, f, &file, &first))
		return false;
	/* the line the code after the call is on, not the call's */
	line = an_pc_line(an, p->obj, p->addr, f, &ifunc);
	if (line == UINT32_MAX)
		return false;
	at = an_line_file(an, line);
	return !at || strcmp(at, file) ||
	       (int)AN_VEC(an->lines, struct an_line, line).line <= first;
}

/*
 * What a runtime under a gcc-built program could not tell (libomp
 * through its GOMP_* entries): a barrier the program asked for, a
 * reduction's lock.
 */
static void gcc_waits(struct an *an, struct an_omp *o)
{
	size_t i;

	explicit_barriers(an, o);
	for (i = 0; i < o->waits.n; i++) {
		struct an_omp_span *w = &AN_VEC(o->waits, struct an_omp_span, i);

		if (w->kind == AN_OMP_ATOMIC && gcc_reduction(an, w))
			w->kind = AN_OMP_REDUCTION;
	}
}

static int add_rows(struct an *an, struct an_omp_load *l)
{
	struct an_omp *o = an->omp;
	size_t i, n = an->s.n, off = 0;
	uint8_t *omp_thr = calloc(an->threads.n + 1, 1);
	uint32_t ids[1 + LWPROF_MS_COUNT], cpu, k;
	struct csample *c;
	uint64_t v, vals[1 + LWPROF_MS_COUNT];
	const uint64_t *ms;
	struct an_omp_at at;
	bool clock;

	if (!omp_thr)
		return -ENOMEM;
	ids[0] = an_base_id(an, AN_B_OMP, AN_OMP_B_WORK);
	l->lay_work = an_layout_intern(an, ids, 1);
	ids[0] = an_base_id(an, AN_B_OMP, AN_OMP_B_BLAME);
	l->lay_blame = an_layout_intern(an, ids, 1);
	ids[0] = an_base_id(an, AN_B_OMP, AN_OMP_B_WAIT);
	l->lay_wait = an_layout_intern(an, ids, 1);
	for (k = 0; k < LWPROF_MS_COUNT; k++)
		ids[1 + k] = an_base_id(an, AN_B_OMP, AN_OMP_B_MS + k);
	l->lay_wait_ms = an_layout_intern(an, ids, 1 + LWPROF_MS_COUNT);
	if (l->lay_work == UINT32_MAX || l->lay_wait == UINT32_MAX ||
	    l->lay_wait_ms == UINT32_MAX || l->lay_blame == UINT32_MAX)
		goto oom;
	/* a thread of a process whose runtime started the tool */
	for (i = 0; i < an->threads.n; i++) {
		const struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);
		size_t r;

		for (r = 0; r < o->rts.n; r++) {
			const struct an_omp_rt *rt = &AN_VEC(o->rts, struct an_omp_rt, r);

			if (rt->exp == t->exp && rt->pid == t->pid)
				omp_thr[i] = 1;
		}
	}
	for (i = 0; i < n; i++) {
		v = thread_time(an, i, &off, &clock);
		if (!clock || !omp_thr[an->s.thr[i]] || (an->s.part[i] & AN_PART_CONT))
			continue;
		c = an_vec_push(&l->clock);
		if (!c)
			goto oom;
		*c = (struct csample){ an->s.thr[i], an->s.stack[i], an->s.time[i],
				       v, an->s.cpu[i] };
		an_omp_lookup(o, an->s.thr[i], an->s.time[i], &at);
		if (at.wait >= 0)
			continue;	/* the wait's own row has it */
		if (an_sample_add(an, an->s.time[i], an->s.stack[i], an->s.thr[i],
				  an->s.cpu[i], l->lay_work, &v, 1, 0))
			goto oom;
	}
	o->first_wait_row = an->s.n;
	o->row_wait = malloc(sizeof(uint32_t) * (o->waits.n + 1));
	if (!o->row_wait)
		goto oom;
	for (i = 0; i < o->waits.n; i++) {
		struct an_omp_span *w = &AN_VEC(o->waits, struct an_omp_span, i);

		cpu = w->sample;
		w->sample = UINT32_MAX;
		if (w->stack == UINT32_MAX)
			continue;
		vals[0] = w->t1 - w->t0;
		ms = an_omp_wait_ms(o, w);
		for (k = 0; ms && k < LWPROF_MS_COUNT; k++)
			vals[1 + k] = ms[k];
		w->sample = an->s.n;
		o->row_wait[o->nrow_wait++] = i;
		if (an_sample_add(an, w->t1, w->stack, w->thr, cpu,
				  ms ? l->lay_wait_ms : l->lay_wait, vals,
				  ms ? 1 + LWPROF_MS_COUNT : 1, 0))
			goto oom;
	}
	o->traced = omp_thr;
	return 0;
oom:
	free(omp_thr);
	return -ENOMEM;
}

/* ---- imbalance: who came last to each barrier ---- */

/*
 * A thread's arrival at a barrier: its wait's segments together, from
 * t0 to t1; lo: when it left the barrier before (or its region began).
 */
struct arrival {
	uint32_t region, seq, thr, wait;	/* wait: its first segment */
	uint64_t t0, t1, lo, ns;
};

static int arr_by_thread(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int arr_by_barrier(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int cs_cmp(const void *a, const void *b)
{
	const struct csample *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Thread thr's first clock sample after lo (an index of v). */
static size_t sample_after(const struct an_vec *v, uint32_t thr, uint64_t lo)
{
	const struct csample *c = v->p;
	size_t a = 0, b = v->n, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (c[m].thr < thr || (c[m].thr == thr && c[m].t <= lo))
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * The barriers' arrivals: every thread of a team meets a region's
 * barriers in the same order, so a thread's n-th in a region is the
 * others' n-th; the segments of a wait paused by the tasks it ran are
 * one arrival.
 */
static int arrivals(struct an_omp *o, struct an_vec *arr)
{
	struct arrival *a = NULL;
	size_t i;

	arr->esz = sizeof(struct arrival);
	for (i = 0; i < o->waits.n; i++) {
		const struct an_omp_span *w = &AN_VEC(o->waits, struct an_omp_span, i);

		if ((w->kind != AN_OMP_BARRIER_IMPLICIT &&
		     w->kind != AN_OMP_BARRIER_EXPLICIT) || w->region == UINT32_MAX)
			continue;
		if (w->index && a && a->thr == w->thr && a->region == w->region) {
			a->ns += w->t1 - w->t0;		/* its next segment */
			a->t1 = w->t1;
			continue;
		}
		a = an_vec_push(arr);
		if (!a)
			return -ENOMEM;
		*a = (struct arrival){ .region = w->region, .thr = w->thr,
			.wait = i, .t0 = w->t0, .t1 = w->t1, .ns = w->t1 - w->t0,
			.lo = an_omp_region(o, w->region)->t0 };
	}
	an_vec_sort(arr, arr_by_thread);
	for (i = 1; i < arr->n; i++) {
		struct arrival *p = &AN_VEC(*arr, struct arrival, i - 1);

		a = &AN_VEC(*arr, struct arrival, i);
		if (p->thr == a->thr && p->region == a->region) {
			a->seq = p->seq + 1;
			a->lo = p->t1;
		}
	}
	an_vec_sort(arr, arr_by_barrier);
	return 0;
}

/*
 * At each barrier, the others' wait until it came is charged to the thread
 * that came last, on what it did since it left the barrier before: its clock
 * samples then, each a share by its thread time; with none, the stack it
 * came to the barrier at.
 */
static int blame_one(struct an *an, struct an_omp_load *l,
		     const struct arrival *last, uint64_t v)
{
	const struct an_omp_span *w = &AN_VEC(an->omp->waits, struct an_omp_span,
					      last->wait);
	const struct csample *c = l->clock.p;
	size_t i, first = sample_after(&l->clock, last->thr, last->lo);
	uint64_t sum = 0, part, given = 0;
	int err = 0;

	for (i = first; i < l->clock.n && c[i].thr == last->thr &&
	     c[i].t < last->t0; i++)
		sum += c[i].v;
	if (!sum)
		return w->stack == UINT32_MAX ? 0 :
			an_sample_add(an, last->t0, w->stack, last->thr, 0,
				      l->lay_blame, &v, 1, 0);
	for (i = first; !err && given < v && c[i].thr == last->thr &&
	     c[i].t < last->t0; i++) {
		part = (uint64_t)((double)v * c[i].v / sum + 0.5);
		if (part > v - given || i + 1 == l->clock.n ||
		    c[i + 1].thr != last->thr || c[i + 1].t >= last->t0)
			part = v - given;	/* the last: what is left */
		given += part;
		if (part)
			err = an_sample_add(an, c[i].t, c[i].stack, c[i].thr,
					    c[i].cpu, l->lay_blame, &part, 1, 0);
	}
	return err;
}

static int blame_rows(struct an *an, struct an_omp_load *l)
{
	const struct arrival *last;
	struct an_vec arr = { 0 };
	size_t i, j, k;
	uint64_t v;
	int err;

	an_vec_sort(&l->clock, cs_cmp);
	err = arrivals(an->omp, &arr);
	for (i = 0; !err && i < arr.n; i = j) {
		const struct arrival *a = &AN_VEC(arr, struct arrival, i);

		for (j = i + 1; j < arr.n; j++) {
			const struct arrival *b = &AN_VEC(arr, struct arrival, j);

			if (b->region != a->region || b->seq != a->seq)
				break;
		}
		if (j - i < 2)
			continue;
		/*
		 * What each waited for the last one: from its arrival to the
		 * last's, no more than its wait.  The rest of its wait is the
		 * barrier's release, which the last one (there first on a
		 * loaded machine, 0.6 ms seen at a region's end) did not cause.
		 */
		last = &AN_VEC(arr, struct arrival, j - 1);
		for (v = 0, k = i; k < j - 1; k++) {
			const struct arrival *o = &AN_VEC(arr, struct arrival, k);

			v += last->t0 - o->t0 < o->ns ? last->t0 - o->t0 : o->ns;
		}
		err = blame_one(an, l, last, v);
	}
	free(arr.p);
	return err;
}

int an_omp_finish(struct an *an)
{
	struct an_omp_load *l = an->ld->omp;
	struct an_omp *o = an->omp;
	size_t i;
	int err = 0;

	if (!o || !l)
		goto out;
	an_vec_sort(&l->stacks, ostack_cmp);
	for (i = 0; i < o->regions.n; i++) {
		struct an_omp_region *g = &AN_VEC(o->regions, struct an_omp_region, i);
		const struct okey *k = &AN_VEC(l->rkeys, struct okey, i);

		g->thr = find_thread(an, k);
		g->stack = find_stack(an, l, k);
	}
	an_vec_sort(&o->regions, region_cmp);
	o->nthr = an->threads.n;
	err = settle(an, l, &o->tasks, &l->tkeys, &o->task_first);
	if (!err)
		err = settle(an, l, &o->waits, &l->wkeys, &o->wait_first);
	if (!err)
		err = settle(an, l, &o->xtasks, &l->xkeys, &o->xtask_first);
	for (i = 0; i < o->tasks.n; i++)	/* the CPU is not kept */
		AN_VEC(o->tasks, struct an_omp_span, i).sample = UINT32_MAX;
	for (i = 0; i < o->xtasks.n; i++)
		AN_VEC(o->xtasks, struct an_omp_span, i).sample = UINT32_MAX;
	if (!err) {
		gcc_waits(an, o);
		err = add_rows(an, l);
	}
	if (!err)
		err = blame_rows(an, l);
out:
	an_omp_load_free(l);
	an->ld->omp = NULL;
	return err ? an_errf(an, -ENOMEM, "out of memory") : 0;
}
