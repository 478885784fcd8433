// SPDX-License-Identifier: GPL-2.0
/*
 * A view's metric columns (report.h): the columns a metric list makes of
 * the experiments' metrics, their two-line heads, and a row's cells from
 * the base vectors of its exclusive, inclusive and attributed sums.
 * Every table of metrics is filled through these.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/report/report.h"

static void short_title(char *buf, size_t len, const char *title)
{
	size_t l;

	snprintf(buf, len, "%s", title);
	l = strlen(buf);
	if (l > 5 && !strcmp(buf + l - 5, " Time"))
		buf[l - 5] = 0;
}

/* How a metric's values are shown. */
int an_metric_cell(struct an *an, int m)
{
	if (an_metric_absent(an, m))
		return AN_C_ABSENT;
	return an_metric_is_time(an, m) ? AN_C_TIME : AN_C_COUNT;
}

/*
 * The metric list in effect (out starts empty; the caller frees it):
 * -metrics, else the defaults for this data.
 */
int an_cols_effective(struct an *an, const struct an_settings *vs,
		      const struct an_agg *g, struct an_mlist *out,
		      bool attributed)
{
	int i, err;

	err = vs->ml.n ? an_mlist_copy(out, &vs->ml) : an_mlist_default(an, g, out);
	if (err)
		return an_errf(an, err, "out of memory");
	if (!attributed) {
		int k = 0;

		for (i = 0; i < out->n; i++)
			if (out->c[i].flavor != 'a')
				out->c[k++] = out->c[i];
		out->n = k;
	}
	for (i = 0; i < out->n; i++)
		if (out->c[i].flavor == 's' && out->c[i].m == AN_M_NAME)
			return 0;
	if (an_mlist_add(out, 's', true, false, AN_M_NAME))
		return an_errf(an, -ENOMEM, "out of memory");
	return 0;
}

static const char *flavor_head(char flavor)
{
	return flavor == 'e' ? "Excl." : flavor == 'i' ? "Incl." : "Attr.";
}

/*
 * One table column per value or percentage of each metric column, one
 * per static; each metric column learns its first table column.
 */
int an_make_heads(struct an *an, struct an_mlist *ml, struct an_table *t)
{
	int i, n = 0;

	for (i = 0; i < ml->n; i++) {
		struct an_mcol *c = &ml->c[i];

		c->col = n;
		n += c->flavor == 's' ? 1 : c->value + c->pct;
	}
	if (an_table_init(t, n))
		return -ENOMEM;
	for (i = 0; i < ml->n; i++) {
		const struct an_mcol *c = &ml->c[i];
		char h1[128], st[96];
		int col = c->col;

		if (c->flavor == 's') {
			if (an_table_head(t, col, an_metric_title(an, c->m), "",
					  c->m == AN_M_NAME))
				return -ENOMEM;
			continue;
		}
		short_title(st, sizeof(st), an_metric_title(an, c->m));
		snprintf(h1, sizeof(h1), "%s %s", flavor_head(c->flavor), st);
		if (c->value && an_table_head(t, col++, h1,
					      an_metric_unit_name(an, c->m), false))
			return -ENOMEM;
		if (c->pct && an_table_head(t, col, h1, "%", false))
			return -ENOMEM;
	}
	return 0;
}

void an_fill_row(struct an *an, const struct an_mlist *ml, struct an_table *t,
		 size_t row, const uint64_t *e,
		 const uint64_t *i, const uint64_t *a, const uint64_t *tot,
		 const char *name, uint64_t size, const char *addr)
{
	int k;

	for (k = 0; k < ml->n; k++) {
		const struct an_mcol *c = &ml->c[k];
		const uint64_t *v = c->flavor == 'e' ? e : c->flavor == 'i' ? i : a;
		int col = c->col;
		double x, tx;

		if (c->flavor == 's') {
			if (c->m == AN_M_NAME)
				an_table_text(t, row, col, "%s", name);
			else if (!addr)
				;	/* blank */
			else if (c->m == AN_M_SIZE)
				an_table_int(t, row, col, size);
			else
				an_table_text(t, row, col, "%s", addr);
			continue;
		}
		if (!v)
			continue;
		x = an_metric_val(an, c->m, v);
		tx = an_metric_val(an, c->m, tot);
		if (c->value)
			an_table_num(t, row, col++, an_metric_cell(an, c->m), x);
		if (c->pct)
			an_table_num(t, row, col, an_metric_absent(an, c->m) ?
				     AN_C_ABSENT : AN_C_PCT,
				     tx > 0 ? 100.0 * x / tx : 0.0);
	}
}
