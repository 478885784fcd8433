// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics on program structure, as er_print defines them.  The samples
 * that pass the filter are first summed per call stack (pc-trie node);
 * then each stack's sums are spread:
 *  - exclusive: to the leaf frame's function (line, pc, object);
 *  - inclusive: once to every unique function (line, pc, object) on it;
 *  - attributed, per function F at its lowest (leaf-most) invocation on
 *    the stack: the caller edge (caller of that invocation -> F) and the
 *    callee edge (F -> the function it called there).  The higher
 *    invocations of a recursive function count as zero, so a function's
 *    callers' attributed sum is its inclusive, and its callees' attributed
 *    sum plus its exclusive is its inclusive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

static inline uint32_t pc_fn(struct an *an, const struct an_pc *p)
{
	return an_pc_func(an, p);
}

int an_aggregate(struct an *an, struct an_filter *flt, struct an_agg *g)
{
	return an_aggregate_exp(an, flt, UINT32_MAX, g);
}

int an_aggregate_exp(struct an *an, struct an_filter *flt, uint32_t exp,
		     struct an_agg *g)
{
	const struct an_samples *s = &an->s;
	size_t nb = an->bases.n, i;
	const uint64_t *v = s->vals;
	uint64_t *acc, *tot;

	memset(g, 0, sizeof(*g));
	g->nb = nb;
	g->n = an->nodes.n;
	g->acc = acc = calloc(g->n ? g->n * nb : 1, sizeof(uint64_t));
	g->used = calloc(g->n ? g->n : 1, 1);
	g->total = tot = calloc(nb + 1, sizeof(uint64_t));
	if (!acc || !g->used || !tot)
		return an_errf(an, -ENOMEM, "out of memory");
	for (i = 0; i < s->n; i++) {
		const uint32_t *l = an_layout(an, s->layout[i]);
		uint32_t j, nv = l[0];
		uint64_t *row;

		if ((flt && !an_filter_pass(an, flt, i)) ||
		    (exp != UINT32_MAX &&
		     AN_VEC(an->threads, struct an_thread, s->thr[i]).exp != exp)) {
			v += nv;
			continue;
		}
		row = acc + (size_t)s->stack[i] * nb;
		g->used[s->stack[i]] = 1;
		g->nsamples += !(s->part[i] & AN_PART_CONT);	/* packets */
		for (j = 1; j <= nv; j++) {
			row[l[j]] += *v;
			tot[l[j]] += *v++;
		}
	}
	return 0;
}

void an_agg_free(struct an_agg *g)
{
	free(g->acc);
	free(g->used);
	free(g->total);
	memset(g, 0, sizeof(*g));
}

static inline void add_row(uint64_t *dst, const uint64_t *src, size_t nb)
{
	size_t b;

	for (b = 0; b < nb; b++)
		dst[b] += src[b];
}

/* The key of a pc for a view kind. */
static inline uint32_t pc_key(struct an *an, uint32_t pcid, int kind)
{
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, pcid);

	switch (kind) {
	case AN_K_FUNC:
		return pc_fn(an, p);
	case AN_K_OBJ:
		return AN_VEC(an->funcs, struct an_func, pc_fn(an, p)).obj;
	case AN_K_LINE:
		return p->line;	/* UINT32_MAX: none */
	default:
		return pcid;
	}
}

size_t an_kind_count(struct an *an, int kind)
{
	switch (kind) {
	case AN_K_FUNC:
		return an->funcs.n;
	case AN_K_OBJ:
		return an->objs.n;
	case AN_K_LINE:
		return an->lines.n + an->funcs.n;	/* + "no line" per function */
	default:
		return an->pcs.n;
	}
}

