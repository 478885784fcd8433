// SPDX-License-Identifier: GPL-2.0
/*
 * The views of traced calls (docs/design/tracing.md), gprofng's: -heap, -leaks,
 * -allocs (allocations by call stack), -heapstat, -ioactivity (by file
 * name), -iodetail (by descriptor), -iocallstack, -iostat.  They read
 * the side table an->tev (load/trace.c); a call with a sample passes the
 * filter as its sample does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"
#include "libexp/mstate_names.h"
#include "libexp/trace.h"

static enum exp_trace_class tev_class(const struct an_tev *t)
{
	return an_tev_class(t);
}

static bool tev_pass(struct an *an, const struct an_settings *vs,
		     const struct an_tev *t)
{
	return t->sample == UINT32_MAX || !vs->filter ||
	       an_filter_pass(an, vs->filter, t->sample);
}

static uint32_t tev_node(struct an *an, const struct an_tev *t)
{
	return t->sample == UINT32_MAX ? UINT32_MAX : an->s.stack[t->sample];
}

/* The frames of node nd, leaf first, one a line. */
static void put_stack(struct an *an, const struct an_settings *vs, FILE *f,
		      uint32_t nd)
{
	if (nd == UINT32_MAX)
		fprintf(f, "    <Unknown>\n");
	while (nd != UINT32_MAX) {
		const struct an_node *n = &AN_VEC(an->nodes, struct an_node, nd);
		const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, n->pc);

		fprintf(f, "    %s\n", an_func_name(an, an_pc_func(an, p),
						    vs->name_long));
		nd = n->parent;
	}
}

/* ---- per call stack ---- */

/* The sums of one call stack's calls. */
struct group {
	uint32_t node;
	uint64_t n, bytes, leaks, lbytes;		/* heap */
	uint64_t cnt[4], gbytes[4], ns[4];		/* read, write, other, error */
};

enum { G_READ, G_WRITE, G_OTHER, G_ERR };

static int io_kind(const struct an_tev *t)
{
	if (t->ret < 0)
		return G_ERR;
	switch (tev_class(t)) {
	case EXP_TC_IOREAD:
		return G_READ;
	case EXP_TC_IOWRITE:
		return G_WRITE;
	default:
		return G_OTHER;
	}
}

static uint64_t io_ns(const struct group *g)
{
	return g->ns[0] + g->ns[1] + g->ns[2] + g->ns[3];
}

static int node_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

/* Sort keys of the views. */
static int sort_bytes(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->n > y->n ? -1 : x->n < y->n;
}

static int sort_leaks(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->lbytes != y->lbytes)
		return x->lbytes > y->lbytes ? -1 : 1;
	return x->leaks > y->leaks ? -1 : x->leaks < y->leaks;
}

static int sort_io(const void *a, const void *b)
{
	uint64_t x = io_ns(a), y = io_ns(b);

	return x > y ? -1 : x < y;
}

/*
 * One group per call stack of the calls of class heap (true) or I/O,
 * summed in place (memory by distinct stacks, not calls), in node
 * order.
 */
static int stack_groups(struct an *an, const struct an_settings *vs,
			bool heap, struct an_vec *out)
{
	/* each node's group + 1, 0: none yet; the last slot: no stack */
	uint32_t *at = calloc(an->nodes.n + 1, sizeof(*at)), nd;
	struct group *w;
	size_t i;
	int k;

	*out = (struct an_vec){ .esz = sizeof(struct group) };
	if (!at)
		goto oom;
	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *t = &AN_VEC(an->tev, struct an_tev, i);
		enum exp_trace_class c = tev_class(t);

		if (t->sample == UINT32_MAX || !tev_pass(an, vs, t) ||
		    (heap ? c != EXP_TC_ALLOC : c < EXP_TC_IOREAD))
			continue;
		nd = tev_node(an, t);
		k = nd == UINT32_MAX ? an->nodes.n : nd;
		if (!at[k]) {
			w = an_vec_push(out);
			if (!w)
				goto oom;
			memset(w, 0, sizeof(*w));
			w->node = nd;
			at[k] = out->n;
		}
		w = &AN_VEC(*out, struct group, at[k] - 1);
		if (heap) {
			w->n += t->count;
			w->bytes += t->count * t->bytes;
			w->leaks += t->leaks;
			w->lbytes += t->leaks * t->bytes;
		} else {
			k = io_kind(t);
			w->cnt[k]++;
			w->gbytes[k] += t->bytes;
			w->ns[k] += t->t1 - t->t0;
		}
	}
	free(at);
	an_vec_sort(out, node_cmp);
	return 0;
