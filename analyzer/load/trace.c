// SPDX-License-Identifier: GPL-2.0
/*
 * Traced calls (libexp/trace.h, docs/design/tracing.md): each trace record with
 * a stack becomes a sample whose values are the call's (an allocation's
 * count and bytes, a wait's time, a read's bytes, count and time ...),
 * so every view of functions, callers and lines shows them as metrics,
 * and an entry of the side table an->tev, which the trace views read
 * (by file, descriptor, size, time).  Once an experiment's files are
 * read, frees are matched with allocations by process, address and time:
 * an allocation never freed is a leak, and gets a sample of its own on the
 * allocation's stack with the leak's count and bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "libexp/trace.h"

enum { L_ALLOC, L_LEAK, L_SYNC, L_READ, L_WRITE, L_OTHER, L_ERR };

static const uint32_t lay_bases[7][3] = {
	[L_ALLOC] = { AN_T_ALLOC_CNT, AN_T_ALLOC_BYTES, UINT32_MAX },
	[L_LEAK] = { AN_T_LEAK_CNT, AN_T_LEAK_BYTES, UINT32_MAX },
	[L_SYNC] = { AN_T_SYNC_NS, AN_T_SYNC_CNT, UINT32_MAX },
	[L_READ] = { AN_T_READ_BYTES, AN_T_READ_CNT, AN_T_READ_NS },
	[L_WRITE] = { AN_T_WRITE_BYTES, AN_T_WRITE_CNT, AN_T_WRITE_NS },
	[L_OTHER] = { AN_T_OTHER_CNT, AN_T_OTHER_NS, UINT32_MAX },
	[L_ERR] = { AN_T_ERR_CNT, AN_T_ERR_NS, UINT32_MAX },
};

/*
 * The bases, in enum order so that every layout's ids increase; the
 * layouts are made when first used (a metric is listed where a layout
 * has its bases: an_metric_present).
 */
int an_trace_init(struct an *an)
{
	struct an_sdec *d = &an->ld->sdec;
	uint32_t i;

	for (i = 0; i < AN_T_COUNT; i++)
		if (an_base_id(an, AN_B_TRACE, i) == UINT32_MAX)
			return -ENOMEM;
	for (i = 0; i < 7; i++)
		d->tlay[i] = UINT32_MAX;
	an->tev.esz = sizeof(struct an_tev);
	an->tev_ms.esz = 8 * LWPROF_MS_COUNT;
	an->tnames.esz = sizeof(struct an_tname);
	return 0;
}

/* Layout k (L_*), made now if it was not. */
static uint32_t tlay(struct an *an, int k)
{
	struct an_sdec *d = &an->ld->sdec;
	uint32_t ids[3], n;

	if (d->tlay[k] != UINT32_MAX)
		return d->tlay[k];
	for (n = 0; n < 3 && lay_bases[k][n] != UINT32_MAX; n++)
		ids[n] = an_base_id(an, AN_B_TRACE, lay_bases[k][n]);
	d->tlay[k] = an_layout_intern(an, ids, n);
	return d->tlay[k];
}

bool an_trace_has_sample(const struct exp_tcall *t)
{
	switch (exp_trace_event(t->event)->cls) {
	case EXP_TC_ALLOC:
	case EXP_TC_SYNC:
	case EXP_TC_IOREAD:
	case EXP_TC_IOWRITE:
	case EXP_TC_IOOTHER:
		return true;
	default:
		return false;	/* a free */
	}
}