int an_flat(struct an *an, const struct an_agg *g, int kind, struct an_flat *f)
{
	size_t nb = g->nb, nk = an_kind_count(an, kind), i;
	uint32_t *stamp;

	memset(f, 0, sizeof(*f));
	f->nb = nb;
	f->n = nk;
	f->excl = calloc(nk * nb + 1, sizeof(uint64_t));
	f->incl = calloc(nk * nb + 1, sizeof(uint64_t));
	f->seen = calloc(nk + 1, 1);
	stamp = malloc((nk + 1) * sizeof(*stamp));
	if (!f->excl || !f->incl || !f->seen || !stamp) {
		free(stamp);
		return an_errf(an, -ENOMEM, "out of memory");
	}
	memset(stamp, 0xff, (nk + 1) * sizeof(*stamp));
	for (i = 0; i < g->n; i++) {
		const uint64_t *row = g->acc + i * nb;
		uint32_t nd = i, k, leaf = 1;

		if (!g->used[i])
			continue;
		while (nd != UINT32_MAX) {
			const struct an_node *n = &AN_VEC(an->nodes, struct an_node, nd);

			k = pc_key(an, n->pc, kind);
			if (kind == AN_K_LINE && k == UINT32_MAX)
				k = an->lines.n +
				    pc_key(an, n->pc, AN_K_FUNC);
			if (leaf)
				add_row(f->excl + (size_t)k * nb, row, nb);
			leaf = 0;
			if (stamp[k] != i) {
				stamp[k] = i;
				add_row(f->incl + (size_t)k * nb, row, nb);
				f->seen[k] = 1;
			}
			nd = n->parent;
		}
	}
	free(stamp);
	return 0;
}

void an_flat_free(struct an_flat *f)
{
	free(f->excl);
	free(f->incl);
	free(f->seen);
	memset(f, 0, sizeof(*f));
}

/* ---- caller/callee edges ---- */

static bool edge_eq(void *ctx, uint32_t id, const void *key)
{
	struct an_edges *e = ctx;
	const uint32_t *k = key;

	return e->e[id].from == k[0] && e->e[id].to == k[1];
}

static inline uint64_t edge_hash(uint32_t from, uint32_t to)
{
	return an_mix(an_mix(31, from), to);
}

const uint64_t *an_edge_vals(const struct an_edges *e, uint32_t from,
			     uint32_t to)
{
	uint32_t k[2] = { from, to };
	uint32_t id = an_htab_find((struct an_htab *)&e->h, edge_hash(from, to),
				   edge_eq, (void *)e, k);

	return id == UINT32_MAX ? NULL : e->vals + (size_t)id * e->nb;
}

static uint64_t *edge_row(struct an_edges *e, uint32_t from, uint32_t to)
{
	uint64_t h = edge_hash(from, to);
	uint64_t *v = (uint64_t *)an_edge_vals(e, from, to);
	void *p;

	if (v)
		return v;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;

		p = realloc(e->e, cap * sizeof(*e->e));
		if (!p)
			return NULL;
		e->e = p;
		p = realloc(e->vals, cap * e->nb * sizeof(uint64_t));
		if (!p)
			return NULL;
		e->vals = p;
		e->cap = cap;
	}
	e->e[e->n].from = from;
	e->e[e->n].to = to;
	memset(e->vals + e->n * e->nb, 0, e->nb * sizeof(uint64_t));
	if (an_htab_add(&e->h, h, e->n))
		return NULL;
	return e->vals + (e->n++) * e->nb;
}

int an_edges(struct an *an, const struct an_agg *g, struct an_edges *callers,
	     struct an_edges *callees)
{
	size_t nb = g->nb, i;
	uint32_t *fr = NULL, nfr, cap = 0, *stamp;
	uint64_t *r;

	memset(callers, 0, sizeof(*callers));
	memset(callees, 0, sizeof(*callees));
	callers->nb = callees->nb = nb;
	stamp = malloc((an->funcs.n + 1) * sizeof(*stamp));
	if (!stamp)
		return an_errf(an, -ENOMEM, "out of memory");
	memset(stamp, 0xff, (an->funcs.n + 1) * sizeof(*stamp));
	for (i = 0; i < g->n; i++) {
		const uint64_t *row = g->acc + i * nb;
		uint32_t nd = i, j;

		if (!g->used[i])
			continue;
		/* the stack's functions, leaf first */
		nfr = 0;
		while (nd != UINT32_MAX) {
			const struct an_node *n = &AN_VEC(an->nodes, struct an_node, nd);

			if (nfr == cap) {
				uint32_t *p = realloc(fr, (cap = cap ? cap * 2 : 64) *
							  sizeof(*fr));

				if (!p)
					goto nomem;
				fr = p;
			}
			fr[nfr++] = pc_fn(an, &AN_VEC(an->pcs, struct an_pc, n->pc));
			nd = n->parent;
		}
		for (j = 0; j < nfr; j++) {
			if (stamp[fr[j]] == i)
				continue;	/* a higher invocation: zero */
			stamp[fr[j]] = i;
			if (j + 1 < nfr) {
				r = edge_row(callers, fr[j + 1], fr[j]);
				if (!r)
					goto nomem;
				add_row(r, row, nb);
			}
			if (j > 0) {
				r = edge_row(callees, fr[j], fr[j - 1]);
				if (!r)
					goto nomem;
				add_row(r, row, nb);
			}
		}
	}
	free(fr);
	free(stamp);
	return 0;
nomem:
	free(fr);
	free(stamp);
	return an_errf(an, -ENOMEM, "out of memory");
}

