// SPDX-License-Identifier: GPL-2.0
/*
 * The flat views: -functions, -objects, -lines, -pcs (exclusive and
 * inclusive metrics per item, <Total> first, sorted, limited), and -fsingle
 * (one function's summary).  Also looking a function up by name, which
 * the other views share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

static const char *item_name(struct an *an, bool name_long, int kind,
			     uint32_t k, char *buf, size_t len)
{
	struct an_pc *p;
	struct an_line *l;
	const char *fn;

	switch (kind) {
	case AN_K_FUNC:
		return an_func_name(an, k, name_long);
	case AN_K_OBJ:
		return AN_VEC(an->objs, struct an_obj, k).name;
	case AN_K_LINE:
		if (k >= an->lines.n) {
			snprintf(buf, len, "<Function: %s, instructions without line numbers>",
				 an_func_name(an, k - an->lines.n, name_long));
			return buf;
		}
		l = &AN_VEC(an->lines, struct an_line, k);
		snprintf(buf, len, "%s, line %u in \"%s\"", an_func_name(an, l->func, name_long),
			 l->line, an_str(&an->strs, l->file));
		return buf;
	default:
		p = &AN_VEC(an->pcs, struct an_pc, k);
		fn = an_func_name(an, an->inline_funcs ? p->ifunc : p->func,
				  name_long);
		if (p->ret == 2)
			return fn;
		if (p->line != UINT32_MAX) {
			l = &AN_VEC(an->lines, struct an_line, p->line);
			snprintf(buf, len, "%s + 0x%" PRIx64 ", line %u in \"%s\"", fn,
				 p->addr - AN_VEC(an->funcs, struct an_func, p->func).addr,
				 l->line, an_str(&an->strs, l->file));
		} else {
			snprintf(buf, len, "%s + 0x%" PRIx64, fn, p->addr -
				 AN_VEC(an->funcs, struct an_func, p->func).addr);
		}
		return buf;
	}
}

static void item_static(struct an *an, int kind, uint32_t k, uint64_t *size,
			char *addr, size_t len)
{
	int num = 1;
	uint64_t a = 0;

	*size = 0;
	if (kind == AN_K_FUNC) {
		struct an_func *f = &AN_VEC(an->funcs, struct an_func, k);

		num = AN_VEC(an->objs, struct an_obj, f->obj).num;
		a = f->addr;
		*size = f->size;
	} else if (kind == AN_K_PC) {
		struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, k);

		num = AN_VEC(an->objs, struct an_obj, p->obj).num;
		a = p->ret == 2 ? 0 : p->addr;
	} else if (kind == AN_K_OBJ) {
		num = AN_VEC(an->objs, struct an_obj, k).num;
	}
	snprintf(addr, len, "%d:0x%08" PRIx64, num, a);
}

/* How the rows of a flat view sort (qsort_r's context). */
struct flat_sort {
	struct an *an;
	const uint64_t *v;
	size_t nb;
	int m, kind;
	bool byname, name_long;
	char buf1[600], buf2[600];
};

