// SPDX-License-Identifier: GPL-2.0
/*
 * -callers-callees / -csingle: for each function (or one), its callers with
 * the metric they attributed to it, the function itself (marked '*') with
 * its inclusive metric in the attributed column, then its callees with the
 * metric they attributed to it.  -calltree: the function call tree from the
 * roots, children by inclusive metric.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

/* Columns: the metric list, with an a. column for each metric shown. */
static int cc_cols(struct an *an, const struct an_settings *vs,
		   const struct an_agg *g, struct an_mlist *ml)
{
	struct an_mlist in = { 0 };
	int i, k, err;

	err = an_cols_effective(an, vs, g, &in, true);
	if (err || vs->ml.n) {
		*ml = in;
		return err;
	}
	for (i = 0; i < in.n && !err; i++) {
		const struct an_mcol *c = &in.c[i];

		err = an_mlist_add(ml, c->flavor, c->value, c->pct, c->m);
		if (err || c->flavor != 'i')
			continue;
		for (k = 0; k < in.n; k++)
			if (in.c[k].flavor == 'a' && in.c[k].m == c->m)
				break;
		if (k == in.n)
			err = an_mlist_add(ml, 'a', true, c->pct, c->m);
	}
	an_mlist_free(&in);
	return err ? an_errf(an, -ENOMEM, "out of memory") : 0;
}

static int sort_metric(const struct an_settings *vs, const struct an_mlist *ml)
{
	int i;

	if (vs->sort_set && vs->sort.m < AN_M_NAME)
		return vs->sort.m;
	for (i = 0; i < ml->n; i++)
		if (ml->c[i].flavor != 's')
			return ml->c[i].m;
	return AN_M_TOTAL;
}

struct cc {
	struct an *an;
	const struct an_settings *vs;
	struct an_out *o;
	struct an_agg g;
	struct an_flat f;
	struct an_edges callers, callees;
	struct an_mlist ml;
	struct an_table t;
	int sm;
	/*
	 * -compare (ng > 1): the same of each experiment alone; the rows
	 * are the whole's, their values each experiment's (view_compare.c)
	 */
	int ng;
	struct an_agg *gx;
	struct an_flat *fx;
	struct an_edges *crx, *cex;
	struct an_cmp_vals *v;
};

/* A row's attributed values: its own inclusive, or an edge's. */
enum { CC_SELF, CC_CALLER, CC_CALLEE };

static int cc_groups(struct cc *c)
{
	struct an *an = c->an;
	int x, err = 0;

	c->gx = calloc(c->ng, sizeof(*c->gx));
	c->fx = calloc(c->ng, sizeof(*c->fx));
	c->crx = calloc(c->ng, sizeof(*c->crx));
	c->cex = calloc(c->ng, sizeof(*c->cex));
	c->v = calloc(c->ng, sizeof(*c->v));
	if (!c->gx || !c->fx || !c->crx || !c->cex || !c->v)
		return an_errf(an, -ENOMEM, "out of memory");
	for (x = 0; x < c->ng && !err; x++) {
		err = an_aggregate_exp(an, c->vs->filter, x, &c->gx[x]);
		if (!err)
			err = an_flat(an, &c->gx[x], AN_K_FUNC, &c->fx[x]);
		if (!err)
			err = an_edges(an, &c->gx[x], &c->crx[x], &c->cex[x]);
	}
	return err;
}

static void cc_groups_free(struct cc *c)
{
	int x;

	for (x = 0; x < c->ng && c->gx && c->fx && c->crx && c->cex; x++) {
		an_edges_free(&c->crx[x]);
		an_edges_free(&c->cex[x]);
		an_flat_free(&c->fx[x]);
		an_agg_free(&c->gx[x]);
	}
	free(c->gx);
	free(c->fx);
	free(c->crx);
	free(c->cex);
	free(c->v);
}