void an_edges_free(struct an_edges *e)
{
	free(e->e);
	free(e->vals);
	an_htab_free(&e->h);
	memset(e, 0, sizeof(*e));
}

/* ---- the function call tree ---- */

static bool tn_eq(void *ctx, uint32_t id, const void *key)
{
	struct an_tree *t = ctx;
	const uint32_t *k = key;

	return t->n[id].parent == k[0] && t->n[id].func == k[1];
}

static uint32_t tree_child(struct an_tree *t, uint32_t parent, uint32_t func)
{
	uint32_t k[2] = { parent, func }, id;
	uint64_t h = an_mix(an_mix(41, parent), func);
	void *p;

	id = an_htab_find(&t->h, h, tn_eq, t, k);
	if (id != UINT32_MAX)
		return id;
	if (t->cnt == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;

		p = realloc(t->n, cap * sizeof(*t->n));
		if (!p)
			return UINT32_MAX;
		t->n = p;
		t->cap = cap;
	}
	id = t->cnt++;
	t->n[id] = (struct an_tnode){ parent, func, UINT32_MAX, UINT32_MAX };
	if (parent != UINT32_MAX) {
		t->n[id].next = t->n[parent].child;
		t->n[parent].child = id;
	} else {
		t->n[id].next = t->roots;
		t->roots = id;
	}
	return an_htab_add(&t->h, h, id) ? UINT32_MAX : id;
}

int an_tree(struct an *an, const struct an_agg *g, struct an_tree *t)
{
	size_t nb = g->nb, i;
	uint32_t *map = malloc((g->n + 1) * sizeof(*map));
	void *p;

	memset(t, 0, sizeof(*t));
	t->nb = nb;
	t->roots = UINT32_MAX;
	if (!map)
		return an_errf(an, -ENOMEM, "out of memory");
	/* nodes are made after their parents: one pass in index order */
	for (i = 0; i < g->n; i++) {
		const struct an_node *n = &AN_VEC(an->nodes, struct an_node, i);
		uint32_t f = pc_fn(an, &AN_VEC(an->pcs, struct an_pc, n->pc));

		map[i] = tree_child(t, n->parent == UINT32_MAX ? UINT32_MAX :
				    map[n->parent], f);
		if (map[i] == UINT32_MAX) {
			free(map);
			return an_errf(an, -ENOMEM, "out of memory");
		}
	}
	t->of_node = map;	/* an_tree_free() frees it */
	p = calloc(t->cnt * nb * 2 + 1, sizeof(uint64_t));
	if (!p)
		return an_errf(an, -ENOMEM, "out of memory");
	t->excl = p;
	t->incl = t->excl + t->cnt * nb;
	for (i = 0; i < g->n; i++) {
		const uint64_t *row = g->acc + i * nb;
		uint32_t tn = map[i];

		if (!g->used[i])
			continue;
		add_row(t->excl + (size_t)tn * nb, row, nb);
		for (; tn != UINT32_MAX; tn = t->n[tn].parent)
			add_row(t->incl + (size_t)tn * nb, row, nb);
	}
	return 0;
}

void an_tree_free(struct an_tree *t)
{
	free(t->of_node);
	free(t->n);
	free(t->excl);
	an_htab_free(&t->h);
	memset(t, 0, sizeof(*t));
}