oom:
	free(at);
	free(out->p);
	return an_errf(an, -ENOMEM, "out of memory");
}

int an_view_heap(struct an *an, const struct an_settings *vs,
		 struct an_out *o, int what)
{
	static const char *const titles[] = {
		"Allocations and leaks by call stack",
		"Leaks by call stack",
		"Allocations by call stack",
	};
	uint64_t n = 0, bytes = 0, leaks = 0, lbytes = 0;
	struct an_vec v;
	size_t i, shown = 0;
	int err = stack_groups(an, vs, true, &v);

	if (err)
		return err;
	an_vec_sort(&v, what == AN_HEAP_LEAKS ? sort_leaks : sort_bytes);
	for (i = 0; i < v.n; i++) {
		const struct group *g = &AN_VEC(v, struct group, i);

		n += g->n;
		bytes += g->bytes;
		leaks += g->leaks;
		lbytes += g->lbytes;
	}
	an_title(o, "%s\n\n", titles[what]);
	if (what == AN_HEAP_LEAKS)
		fprintf(o->f, "Total: %" PRIu64 " leaks, %" PRIu64 " bytes leaked, in %" PRIu64 " allocations of %" PRIu64 " bytes\n\n",
			leaks, lbytes, n, bytes);
	else
		fprintf(o->f, "Total: %" PRIu64 " allocations, %" PRIu64 " bytes; %" PRIu64 " leaks, %" PRIu64 " bytes leaked\n\n",
			n, bytes, leaks, lbytes);
	for (i = 0; i < v.n && (!vs->limit || shown < (size_t)vs->limit); i++) {
		const struct group *g = &AN_VEC(v, struct group, i);

		if (what == AN_HEAP_LEAKS && !g->leaks)
			continue;
		shown++;
		if (what == AN_HEAP_LEAKS)
			fprintf(o->f, "Leak #%zu: %" PRIu64 " leaks, %" PRIu64 " bytes\n",
				shown, g->leaks, g->lbytes);
		else if (what == AN_HEAP_ALLOCS)
			fprintf(o->f, "Allocation #%zu: %" PRIu64 " allocations, %" PRIu64 " bytes\n",
				shown, g->n, g->bytes);
		else
			fprintf(o->f, "Stack #%zu: %" PRIu64 " allocations, %" PRIu64 " bytes; %" PRIu64 " leaks, %" PRIu64 " bytes leaked\n",
				shown, g->n, g->bytes, g->leaks, g->lbytes);
		put_stack(an, vs, o->f, g->node);
		fputc('\n', o->f);
	}
	free(v.p);
	return 0;
}

int an_view_iocallstack(struct an *an, const struct an_settings *vs,
			struct an_out *o)
{
	struct an_vec v;
	size_t i;
	int err = stack_groups(an, vs, false, &v);

	if (err)
		return err;
	an_vec_sort(&v, sort_io);
	an_title(o, "I/O by call stack\n\n");
	for (i = 0; i < v.n && (!vs->limit || i < (size_t)vs->limit); i++) {
		const struct group *g = &AN_VEC(v, struct group, i);

		fprintf(o->f, "Stack #%zu: %.6f s; read %" PRIu64 " (%" PRIu64 " bytes), write %" PRIu64 " (%" PRIu64 " bytes), other %" PRIu64 ", errors %" PRIu64 "\n",
			i + 1, io_ns(g) / 1e9, g->cnt[G_READ], g->gbytes[G_READ],
			g->cnt[G_WRITE], g->gbytes[G_WRITE], g->cnt[G_OTHER],
			g->cnt[G_ERR]);
		put_stack(an, vs, o->f, g->node);
		fputc('\n', o->f);
	}
	free(v.p);
	return 0;
}

/* ---- -heapstat ---- */