int an_trace_decode(struct an *an, const struct exp_tcall *t,
		    uint32_t *layout, uint64_t *vals)
{
	uint64_t ns = t->time_ns - t->start_ns;
	enum exp_trace_class cls = exp_trace_event(t->event)->cls;
	int k, n;

	switch (cls) {
	case EXP_TC_ALLOC:
		k = L_ALLOC;
		vals[0] = 1;
		vals[1] = t->bytes;
		n = 2;
		break;
	case EXP_TC_SYNC:
		k = L_SYNC;
		vals[0] = ns;
		vals[1] = 1;
		n = 2;
		break;
	case EXP_TC_IOREAD:
	case EXP_TC_IOWRITE:
	case EXP_TC_IOOTHER:
		if (t->ret < 0) {
			k = L_ERR;
			vals[0] = 1;
			vals[1] = ns;
			n = 2;
		} else if (cls == EXP_TC_IOOTHER) {
			k = L_OTHER;
			vals[0] = 1;
			vals[1] = ns;
			n = 2;
		} else {
			k = cls == EXP_TC_IOREAD ? L_READ : L_WRITE;
			vals[0] = t->bytes;
			vals[1] = 1;
			vals[2] = ns;
			n = 3;
		}
		break;
	default:
		return 0;	/* a free: in the side table only */
	}
	*layout = tlay(an, k);
	return *layout == UINT32_MAX ? -ENOMEM : n;
}

static int tev_push(struct an *an, const struct an_tev *v)
{
	struct an_tev *p = an_vec_push(&an->tev);

	if (!p)
		return -ENOMEM;
	*p = *v;
	return 0;
}

int an_trace_add(struct an *an, uint32_t exp, const struct exp_tcall *t,
		 uint32_t sample, uint32_t unw)
{
	uint32_t ms = UINT32_MAX;
	uint64_t *m;

	if (t->ms) {
		m = an_vec_push(&an->tev_ms);
		if (!m)
			return -ENOMEM;
		memcpy(m, t->ms, 8 * LWPROF_MS_COUNT);
		ms = an->tev_ms.n - 1;
	}
	return tev_push(an, &(struct an_tev){
		.sample = sample, .exp = exp, .pid = t->pid, .tid = t->tid,
		.event = t->event, .fd = t->fd, .file = UINT32_MAX,
		.t0 = t->start_ns, .t1 = t->time_ns, .addr = t->addr,
		.addr2 = t->addr2, .bytes = t->bytes, .ret = t->ret, .unw = unw,
		.ms = ms, .kind = AN_TEV_CALL, .count = 1 });
}

int an_trace_add_count(struct an *an, const struct an_tev *v)
{
	return tev_push(an, v);
}

int an_trace_file(struct an *an, uint32_t exp, const struct exp_rec_trace_file *f)
{
	struct an_tname *n = an_vec_push(&an->tnames);

	if (!n)
		return -ENOMEM;
	n->exp = exp;
	n->pid = f->pid;
	n->fd = f->fd;
	n->time = f->time_ns;
	n->name = an_str_intern(&an->strs, f->path);
	return n->name == UINT32_MAX ? -ENOMEM : 0;
}

/* ---- leaks ---- */

/*
 * One end of a block's life: a side table index, with LIFE_OLD for the
 * old block a realloc freed (its addr2) rather than the entry's own
 * (a free's block, an allocation's new one).  4 bytes an end, its key
 * read from the entry: (pid, addr, time), a free before a make.
 */
#define LIFE_OLD	0x80000000u

static uint64_t life_addr(const struct an_tev *t, uint32_t l)
{
	return l & LIFE_OLD ? t->addr2 : t->addr;
}

static bool life_make(const struct an_tev *t, uint32_t l)
{
	return !(l & LIFE_OLD) && exp_trace_event(t->event)->cls == EXP_TC_ALLOC;
}

static int life_cmp(const void *a, const void *b, void *ctx)
{
	const struct an_tev *v = ctx;
	uint32_t la = *(const uint32_t *)a, lb = *(const uint32_t *)b;
	const struct an_tev *x = &v[la & ~LIFE_OLD], *y = &v[lb & ~LIFE_OLD];
	uint64_t ax = life_addr(x, la), ay = life_addr(y, lb);
	bool mx = life_make(x, la), my = life_make(y, lb);

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (ax != ay)
		return ax < ay ? -1 : 1;
	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	if (mx != my)
		return mx < my ? -1 : 1;
	return la < lb ? -1 : la > lb;
}

static int push_life(struct an_vec *v, uint32_t l)
{
	uint32_t *p = an_vec_push(v);

	if (!p)
		return -ENOMEM;
	*p = l;
	return 0;
}