/* What orders the rows: the base experiment's values under -compare. */
static const struct an_flat *cc_base_flat(const struct cc *c)
{
	return c->ng > 1 ? &c->fx[0] : &c->f;
}

static const uint64_t *cc_base_attr(const struct cc *c, const uint64_t *attr,
				    int kind, uint32_t from, uint32_t to)
{
	if (c->ng <= 1)
		return attr;
	return an_edge_vals(kind == CC_CALLER ? &c->crx[0] : &c->cex[0], from, to);
}

struct cc_item {
	uint32_t func;
	uint64_t key;
	const uint64_t *attr;
	uint32_t from, to;	/* the edge */
};

static int item_cmp(const void *a, const void *b, void *ctx)
{
	const struct cc *c = ctx;
	const struct cc_item *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(an_func_name(c->an, x->func, c->vs->name_long),
		      an_func_name(c->an, y->func, c->vs->name_long));
}

static int cc_row(struct cc *c, uint32_t func, const uint64_t *attr,
		  const char *prefix, int kind, uint32_t from, uint32_t to)
{
	struct an *an = c->an;
	struct an_func *fn = &AN_VEC(an->funcs, struct an_func, func);
	size_t row = an_table_row(&c->t);
	char name[700], addr[64];

	if (row == SIZE_MAX)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%s%s", prefix,
		 an_func_name(an, func, c->vs->name_long));
	snprintf(addr, sizeof(addr), "%d:0x%08" PRIx64,
		 AN_VEC(an->objs, struct an_obj, fn->obj).num, fn->addr);
	if (c->ng > 1) {
		int x;

		for (x = 0; x < c->ng; x++) {
			const struct an_flat *f = &c->fx[x];

			c->v[x].e = f->excl + func * f->nb;
			c->v[x].i = f->incl + func * f->nb;
			c->v[x].a = kind == CC_SELF ? c->v[x].i :
				an_edge_vals(kind == CC_CALLER ? &c->crx[x] :
					     &c->cex[x], from, to);
		}
		an_cmp_row(an, c->vs, &c->ml, &c->t, row, c->gx, c->v, name,
			   fn->size, addr);
		return 0;
	}
	an_fill_row(an, &c->ml, &c->t, row, c->f.excl + func * c->f.nb,
		    c->f.incl + func * c->f.nb, attr, c->g.total, name, fn->size,
		    addr);
	return 0;
}

/*
 * Each function's edges of one end, grouped by counting sort: the edges
 * with to == f (callers) or from == f (callees) are idx[first[f] ..
 * first[f + 1]).
 */
struct cc_index {
	uint32_t *first, *idx;
};

static int cc_index(struct an_edges *e, size_t nfunc, bool by_to,
		    struct cc_index *x)
{
	size_t i;

	x->first = calloc(nfunc + 2, sizeof(*x->first));
	x->idx = malloc((e->n + 1) * sizeof(*x->idx));
	if (!x->first || !x->idx)
		return -ENOMEM;
	for (i = 0; i < e->n; i++)
		x->first[(by_to ? e->e[i].to : e->e[i].from) + 2]++;
	for (i = 2; i < nfunc + 2; i++)
		x->first[i] += x->first[i - 1];
	for (i = 0; i < e->n; i++)
		x->idx[x->first[(by_to ? e->e[i].to : e->e[i].from) + 1]++] = i;
	return 0;
}

static void cc_index_free(struct cc_index *x)
{
	free(x->first);
	free(x->idx);
}

