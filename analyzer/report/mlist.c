// SPDX-License-Identifier: GPL-2.0
/*
 * Metric lists: the columns a view shows (-metrics SPEC, its defaults),
 * the sort key (-sort), and -metric_list, over the registry's metrics
 * (model/metric.c).  A metric list is er_print's spec: FLAVORS VISIBILITY
 * NAME joined by ':', flavors e (exclusive), i (inclusive), a
 * (attributed), visibility '.' (value), '%' (percentage), '!' (hidden),
 * e.g. "e.%user:i.user:a.lock:name".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

int an_mlist_add(struct an_mlist *l, char flavor, bool value, bool pct, int m)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		struct an_mcol *c = realloc(l->c, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		l->c = c;
		l->cap = cap;
	}
	l->c[l->n++] = (struct an_mcol){ flavor, value, pct, m, 0, 0 };
	return 0;
}

int an_mlist_copy(struct an_mlist *dst, const struct an_mlist *src)
{
	int i;

	dst->n = 0;
	for (i = 0; i < src->n; i++)
		if (an_mlist_add(dst, src->c[i].flavor, src->c[i].value,
				 src->c[i].pct, src->c[i].m))
			return -ENOMEM;
	return 0;
}

void an_mlist_free(struct an_mlist *l)
{
	free(l->c);
	memset(l, 0, sizeof(*l));
}

int an_mlist_parse(struct an *an, const char *spec, struct an_mlist *l)
{
	char buf[1024], *tok, *save = NULL;

	if (strlen(spec) >= sizeof(buf))
		return an_errf(an, -EINVAL, "metric list too long");
	strcpy(buf, spec);
	l->n = 0;
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char fl[4] = "", *p = tok;
		bool value = false, pct = false, hide = false;
		int nf = 0, m, i;

		m = an_metric_lookup(an, tok);
		if (m >= AN_M_NAME) {
			if (an_mlist_add(l, 's', true, false, m))
				return an_errf(an, -ENOMEM, "out of memory");
			continue;
		}
		while (*p == 'e' || *p == 'i' || *p == 'a') {
			if (nf == 3)
				break;
			fl[nf++] = *p++;
		}
		while (*p == '.' || *p == '%' || *p == '!' || *p == '+') {
			value |= *p == '.' || *p == '+';
			pct |= *p == '%' || *p == '+';
			hide |= *p == '!';
			p++;
		}
		if (!value && !pct)
			value = true;
		m = an_metric_lookup(an, p);
		if (!nf || m < 0 || m >= AN_M_NAME)
			return an_errf(an, -EINVAL,
				       "'%s': not a metric (FLAVOR[.%%]NAME, e.g. e.user; see metric_list)",
				       tok);
		if (hide)
			continue;
		for (i = 0; i < nf; i++)
			if (an_mlist_add(l, fl[i], value, pct, m))
				return an_errf(an, -ENOMEM, "out of memory");
	}
	return 0;
}

int an_msort_parse(struct an *an, const char *spec, struct an_msort *s)
{
	const char *p = spec;
	char fl = 'e';
	int m;

	if (*p == 'e' || *p == 'i' || *p == 'a') {
		if (an_metric_lookup(an, p) < 0) {
			fl = *p++;
			while (*p == '.' || *p == '%')
				p++;
		}
	}
	m = an_metric_lookup(an, p);
	if (m < 0)
		return an_errf(an, -EINVAL, "'%s': not a metric to sort by", spec);
	s->flavor = m == AN_M_NAME ? 's' : fl;
	s->m = m;
	return 0;
}

/* The microstate metrics that have data, and the metrics always shown. */
int an_mlist_default(struct an *an, const struct an_agg *g, struct an_mlist *l)
{
	int n = an_metric_count(an), ns = 0, m, first = -1, err = 0;

	l->n = 0;
	for (m = 0; m < n; m++)
		if ((an_metric_flags(an, m) & AN_MF_STATE) &&
		    an_metric_raw(an, m, g->total) && !ns++)
			first = m;
	if (ns == 1) {
		err |= an_mlist_add(l, 'e', true, true, first);
		err |= an_mlist_add(l, 'i', true, true, first);
	} else if (ns > 1) {
		err |= an_mlist_add(l, 'e', true, true, AN_M_TOTAL);
		err |= an_mlist_add(l, 'i', true, true, AN_M_TOTAL);
		for (m = 0; m < n; m++)
			if ((an_metric_flags(an, m) & AN_MF_STATE) &&
			    an_metric_raw(an, m, g->total))
				err |= an_mlist_add(l, 'e', true, false, m);
	}
	for (m = 0; m < n; m++)
		if ((an_metric_flags(an, m) & AN_MF_ALWAYS) ||
		    ((an_metric_flags(an, m) & AN_MF_TRACE) &&
		     an_metric_raw(an, m, g->total))) {
			err |= an_mlist_add(l, 'e', true, true, m);
			err |= an_mlist_add(l, 'i', true, true, m);
		}
	if (!l->n) {	/* no data at all: still a useful header */
		err |= an_mlist_add(l, 'e', true, true, AN_M_TOTAL);
		err |= an_mlist_add(l, 'i', true, true, AN_M_TOTAL);
	}
	err |= an_mlist_add(l, 's', true, false, AN_M_NAME);
	return err ? -ENOMEM : 0;
}

void an_mlist_print(struct an *an, FILE *f, const struct an_mlist *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		const struct an_mcol *c = &l->c[i];

		if (c->flavor == 's')
			fprintf(f, "%s%s", i ? ":" : "", an_metric_kw(an, c->m));
		else
			fprintf(f, "%s%c%s%s%s", i ? ":" : "", c->flavor,
				c->value ? "." : "", c->pct ? "%" : "",
				an_metric_kw(an, c->m));
	}
	fputc('\n', f);
}

void an_metric_list_help(struct an *an, FILE *f)
{
	int m;

	fprintf(f, "Available metrics (FLAVOR: e exclusive, i inclusive, a attributed;\n"
		   "VISIBILITY: . value, %% percentage, ! hidden):\n");
	for (m = 0; m < an_metric_count(an); m++)
		if (an_metric_present(an, m))
			fprintf(f, "  %-14s %s (%s)\n", an_metric_kw(an, m),
				an_metric_title(an, m),
				an_metric_unit_name(an, m));
	fprintf(f, "  %-14s %s\n  %-14s %s\n  %-14s %s\n", "name", "Name",
		"size", "Size (bytes)", "address", "PC Address (object:offset)");
}