static int row_cmp(const void *a, const void *b, void *ctx)
{
	struct flat_sort *sc = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const char *nx, *ny;

	if (!sc->byname) {
		uint64_t vx = an_metric_raw(sc->an, sc->m, sc->v + x * sc->nb);
		uint64_t vy = an_metric_raw(sc->an, sc->m, sc->v + y * sc->nb);

		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	nx = item_name(sc->an, sc->name_long, sc->kind, x, sc->buf1, sizeof(sc->buf1));
	ny = item_name(sc->an, sc->name_long, sc->kind, y, sc->buf2, sizeof(sc->buf2));
	return strcmp(nx, ny) ? strcmp(nx, ny) : (x < y ? -1 : x > y);
}

/* Pick the sort column: -sort, else the first metric shown. */
static void sort_setup(struct an *an, const struct an_settings *vs,
		       const struct an_mlist *ml, const struct an_flat *f,
		       struct flat_sort *sc, char *what, size_t len)
{
	char fl = 0;
	int m = -1, i;

	if (vs->sort_set) {
		fl = vs->sort.flavor;
		m = vs->sort.m;
	} else {
		for (i = 0; i < ml->n; i++)
			if (ml->c[i].flavor == 'e' || ml->c[i].flavor == 'i') {
				fl = ml->c[i].flavor;
				m = ml->c[i].m;
				break;
			}
	}
	sc->an = an;
	sc->nb = f->nb;
	sc->byname = m < 0 || m == AN_M_NAME || m >= AN_M_NAME;
	sc->m = m;
	sc->v = fl == 'i' || fl == 'a' ? f->incl : f->excl;
	sc->name_long = vs->name_long;
	if (sc->byname)
		snprintf(what, len, "Name");
	else
		snprintf(what, len, "%s %s", fl == 'e' ? "Exclusive" : "Inclusive",
			 an_metric_title(an, m));
}

static const char *kind_title(int kind)
{
	static const char *const t[] = { "Functions", "Load Objects", "Lines",
					 "PCs" };
	return t[kind];
}

/* -compare's key of an item: its name; a function's with its object's */
static const char *cmp_key(void *ctx, uint32_t k)
{
	struct flat_sort *sc = ctx;
	const char *n = item_name(sc->an, sc->name_long, sc->kind, k, sc->buf1,
				  sizeof(sc->buf1));
	const struct an_func *fn;

	if (sc->kind != AN_K_FUNC)
		return n;
	fn = &AN_VEC(sc->an->funcs, struct an_func, k);
	snprintf(sc->buf2, sizeof(sc->buf2), "%s\n%s", n,
		 AN_VEC(sc->an->objs, struct an_obj, fn->obj).name);
	return sc->buf2;
}

int an_view_flat(struct an *an, const struct an_settings *vs, struct an_out *o,
		 int kind)
{
	struct flat_sort sc;
	int ng = an_cmp_groups(an, vs), x;	/* -compare: one per experiment */
	struct an_agg *g = calloc(ng, sizeof(*g));
	struct an_flat *f = calloc(ng, sizeof(*f));
	struct an_cmp_vals *v = NULL;	/* -compare: a row's, per experiment */
	struct an_mlist ml = { 0 };
	struct an_table t = { 0 };
	uint32_t *ids = NULL, nid = 0, k;
	int err = 0;
	char what[160], buf[600], addr[64];
	uint64_t size;
	size_t row, i, n;
	bool seen;

	if (!g || !f) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	for (x = 0; x < ng && !err; x++) {
		err = an_aggregate_exp(an, vs->filter, ng > 1 ? (uint32_t)x : UINT32_MAX,
				       &g[x]);
		if (!err)
			err = an_flat(an, &g[x], kind, &f[x]);
	}
	sc.an = an;
	sc.kind = kind;
	sc.name_long = vs->name_long;
	if (!err && ng > 1)
		err = an_cmp_merge(an, f, ng, cmp_key, &sc);
	if (err)
		goto out;
	err = an_cols_effective(an, vs, &g[0], &ml, false);
	if (err)
		goto out;
	if (ng > 1 ? an_cmp_heads(an, vs, &ml, &t) : an_make_heads(an, &ml, &t)) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	ids = malloc((f[0].n + 1) * sizeof(*ids));
	if (!ids) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < f[0].n; i++) {
		for (x = 0, seen = false; x < ng && !seen; x++)
			seen = f[x].seen[i];
		if (seen)
			ids[nid++] = i;
	}
	sort_setup(an, vs, &ml, &f[0], &sc, what, sizeof(what));
	sc.kind = kind;
	qsort_r(ids, nid, sizeof(*ids), row_cmp, &sc);
	an_title(o, "%s sorted by metric: %s\n\n", kind_title(kind), what);
	if (ng > 1) {
		v = calloc(ng, sizeof(*v));
		if (!v) {
			err = an_errf(an, -ENOMEM, "out of memory");
			goto out;
		}
	}
	row = an_table_row(&t);
	if (ng > 1) {
		for (x = 0; x < ng; x++)
			v[x] = (struct an_cmp_vals){ g[x].total, g[x].total, NULL };
		an_cmp_row(an, vs, &ml, &t, row, g, v, "<Total>", 0,
			   "1:0x00000000");
	} else
		an_fill_row(an, &ml, &t, row, g->total, g->total, g->total,
			    g->total, "<Total>", 0, "1:0x00000000");
	n = vs->limit > 0 && (size_t)vs->limit < nid ? (size_t)vs->limit : nid;
	for (i = 0; i < n; i++) {
		const char *name;

		k = ids[i];
		row = an_table_row(&t);
		if (row == SIZE_MAX) {
			err = an_errf(an, -ENOMEM, "out of memory");
			goto out;
		}
		item_static(an, kind, k, &size, addr, sizeof(addr));
		name = item_name(an, vs->name_long, kind, k, buf, sizeof(buf));
		if (ng > 1) {
			for (x = 0; x < ng; x++)
				v[x] = (struct an_cmp_vals){
					f[x].excl + (size_t)k * f[x].nb,
					f[x].incl + (size_t)k * f[x].nb, NULL };
			an_cmp_row(an, vs, &ml, &t, row, g, v, name, size, addr);
		} else
			an_fill_row(an, &ml, &t, row, f->excl + (size_t)k * f->nb,
				    f->incl + (size_t)k * f->nb, NULL, g->total,
				    name, size, addr);
	}
	an_table_print(o, &t);
out:
	an_table_free(&t);
	an_mlist_free(&ml);
	free(ids);
	for (x = 0; x < ng && f && g; x++) {
		an_flat_free(&f[x]);
		an_agg_free(&g[x]);
	}
	free(f);
	free(g);
	free(v);
	return err;
}