/* The leaks of allocation v (tev index i): a sample on its stack. */
static int leak_sample(struct an *an, size_t i)
{
	struct an_tev *v = &AN_VEC(an->tev, struct an_tev, i);
	struct an_unw_ref *u;
	uint64_t vals[2] = { v->leaks, (uint64_t)v->leaks * v->bytes };
	uint32_t s = v->sample, n = an->s.n, unw = v->unw, lay = tlay(an, L_LEAK);

	if (lay == UINT32_MAX ||
	    an_sample_add(an, v->t1, an->s.stack[s], an->s.thr[s], an->s.cpu[s],
			  lay, vals, 2, 0))
		return -ENOMEM;
	if (unw == UINT32_MAX)
		return 0;
	u = an_vec_push(&an->ld->deferred);
	if (!u)
		return -ENOMEM;
	*u = AN_VEC(an->ld->deferred, struct an_unw_ref, unw);
	u->sample = n;
	return 0;
}

/*
 * A slice's counts (format 1.7): the blocks of an allocation's entry
 * (its process, stack id, size and slice) that no free entry names are
 * its leaks.  Sorted by that key, frees before allocations, each
 * allocation entry takes what the frees before it left of theirs.
 */
struct made_key {
	uint32_t pid;
	uint32_t made;		/* 0: a free entry, 1: an allocation's */
	uint64_t sid, bytes, t;
	size_t ev;
};

static int made_cmp(const void *a, const void *b)
{
	const struct made_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->made != y->made)
		return x->made < y->made ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int count_leaks(struct an *an, uint32_t exp)
{
	struct an_vec v = { .esz = sizeof(struct made_key) };
	uint64_t freed = 0, take;
	struct made_key *k, *p;
	struct an_tev *t;
	size_t i;
	int err = 0;

	for (i = 0; i < an->tev.n; i++) {
		t = &AN_VEC(an->tev, struct an_tev, i);
		if (t->exp != exp || t->kind == AN_TEV_CALL ||
		    (t->kind == AN_TEV_FREED && !t->addr))
			continue;
		k = an_vec_push(&v);
		if (!k) {
			free(v.p);
			return -ENOMEM;
		}
		*k = (struct made_key){ t->pid, t->kind == AN_TEV_MADE, t->addr,
					t->bytes, t->t0, i };
	}
	an_vec_sort(&v, made_cmp);
	for (i = 0; i < v.n && !err; i++) {
		k = &AN_VEC(v, struct made_key, i);
		p = i ? k - 1 : NULL;
		if (!p || p->pid != k->pid || p->sid != k->sid ||
		    p->bytes != k->bytes || p->t != k->t)
			freed = 0;	/* a new key */
		t = &AN_VEC(an->tev, struct an_tev, k->ev);
		if (!k->made) {
			freed += t->count;
			continue;
		}
		take = freed < t->count ? freed : t->count;
		freed -= take;
		t->leaks = t->count - take;
		if (t->leaks && t->sample != UINT32_MAX)
			err = leak_sample(an, k->ev);
	}
	free(v.p);
	return err;
}

/*
 * Match the experiment's frees with its allocations: sorted by process,
 * address and time, an allocation is freed by the free right after it
 * (realloc frees its old block and makes its new one at once).
 */
static int find_leaks(struct an *an, uint32_t exp)
{
	struct an_vec v = { .esz = sizeof(uint32_t) };
	struct an_tev *t, *n;
	uint32_t *l;
	size_t i;
	int err = 0;

	if (an->tev.n >= LIFE_OLD)
		return an_errf(an, -ENOMEM, "out of memory");
	for (i = 0; i < an->tev.n && !err; i++) {
		t = &AN_VEC(an->tev, struct an_tev, i);
		if (t->exp != exp || t->kind != AN_TEV_CALL)
			continue;
		switch (exp_trace_event(t->event)->cls) {
		case EXP_TC_ALLOC:
			if (t->addr2)	/* realloc's old block */
				err = push_life(&v, i | LIFE_OLD);
			if (!err && t->sample != UINT32_MAX)
				err = push_life(&v, i);
			break;
		case EXP_TC_FREE:
			err = push_life(&v, i);
			break;
		default:
			break;
		}
	}
	if (v.n)
		qsort_r(v.p, v.n, v.esz, life_cmp, an->tev.p);
	for (i = 0; i < v.n && !err; i++) {
		l = &AN_VEC(v, uint32_t, i);
		t = &AN_VEC(an->tev, struct an_tev, *l & ~LIFE_OLD);
		if (!life_make(t, *l))
			continue;
		n = i + 1 < v.n ? &AN_VEC(an->tev, struct an_tev, l[1] & ~LIFE_OLD) : NULL;
		if (n && n->pid == t->pid && life_addr(n, l[1]) == t->addr) {
			/* freed, or made again: its free was not seen */
			t->freed = n->t1 ? n->t1 : 1;
			continue;
		}
		t->leaks = 1;
		err = leak_sample(an, *l);
	}
	free(v.p);
	if (!err)
		err = count_leaks(an, exp);
	return err ? an_errf(an, -ENOMEM, "out of memory") : 0;
}