static const struct {
	const char *name;
	uint64_t below;
} sizes[] = {
	{ "0 - 15", 16 }, { "16 - 255", 256 }, { "256 - 4095", 4096 },
	{ "4 KiB - 64 KiB", 65536 }, { "64 KiB - 1 MiB", 1 << 20 },
	{ "1 MiB and over", UINT64_MAX },
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* A change of the bytes in use. */
struct delta {
	uint64_t time;
	int64_t bytes;
};

static int delta_cmp(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;	/* frees first */
}

static void stat_row(struct an_table *t, const char *what, uint64_t v)
{
	size_t r = an_table_row(t);

	if (r == SIZE_MAX)
		return;
	an_table_text(t, r, 0, "%s", what);
	an_table_int(t, r, 1, v);
}

/*
 * The peak in use of the one process whose heap calls were counted, as
 * its library kept it: 0 and *peak, *t, or 1 (more than one process).
 */
static int heap_peak_of(struct an *an, uint64_t *peak, uint64_t *t)
{
	const struct an_exp *one = NULL, *e;
	uint32_t i;

	for (i = 0; i < an->exps.n; i++) {
		e = &AN_VEC(an->exps, struct an_exp, i);
		if (!e->heap_pid)
			continue;
		if (one || e->heap_multi)
			return 1;
		one = e;
	}
	if (!one)
		return 1;
	*peak = one->heap_peak;
	*t = one->heap_peak_ns;
	return 0;
}

int an_view_heapstat(struct an *an, const struct an_settings *vs,
		     struct an_out *o)
{
	uint64_t n = 0, bytes = 0, frees = 0, leaks = 0, lbytes = 0, peak = 0;
	uint64_t big = 0, small = UINT64_MAX, peak_t = 0, scnt[NSIZES] = { 0 };
	uint64_t sbytes[NSIZES] = { 0 }, t0 = an->tmin;
	bool counted = false, calls = false;
	struct an_vec d = { .esz = sizeof(struct delta) };
	struct an_table t;
	struct delta *x;
	int64_t use = 0;
	size_t i, k;

	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *e = &AN_VEC(an->tev, struct an_tev, i);

		if (!tev_pass(an, vs, e))
			continue;
		if (e->kind != AN_TEV_CALL)
			counted = true;
		else if (tev_class(e) == EXP_TC_ALLOC || tev_class(e) == EXP_TC_FREE)
			calls = true;
		if (tev_class(e) == EXP_TC_FREE) {
			frees += an_tev_is_free(e) ? e->count : 0;
			if (e->kind != AN_TEV_FREED || !e->bytes)
				continue;
			/* a slice's frees: the bytes they gave back */
			x = an_vec_push(&d);
			if (!x)
				goto oom;
			*x = (struct delta){ e->t1, -(int64_t)(e->count * e->bytes) };
			continue;
		}
		if (tev_class(e) != EXP_TC_ALLOC || e->sample == UINT32_MAX)
			continue;
		n += e->count;
		bytes += e->count * e->bytes;
		leaks += e->leaks;
		lbytes += e->leaks * e->bytes;
		big = e->bytes > big ? e->bytes : big;
		small = e->bytes < small ? e->bytes : small;
		for (k = 0; e->bytes >= sizes[k].below; k++)
			;
		scnt[k] += e->count;
		sbytes[k] += e->count * e->bytes;
		x = an_vec_push(&d);
		if (!x)
			goto oom;
		*x = (struct delta){ e->t1, (int64_t)(e->count * e->bytes) };
		if (e->freed) {
			x = an_vec_push(&d);
			if (!x)
				goto oom;
			*x = (struct delta){ e->freed, -(int64_t)e->bytes };
		}
	}
	an_vec_sort(&d, delta_cmp);
	for (i = 0; i < d.n; i++) {
		x = &AN_VEC(d, struct delta, i);
		use += x->bytes;
		if (use > (int64_t)peak) {
			peak = use;
			peak_t = x->time;
		}
	}
	free(d.p);
	/*
	 * Counted per slice, the calls' order within a slice is not known:
	 * the peak one process's library kept is exact, for all its calls
	 * (the slices' sums bound it, under a filter or with more processes).
	 */
	if (counted && !calls && !vs->filter)
		heap_peak_of(an, &peak, &peak_t);
	an_title(o, "Heap statistics\n\n");
	if (an_table_init(&t, 2) || an_table_head(&t, 0, "Statistic", "", true) ||
	    an_table_head(&t, 1, "Value", "", false))
		goto oom_t;
	stat_row(&t, "Allocations", n);
	stat_row(&t, "Bytes allocated", bytes);
	stat_row(&t, "Frees", frees);
	stat_row(&t, "Leaks", leaks);
	stat_row(&t, "Bytes leaked", lbytes);
	stat_row(&t, "Peak bytes in use", peak);
	stat_row(&t, "Peak at (ns from the start)", peak_t > t0 ? peak_t - t0 : 0);
	stat_row(&t, "Largest allocation", big);
	stat_row(&t, "Smallest allocation", n ? small : 0);
	stat_row(&t, "Mean allocation", n ? bytes / n : 0);
	an_table_print(o, &t);
	an_table_free(&t);
	an_title(o, "\nAllocation sizes\n\n");
	if (an_table_init(&t, 3) || an_table_head(&t, 0, "Size (bytes)", "", true) ||
	    an_table_head(&t, 1, "Allocations", "", false) ||
	    an_table_head(&t, 2, "Bytes", "", false))
		goto oom_t;
	for (k = 0; k < NSIZES; k++) {
		size_t r = an_table_row(&t);

		if (r == SIZE_MAX)
			goto oom_t;
		an_table_text(&t, r, 0, "%s", sizes[k].name);
		an_table_int(&t, r, 1, scnt[k]);
		an_table_int(&t, r, 2, sbytes[k]);
	}
	an_table_print(o, &t);
	an_table_free(&t);
	return 0;
oom_t:
	an_table_free(&t);
	return an_errf(an, -ENOMEM, "out of memory");
oom:
	free(d.p);
	return an_errf(an, -ENOMEM, "out of memory");
}

