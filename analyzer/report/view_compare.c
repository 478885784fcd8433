// SPDX-License-Identifier: GPL-2.0
/*
 * -compare on|delta|ratio|off, as er_print and gprofng do it: with
 * several experiments, the flat views (-functions, -objects, -lines,
 * -pcs), -callers-callees/-csingle and -calltree (view_cc.c: a function's
 * rows, edges or paths are those of any experiment, each column's values
 * one experiment's) show each metric column once per experiment, side by
 * side, the first (the base) as values, the others as values (on), as
 * differences from the base (delta: +0.010) or as ratios to it (ratio:
 * x1.333; x1.000 when both are zero, x>99.999 when only the base is).
 * Each column's percentage is of its own experiment's <Total>.  Rows are
 * the items of any experiment, sorted by the base's values; a column's
 * title starts with its experiment's name.  The samples of each
 * experiment are summed on their own (an_aggregate_exp); the filters
 * apply to all.  In the flat views items are matched by name (a function
 * by its name and its load object's base name), so a function of two
 * builds of a program (two objects with different build ids) is one row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

int an_cmp_parse(struct an *an, const char *arg, int *mode)
{
	static const char *const modes[] = { "off", "on", "delta", "ratio" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(arg, modes[i])) {
			*mode = i;
			return 0;
		}
	return an_errf(an, -EINVAL, "compare '%s': on, off, delta or ratio", arg);
}

int an_cmp_groups(struct an *an, const struct an_settings *vs)
{
	return vs->compare != AN_CMP_OFF && an->exps.n > 1 ? (int)an->exps.n : 1;
}

static int retitle(struct an_col *c, const char *exp, const char *unit)
{
	char *h1, *h2 = NULL;

	if (asprintf(&h1, "%s %s", exp, c->head1) < 0)
		return -ENOMEM;
	if (unit && !(h2 = strdup(unit))) {
		free(h1);
		return -ENOMEM;
	}
	free(c->head1);
	c->head1 = h1;
	if (h2) {
		free(c->head2);
		c->head2 = h2;
	}
	return 0;
}

/* Experiment k's name as given, without trailing slashes; its base name. */
static const char *exp_name(struct an *an, uint32_t k, char *buf, size_t len)
{
	const char *s;
	size_t l;

	snprintf(buf, len, "%s", AN_VEC(an->exps, struct an_exp, k).name);
	for (l = strlen(buf); l > 1 && buf[l - 1] == '/'; l--)
		buf[l - 1] = 0;
	s = strrchr(buf, '/');
	return s && s[1] ? s + 1 : buf;
}

/*
 * Experiment k's title: its base name (test.1.er, not a/b/test.1.er/),
 * or its name as given when another experiment has the same base name.
 */
static void exp_title(struct an *an, uint32_t k, char *buf, size_t len)
{
	char other[256];
	const char *base = exp_name(an, k, buf, len);
	size_t i;

	for (i = 0; i < an->exps.n; i++)
		if (i != k && !strcmp(exp_name(an, i, other, sizeof(other)), base))
			return;
	memmove(buf, base, strlen(base) + 1);
}

int an_cmp_heads(struct an *an, const struct an_settings *vs,
		 struct an_mlist *ml, struct an_table *t)
{
	int ng = an_cmp_groups(an, vs), i, k, err;
	struct an_mlist x = { 0 };