/* The edges of one end: callers (to == func) or callees (from == func). */
static int cc_side(struct cc *c, struct an_edges *e, struct cc_index *x,
		   uint32_t func, bool callers)
{
	size_t n = x->first[func + 1] - x->first[func], i;
	struct cc_item *it = malloc((n + 1) * sizeof(*it));
	int err = 0;

	if (!it)
		return -ENOMEM;
	int kind = callers ? CC_CALLER : CC_CALLEE;

	for (i = 0; i < n; i++) {
		uint32_t k = x->idx[x->first[func] + i];
		const uint64_t *base;

		it[i].func = callers ? e->e[k].from : e->e[k].to;
		it[i].from = e->e[k].from;
		it[i].to = e->e[k].to;
		it[i].attr = e->vals + (size_t)k * e->nb;
		base = cc_base_attr(c, it[i].attr, kind, it[i].from, it[i].to);
		it[i].key = base ? an_metric_raw(c->an, c->sm, base) : 0;
	}
	qsort_r(it, n, sizeof(*it), item_cmp, c);
	for (i = 0; i < n && !err; i++)
		err = cc_row(c, it[i].func, it[i].attr, "  ", kind, it[i].from,
			     it[i].to);
	free(it);
	return err;
}

int an_view_cc(struct an *an, const struct an_settings *vs, struct an_out *o,
	       const char *single)
{
	struct cc c = { .an = an, .vs = vs, .o = o };
	struct cc_index xr = { 0 }, xe = { 0 };
	struct cc_item *it = NULL;
	uint32_t one = UINT32_MAX;
	size_t i, n = 0;
	int err, nf;

	if (single) {
		one = an_func_find(an, single, &nf);
		if (one == UINT32_MAX)
			return an_errf(an, -ENOENT, "no function named '%s'", single);
	}
	err = an_aggregate(an, vs->filter, &c.g);
	if (!err)
		err = an_flat(an, &c.g, AN_K_FUNC, &c.f);
	if (!err)
		err = an_edges(an, &c.g, &c.callers, &c.callees);
	if (err)
		goto out;
	if (cc_index(&c.callers, an->funcs.n, true, &xr) ||
	    cc_index(&c.callees, an->funcs.n, false, &xe)) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	c.ng = an_cmp_groups(an, vs);
	if (c.ng > 1) {
		err = cc_groups(&c);
		if (err)
			goto out;
	}
	err = cc_cols(an, vs, c.ng > 1 ? &c.gx[0] : &c.g, &c.ml);
	if (err)
		goto out;
	c.sm = sort_metric(vs, &c.ml);
	if (c.ng > 1 ? an_cmp_heads(an, vs, &c.ml, &c.t) :
	    an_make_heads(an, &c.ml, &c.t)) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	it = malloc((c.f.n + 1) * sizeof(*it));
	if (!it) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c.f.n; i++) {
		if (!c.f.seen[i] || (one != UINT32_MAX && i != one))
			continue;
		it[n].func = i;
		it[n].key = an_metric_raw(an, c.sm, cc_base_flat(&c)->incl +
					  i * c.f.nb);
		n++;
	}
	if (one != UINT32_MAX && !n) {
		it[n].func = one;
		it[n++].key = 0;
	}
	qsort_r(it, n, sizeof(*it), item_cmp, &c);
	if (vs->limit > 0 && (size_t)vs->limit < n)
		n = vs->limit;
	an_title(o, "Callers and callees sorted by metric: Attributed %s\n\n",
		an_metric_title(an, c.sm));
	for (i = 0; i < n && !err; i++) {
		if (i)
			an_table_row(&c.t);	/* a blank line between functions */
		err = cc_side(&c, &c.callers, &xr, it[i].func, true);
		if (!err)
			err = cc_row(&c, it[i].func, c.f.incl + it[i].func * c.f.nb,
				     "* ", CC_SELF, 0, 0);
		if (!err)
			err = cc_side(&c, &c.callees, &xe, it[i].func, false);
	}
	if (err)
		err = an_errf(an, -ENOMEM, "out of memory");
	else
		an_table_print(o, &c.t);
out:
	free(it);
	cc_groups_free(&c);
	cc_index_free(&xr);
	cc_index_free(&xe);
	an_table_free(&c.t);
	an_mlist_free(&c.ml);
	an_edges_free(&c.callers);
	an_edges_free(&c.callees);
	an_flat_free(&c.f);
	an_agg_free(&c.g);
	return err;
}