uint32_t an_func_find(struct an *an, const char *name, int *nfound)
{
	uint32_t found = UINT32_MAX;
	size_t i;

	*nfound = 0;
	for (i = 0; i < an->funcs.n; i++) {
		struct an_func *f = &AN_VEC(an->funcs, struct an_func, i);

		if (strcmp(f->name, name) && strcmp(f->lname, name))
			continue;
		if (found == UINT32_MAX)
			found = i;
		(*nfound)++;
	}
	return found;
}

int an_view_fsingle(struct an *an, const struct an_settings *vs, struct an_out *o,
		    const char *name)
{
	struct an_agg g;
	struct an_flat f;
	struct an_mlist ml = { 0 };
	struct an_func *fn;
	const char *file = NULL;
	int nf, err, k, line;
	uint32_t id = an_func_find(an, name, &nf);

	if (id == UINT32_MAX)
		return an_errf(an, -ENOENT, "no function named '%s'", name);
	err = an_aggregate(an, vs->filter, &g);
	if (err)
		return err;
	err = an_flat(an, &g, AN_K_FUNC, &f);
	if (err) {
		an_agg_free(&g);
		return err;
	}
	err = an_cols_effective(an, vs, &g, &ml, false);
	if (err)
		goto out;
	fn = &AN_VEC(an->funcs, struct an_func, id);
	fprintf(o->f, "%s\n", an_func_name(an, id, vs->name_long));
	for (k = 0; k < ml.n; k++) {
		const struct an_mcol *c = &ml.c[k];
		const uint64_t *v = (c->flavor == 'e' ? f.excl : f.incl) + id * f.nb;
		char label[160], buf[64];
		double x, tx;

		if (c->flavor == 's')
			continue;
		x = an_metric_val(an, c->m, v);
		tx = an_metric_val(an, c->m, g.total);
		an_fmt_num(buf, sizeof(buf), an_metric_cell(an, c->m), x);
		snprintf(label, sizeof(label), "%s %s",
			 c->flavor == 'e' ? "Exclusive" : "Inclusive",
			 an_metric_title(an, c->m));
		fprintf(o->f, "  %40s: %s (%.2f%%)\n", label, buf,
			tx > 0 ? 100 * x / tx : 0.0);
	}
	fprintf(o->f, "  %40s: %" PRIu64 "\n", "Size", fn->size);
	fprintf(o->f, "  %40s: %d:0x%08" PRIx64 "\n", "PC Address",
		AN_VEC(an->objs, struct an_obj, fn->obj).num, fn->addr);
	if (!an_func_src(an, id, &file, &line))
		fprintf(o->f, "  %40s: %s\n", "Source File", file);
	fprintf(o->f, "  %40s: %s\n", "Load Object",
		AN_VEC(an->objs, struct an_obj, fn->obj).path);
	if (strcmp(fn->name, fn->lname))
		fprintf(o->f, "  %40s: %s\n", "Long Name", fn->lname);
	if (nf > 1)
		fprintf(o->f, "  (%d functions have this name; this is the first)\n",
			nf);
out:
	an_mlist_free(&ml);
	an_flat_free(&f);
	an_agg_free(&g);
	return err;
}