	for (i = 0; i < ml->n; i++)
		for (k = 0; k < (ml->c[i].flavor == 's' ? 1 : ng); k++) {
			if (an_mlist_add(&x, ml->c[i].flavor, ml->c[i].value,
					 ml->c[i].pct, ml->c[i].m)) {
				an_mlist_free(&x);
				return -ENOMEM;
			}
			x.c[x.n - 1].grp = k;
		}
	an_mlist_free(ml);
	*ml = x;
	if (an_make_heads(an, ml, t))
		return -ENOMEM;
	for (i = 0; i < ml->n; i++) {
		const struct an_mcol *c = &ml->c[i];
		const char *unit = NULL;
		char exp[256];

		if (c->flavor == 's')
			continue;
		exp_title(an, c->grp, exp, sizeof(exp));
		if (c->grp && vs->compare == AN_CMP_DELTA)
			unit = "delta";
		else if (c->grp && vs->compare == AN_CMP_RATIO)
			unit = "ratio";
		err = 0;
		if (c->value)
			err = retitle(&t->cols[c->col], exp, unit);
		if (c->pct && !err)
			err = retitle(&t->cols[c->col + c->value], exp, NULL);
		if (err)
			return err;
	}
	return 0;
}

void an_cmp_row(struct an *an, const struct an_settings *vs,
		const struct an_mlist *ml, struct an_table *t, size_t row,
		const struct an_agg *g, const struct an_cmp_vals *v,
		const char *name, uint64_t size, const char *addr)
{
	int i;

	/* the statics; the metric columns are blank with no values */
	an_fill_row(an, ml, t, row, NULL, NULL, NULL, g[0].total, name, size,
		    addr);
	for (i = 0; i < ml->n; i++) {
		const struct an_mcol *c = &ml->c[i];
		const struct an_cmp_vals *x = &v[c->grp], *b = &v[0];
		const uint64_t *xv, *bv;
		double val, base, tx;
		int col = c->col, kind;

		if (c->flavor == 's')
			continue;
		xv = c->flavor == 'e' ? x->e : c->flavor == 'i' ? x->i : x->a;
		bv = c->flavor == 'e' ? b->e : c->flavor == 'i' ? b->i : b->a;
		val = xv ? an_metric_val(an, c->m, xv) : 0;
		base = bv ? an_metric_val(an, c->m, bv) : 0;
		tx = an_metric_val(an, c->m, g[c->grp].total);
		kind = an_metric_cell(an, c->m);
		if (c->value) {
			double shown = val;

			if (c->grp && vs->compare == AN_CMP_DELTA) {
				shown = val - base;
				kind = kind == AN_C_TIME ? AN_C_DTIME : AN_C_DCOUNT;
			} else if (c->grp && vs->compare == AN_CMP_RATIO) {
				shown = base > 0 ? val / base : val > 0 ? 1e9 : 1.0;
				kind = AN_C_RATIO;
			}
			an_table_num(t, row, col++, kind, shown);
		}
		if (c->pct)
			an_table_num(t, row, col, AN_C_PCT,
				     tx > 0 ? 100.0 * val / tx : 0.0);
	}
}

int an_cmp_merge(struct an *an, struct an_flat *f, int ng,
		 const char *(*key)(void *ctx, uint32_t k), void *ctx)
{
	struct an_strtab keys = { 0 };
	struct an_vec first = { .esz = sizeof(uint32_t) };
	size_t k, nb = f[0].nb, b;
	uint32_t id, into;
	int x, err = 0;

	for (k = 0; k < f[0].n && !err; k++) {
		bool seen = false;

		for (x = 0; x < ng; x++)
			seen |= f[x].seen[k];
		if (!seen)
			continue;
		id = an_str_intern(&keys, key(ctx, k));
		if (id == UINT32_MAX || an_vec_grow(&first, keys.s.n)) {
			err = an_errf(an, -ENOMEM, "out of memory");
			break;
		}
		if (id == first.n) {
			AN_VEC(first, uint32_t, first.n++) = k;
			continue;
		}
		/* a later item of the same name: its values go to the first */
		into = AN_VEC(first, uint32_t, id);
		for (x = 0; x < ng; x++) {
			for (b = 0; b < nb; b++) {
				f[x].excl[into * nb + b] += f[x].excl[k * nb + b];
				f[x].incl[into * nb + b] += f[x].incl[k * nb + b];
			}
			f[x].seen[into] |= f[x].seen[k];
			f[x].seen[k] = 0;
		}
	}
	an_str_free(&keys);
	free(first.p);
	return err;
}