/* ---- call tree ---- */

struct ct {
	struct cc c;
	struct an_tree tr;
	/* -compare: each experiment's tree, and its node of each of tr's */
	struct an_tree *tx;
	uint32_t **map;
};

/*
 * map[k] for the nodes k of u's list from uk on: the node of g's list
 * from gk on with the same function (UINT32_MAX: none), and so on down.
 */
static void ct_map(const struct an_tree *u, uint32_t uk,
		   const struct an_tree *g, uint32_t gk, uint32_t *map,
		   int depth)
{
	for (; uk != UINT32_MAX; uk = u->n[uk].next) {
		uint32_t m = gk;

		while (m != UINT32_MAX && g->n[m].func != u->n[uk].func)
			m = g->n[m].next;
		map[uk] = m;
		if (depth < 4096)
			ct_map(u, u->n[uk].child, g, m == UINT32_MAX ?
			       UINT32_MAX : g->n[m].child, map, depth + 1);
	}
}

static int ct_groups(struct ct *x)
{
	struct an *an = x->c.an;
	int k, err = 0;

	x->c.gx = calloc(x->c.ng, sizeof(*x->c.gx));
	x->c.v = calloc(x->c.ng, sizeof(*x->c.v));
	x->tx = calloc(x->c.ng, sizeof(*x->tx));
	x->map = calloc(x->c.ng, sizeof(*x->map));
	if (!x->c.gx || !x->c.v || !x->tx || !x->map)
		return an_errf(an, -ENOMEM, "out of memory");
	for (k = 0; k < x->c.ng && !err; k++) {
		err = an_aggregate_exp(an, x->c.vs->filter, k, &x->c.gx[k]);
		if (!err)
			err = an_tree(an, &x->c.gx[k], &x->tx[k]);
		if (err)
			break;
		x->map[k] = malloc((x->tr.cnt + 1) * sizeof(**x->map));
		if (!x->map[k])
			return an_errf(an, -ENOMEM, "out of memory");
		ct_map(&x->tr, x->tr.roots, &x->tx[k], x->tx[k].roots,
		       x->map[k], 0);
	}
	return err;
}

static void ct_groups_free(struct ct *x)
{
	int k;

	for (k = 0; k < x->c.ng && x->c.gx && x->tx && x->map; k++) {
		an_tree_free(&x->tx[k]);
		an_agg_free(&x->c.gx[k]);
		free(x->map[k]);
	}
	free(x->c.gx);
	free(x->c.v);
	free(x->tx);
	free(x->map);
}

/* Node nd's values in experiment k's tree (NULL: not there). */
static const uint64_t *ct_vals(const struct ct *x, int k, uint32_t nd,
			       bool incl)
{
	const struct an_tree *t = &x->tx[k];
	uint32_t m = x->map[k][nd];

	if (m == UINT32_MAX)
		return NULL;
	return (incl ? t->incl : t->excl) + (size_t)m * t->nb;
}