/* ---- descriptors' names ---- */

static int tname_cmp(const void *a, const void *b)
{
	const struct an_tname *x = a, *y = b;

	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The name fd of pid had at time t (the last one given it by then). */
static uint32_t name_at(struct an *an, uint32_t exp, uint32_t pid, int32_t fd,
			uint64_t t)
{
	struct an_tname *n = an->tnames.p;
	size_t lo = 0, hi = an->tnames.n, m;
	struct an_tname key = { exp, pid, fd, t, 0 };

	while (lo < hi) {	/* the first after key */
		m = (lo + hi) / 2;
		if (tname_cmp(&n[m], &key) <= 0)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo || n[lo - 1].exp != exp || n[lo - 1].pid != pid ||
	    n[lo - 1].fd != fd)
		return UINT32_MAX;
	return n[lo - 1].name;
}

/*
 * Each I/O call's file: the name its descriptor had; dup gives the new
 * descriptor (its return value) the old one's name.  In time order, so
 * that a dup's name is there for the calls after it.
 */
static int tev_time_cmp(const void *a, const void *b)
{
	const struct an_tev *const *x = a, *const *y = b;

	return (*x)->t1 < (*y)->t1 ? -1 : (*x)->t1 > (*y)->t1;
}

static int name_descriptors(struct an *an, uint32_t exp)
{
	struct an_vec v = { .esz = sizeof(struct an_tev *) };
	struct an_tname *n;
	struct an_tev **p;
	size_t i;
	uint32_t name;
	int cls;

	for (i = 0; i < an->tev.n; i++) {
		struct an_tev *t = &AN_VEC(an->tev, struct an_tev, i);

		cls = an_tev_class(t);
		if (t->exp != exp || cls < EXP_TC_IOREAD)
			continue;
		p = an_vec_push(&v);
		if (!p)
			goto oom;
		*p = t;
	}
	an_vec_sort(&v, tev_time_cmp);
	an_vec_sort(&an->tnames, tname_cmp);
	for (i = 0; i < v.n; i++) {
		struct an_tev *t = AN_VEC(v, struct an_tev *, i);

		t->file = name_at(an, exp, t->pid, t->fd, t->t1);
		if (t->event != EXP_TR_DUP || t->ret < 0 || t->file == UINT32_MAX)
			continue;
		name = t->file;
		n = an_vec_push(&an->tnames);
		if (!n)
			goto oom;
		*n = (struct an_tname){ exp, t->pid, (int32_t)t->ret, t->t1, name };
		an_vec_sort(&an->tnames, tname_cmp);	/* dups are few */
	}
	free(v.p);
	return 0;
oom:
	free(v.p);
	return an_errf(an, -ENOMEM, "out of memory");
}

int an_trace_exp_done(struct an *an, uint32_t exp)
{
	int err = find_leaks(an, exp);

	return err ? err : name_descriptors(an, exp);
}

void an_trace_release(struct an *an)
{
	free(an->tev.p);
	free(an->tev_ms.p);
	free(an->tnames.p);
	memset(&an->tev, 0, sizeof(an->tev));
	memset(&an->tev_ms, 0, sizeof(an->tev_ms));
	memset(&an->tnames, 0, sizeof(an->tnames));
}