/* ---- I/O by file, by descriptor, statistics ---- */

struct io_key {
	uint32_t exp, pid, file;
	int32_t fd;			/* -1 in -ioactivity: by name only */
	struct group g;
};

static int key_cmp(const void *a, const void *b)
{
	const struct io_key *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

static int key_time_cmp(const void *a, const void *b)
{
	const struct io_key *x = a, *y = b;

	return sort_io(&x->g, &y->g);
}

static bool key_eq(void *ctx, uint32_t id, const void *key)
{
	return !key_cmp(&AN_VEC(*(struct an_vec *)ctx, struct io_key, id), key);
}

static const char *file_name(struct an *an, uint32_t file)
{
	return file == UINT32_MAX ? "<Unknown>" : an_str(&an->strs, file);
}

int an_view_io(struct an *an, const struct an_settings *vs, struct an_out *o,
	       bool detail)
{
	static const char *const kinds[] = { "Read", "Write", "Other", "Error" };
	struct an_vec v = { .esz = sizeof(struct io_key) };
	int nc = detail ? 3 : 1, k, c;
	struct an_htab h = { NULL };
	struct io_key *x, key;
	struct an_table t;
	uint32_t id;
	uint64_t hash;
	size_t i;

	/* summed in place: memory by files (descriptors), not calls */
	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *e = &AN_VEC(an->tev, struct an_tev, i);

		if (tev_class(e) < EXP_TC_IOREAD || !tev_pass(an, vs, e))
			continue;
		memset(&key, 0, sizeof(key));
		key.file = e->file;
		if (detail) {
			key.exp = e->exp;
			key.pid = e->pid;
			key.fd = e->event == EXP_TR_DUP && e->ret >= 0 ? e->ret : e->fd;
		} else {
			key.fd = -1;
		}
		hash = an_mix(an_mix(an_mix(key.file, key.exp), key.pid),
			      (uint32_t)key.fd);
		id = an_htab_find(&h, hash, key_eq, &v, &key);
		if (id == UINT32_MAX) {
			x = an_vec_push(&v);
			if (!x || an_htab_add(&h, hash, v.n - 1))
				goto oom;
			*x = key;
			id = v.n - 1;
		}
		x = &AN_VEC(v, struct io_key, id);
		k = io_kind(e);
		x->g.cnt[k]++;
		x->g.gbytes[k] += e->bytes;
		x->g.ns[k] += e->t1 - e->t0;
	}
	an_htab_free(&h);
	an_vec_sort(&v, key_cmp);	/* the order ties keep, as before */
	an_vec_sort(&v, key_time_cmp);
	an_title(o, detail ? "I/O by file descriptor\n\n" : "I/O by file name\n\n");
	if (an_table_init(&t, nc + 10))
		goto oom;
	for (k = 0, c = 0; k < 4; k++) {
		char h[32];

		snprintf(h, sizeof(h), "%s Time", kinds[k]);
		an_table_head(&t, c++, h, "sec.", false);
		if (k < 2) {
			snprintf(h, sizeof(h), "%s Bytes", kinds[k]);
			an_table_head(&t, c++, h, "bytes", false);
		}
		snprintf(h, sizeof(h), "%s Count", kinds[k]);
		an_table_head(&t, c++, h, "events", false);
	}
	if (detail) {
		an_table_head(&t, c++, "PID", "", false);
		an_table_head(&t, c++, "FD", "", false);
	}
	an_table_head(&t, c, "Name", "", true);
	for (i = 0; i < v.n && (!vs->limit || i < (size_t)vs->limit); i++) {
		size_t r = an_table_row(&t);

		x = &AN_VEC(v, struct io_key, i);
		if (r == SIZE_MAX)
			goto oom_t;
		for (k = 0, c = 0; k < 4; k++) {
			an_table_num(&t, r, c++, AN_C_TIME, x->g.ns[k] / 1e9);
			if (k < 2)
				an_table_int(&t, r, c++, x->g.gbytes[k]);
			an_table_int(&t, r, c++, x->g.cnt[k]);
		}
		if (detail) {
			an_table_int(&t, r, c++, x->pid);
			an_table_text(&t, r, c++, "%d", x->fd);
		}
		an_table_text(&t, r, c, "%s", file_name(an, x->file));
	}
	an_table_print(o, &t);
	an_table_free(&t);
	free(v.p);
	return 0;
oom_t:
	an_table_free(&t);
oom:
	an_htab_free(&h);
	free(v.p);
	return an_errf(an, -ENOMEM, "out of memory");
}