static int ct_walk(struct ct *x, uint32_t first, char *prefix, size_t plen,
		   int depth)
{
	struct an_tree *tr = &x->tr;
	bool nl = x->c.vs->name_long;
	struct cc_item *it;
	size_t n = 0, i, cap = 0;
	uint32_t k;
	int err = 0;

	for (k = first; k != UINT32_MAX; k = tr->n[k].next)
		cap++;
	it = malloc((cap + 1) * sizeof(*it));
	if (!it)
		return -ENOMEM;
	for (k = first; k != UINT32_MAX; k = tr->n[k].next) {
		uint64_t v = an_metric_raw(x->c.an, x->c.sm, tr->incl + k * tr->nb);
		const uint64_t *b;

		if (!v && !an_metric_raw(x->c.an, AN_M_TOTAL, tr->incl + k * tr->nb))
			continue;
		if (x->c.ng > 1) {	/* -compare: by the base's values */
			b = ct_vals(x, 0, k, true);
			v = b ? an_metric_raw(x->c.an, x->c.sm, b) : 0;
		}
		it[n].func = k;	/* a tree node here */
		it[n].key = v;
		n++;
	}
	for (i = 0; i < n; i++)	/* by metric, then name: sort on the function */
		for (size_t j = i + 1; j < n; j++)
			if (it[j].key > it[i].key ||
			    (it[j].key == it[i].key &&
			     strcmp(an_func_name(x->c.an, tr->n[it[j].func].func, nl),
				    an_func_name(x->c.an, tr->n[it[i].func].func, nl)) < 0)) {
				struct cc_item t = it[i];

				it[i] = it[j];
				it[j] = t;
			}
	for (i = 0; i < n && !err; i++) {
		uint32_t nd = it[i].func;
		size_t row = an_table_row(&x->c.t);
		char name[1024];

		if (row == SIZE_MAX) {
			err = -ENOMEM;
			break;
		}
		snprintf(name, sizeof(name), "%s+-%s", prefix,
			 an_func_name(x->c.an, tr->n[nd].func, nl));
		if (x->c.ng > 1) {
			int k;

			for (k = 0; k < x->c.ng; k++) {
				x->c.v[k].e = ct_vals(x, k, nd, false);
				x->c.v[k].i = x->c.v[k].a = ct_vals(x, k, nd, true);
			}
			an_cmp_row(x->c.an, x->c.vs, &x->c.ml, &x->c.t, row,
				   x->c.gx, x->c.v, name, 0, NULL);
		} else {
			an_fill_row(x->c.an, &x->c.ml, &x->c.t, row,
				    tr->excl + nd * tr->nb, tr->incl + nd * tr->nb,
				    tr->incl + nd * tr->nb, x->c.g.total, name, 0,
				    NULL);
		}
		if (plen + 4 < 4096 && depth < 1000) {
			strcpy(prefix + plen, i + 1 < n ? "|  " : "   ");
			err = ct_walk(x, tr->n[nd].child, prefix, plen + 3, depth + 1);
			prefix[plen] = 0;
		}
	}
	free(it);
	return err;
}

int an_view_calltree(struct an *an, const struct an_settings *vs,
		     struct an_out *o)
{
	struct ct x = { .c = { .an = an, .vs = vs, .o = o } };
	char *prefix = calloc(4096, 1);
	int err;

	if (!prefix)
		return an_errf(an, -ENOMEM, "out of memory");
	err = an_aggregate(an, vs->filter, &x.c.g);
	if (!err)
		err = an_tree(an, &x.c.g, &x.tr);
	if (err)
		goto out;
	x.c.ng = an_cmp_groups(an, vs);
	if (x.c.ng > 1) {
		err = ct_groups(&x);
		if (err)
			goto out;
	}
	err = an_cols_effective(an, vs, x.c.ng > 1 ? &x.c.gx[0] : &x.c.g,
				&x.c.ml, false);
	if (err)
		goto out;
	x.c.sm = sort_metric(vs, &x.c.ml);
	if (x.c.ng > 1 ? an_cmp_heads(an, vs, &x.c.ml, &x.c.t) :
	    an_make_heads(an, &x.c.ml, &x.c.t)) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	an_title(o, "Functions Call Tree. Metric: Inclusive %s\n\n",
		an_metric_title(an, x.c.sm));
	err = ct_walk(&x, x.tr.roots, prefix, 0, 0);
	if (err)
		err = an_errf(an, -ENOMEM, "out of memory");
	else
		an_table_print(o, &x.c.t);
out:
	free(prefix);
	ct_groups_free(&x);
	an_table_free(&x.c.t);
	an_mlist_free(&x.c.ml);
	an_tree_free(&x.tr);
	an_agg_free(&x.c.g);
	return err;
}