int an_view_iostat(struct an *an, const struct an_settings *vs,
		   struct an_out *o)
{
	static const char *const kinds[] = { "Read", "Write", "Other", "Error" };
	uint64_t cnt[4] = { 0 }, bytes[4] = { 0 }, ns[4] = { 0 };
	uint64_t lo[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	uint64_t hi[4] = { 0 }, d;
	struct an_table t;
	size_t i;
	int k;

	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *e = &AN_VEC(an->tev, struct an_tev, i);

		if (tev_class(e) < EXP_TC_IOREAD || !tev_pass(an, vs, e))
			continue;
		k = io_kind(e);
		d = e->t1 - e->t0;
		cnt[k]++;
		bytes[k] += e->bytes;
		ns[k] += d;
		lo[k] = d < lo[k] ? d : lo[k];
		hi[k] = d > hi[k] ? d : hi[k];
	}
	an_title(o, "I/O statistics\n\n");
	if (an_table_init(&t, 7) || an_table_head(&t, 0, "Kind", "", true) ||
	    an_table_head(&t, 1, "Count", "events", false) ||
	    an_table_head(&t, 2, "Bytes", "bytes", false) ||
	    an_table_head(&t, 3, "Total Time", "sec.", false) ||
	    an_table_head(&t, 4, "Mean Time", "sec.", false) ||
	    an_table_head(&t, 5, "Min Time", "sec.", false) ||
	    an_table_head(&t, 6, "Max Time", "sec.", false))
		goto oom;
	for (k = 0; k < 4; k++) {
		size_t r = an_table_row(&t);

		if (r == SIZE_MAX)
			goto oom;
		an_table_text(&t, r, 0, "%s", kinds[k]);
		an_table_int(&t, r, 1, cnt[k]);
		an_table_int(&t, r, 2, bytes[k]);
		an_table_num(&t, r, 3, AN_C_TIME, ns[k] / 1e9);
		an_table_num(&t, r, 4, AN_C_TIME, cnt[k] ? ns[k] / 1e9 / cnt[k] : 0);
		an_table_num(&t, r, 5, AN_C_TIME, cnt[k] ? lo[k] / 1e9 : 0);
		an_table_num(&t, r, 6, AN_C_TIME, hi[k] / 1e9);
	}
	an_table_print(o, &t);
	an_table_free(&t);
	return 0;
oom:
	an_table_free(&t);
	return an_errf(an, -ENOMEM, "out of memory");
}

void an_trace_sync_sum(struct an *an, size_t exp, uint64_t *n, uint64_t *ns,
		       uint64_t *nms, uint64_t *ms)
{
	const uint64_t *m;
	size_t i, k;

	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *t = &AN_VEC(an->tev, struct an_tev, i);

		if (t->exp != exp || tev_class(t) != EXP_TC_SYNC)
			continue;
		(*n)++;
		*ns += t->t1 - t->t0;
		m = an_tev_ms(an, t);
		if (!m)
			continue;
		(*nms)++;
		for (k = 0; k < LWPROF_MS_COUNT; k++)
			ms[k] += m[k];
	}
}

/* Sort: the longest wait first. */
static int wait_cmp(const void *a, const void *b)
{
	const struct an_tev *const *x = a, *const *y = b;
	uint64_t dx = (*x)->t1 - (*x)->t0, dy = (*y)->t1 - (*y)->t0;

	return dx > dy ? -1 : dx < dy;
}

/*
 * The microstates over a wait: those of its thread's clock packets
 * taken in (t0, t1].  The module takes the packet that carries a wait's
 * off-CPU time when the thread returns to user mode, before the call
 * returns; the first packet in the window may hold up to one interval
 * from before the call.
 */
static void wait_states(struct an *an, const uint64_t *voff, uint32_t thr,
			uint64_t t0, uint64_t t1, uint64_t *ms)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < an->s.n; i++) {
		const uint32_t *l;

		if (an->s.thr[i] != thr || an->s.time[i] <= t0 || an->s.time[i] > t1)
			continue;
		l = an_layout(an, an->s.layout[i]);
		for (j = 1; j <= l[0]; j++) {
			const struct an_base *b = &AN_VEC(an->bases, struct an_base, l[j]);

			if (b->kind == AN_B_MSTATE)
				ms[b->idx] += an->s.vals[voff[i] + j - 1];
		}
	}
}

void an_trace_sync_top(struct an *an, size_t exp, size_t n, FILE *f)
{
	struct an_vec v = { .esz = sizeof(struct an_tev *) };
	uint64_t *voff = malloc((an->s.n + 1) * sizeof(*voff)), off = 0;
	struct an_tev **p;
	size_t i, k;
	uint32_t thr;

	if (!voff)
		return;
	for (i = 0; i < an->s.n; i++) {
		voff[i] = off;
		off += an_layout(an, an->s.layout[i])[0];
	}
	for (i = 0; i < an->tev.n; i++) {
		struct an_tev *t = &AN_VEC(an->tev, struct an_tev, i);

		if (t->exp != exp || tev_class(t) != EXP_TC_SYNC || !(p = an_vec_push(&v)))
			continue;
		*p = t;
	}
	an_vec_sort(&v, wait_cmp);
	if (v.n)
		fprintf(f, "  The longest traced waits, with their microstates (over the call, read from the module by the library; else those of the clock packets taken in it):\n");
	for (i = 0; i < v.n && i < n; i++) {
		const struct an_tev *t = AN_VEC(v, struct an_tev *, i);
		uint64_t ms[LWPROF_MS_COUNT] = { 0 }, sum = 0;

		if (an_tev_ms(an, t)) {
			memcpy(ms, an_tev_ms(an, t), sizeof(ms));
		} else {
			for (thr = 0; thr < an->threads.n; thr++) {
				const struct an_thread *th =
					&AN_VEC(an->threads, struct an_thread, thr);

				if (th->exp == exp && th->pid == t->pid && th->tid == t->tid)
					break;
			}
			if (thr < an->threads.n)
				wait_states(an, voff, thr, t->t0, t->t1, ms);
		}
		fprintf(f, "    %.6f s %s of 0x%" PRIx64 " (tid %u):", (t->t1 - t->t0) / 1e9,
			exp_trace_event(t->event)->name, t->addr, t->tid);
		for (k = 0; k < LWPROF_MS_COUNT; k++) {
			sum += ms[k];
			if (ms[k])
				fprintf(f, " %s %.6f s,", exp_mstate_names[k].label,
					ms[k] / 1e9);
		}
		fprintf(f, " in all %.6f s%s\n", sum / 1e9,
			t->ms != UINT32_MAX ? ", over the call" : ", clock packets");
	}
	free(v.p);
	free(voff);
}
