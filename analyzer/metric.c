// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: Table A's timing metrics, each on its own, with er_print's
 * keywords; one metric per counter (cycles as time when log.txt knows the
 * clock rate); and the static metrics name, size and address.  A metric
 * list is er_print's spec: FLAVORS VISIBILITY NAME joined by ':', flavors
 * e (exclusive), i (inclusive), a (attributed), visibility '.' (value),
 * '%' (percentage), '!' (hidden), e.g. "e.%user:i.user:a.lock:name".
 */
#include <errno.h>
#include <string.h>

#include "an.h"
#include "compute.h"

static const struct {
	const char *kw, *title;
	uint32_t mask;
} fixed[AN_M_NFIXED] = {
	[AN_M_TOTAL] = { "total", "Total Thread Time", 0x3ff },
	[AN_M_TOTALCPU] = { "totalcpu", "Total CPU Time", 0x7 },
	[AN_M_USER] = { "user", "User CPU Time", 1 << LWPROF_MS_USER },
	[AN_M_SYSTEM] = { "system", "System CPU Time", 1 << LWPROF_MS_SYSTEM },
	[AN_M_TRAP] = { "trap", "Trap CPU Time", 1 << LWPROF_MS_TRAP },
	[AN_M_TEXTPF] = { "textpfault", "Text Page Fault Time",
			  1 << LWPROF_MS_TFAULT },
	[AN_M_DATAPF] = { "datapfault", "Data Page Fault Time",
			  1 << LWPROF_MS_DFAULT },
	[AN_M_KERNELPF] = { "kernelpfault", "Kernel Page Fault Time",
			    1 << LWPROF_MS_KFAULT },
	[AN_M_LOCK] = { "lock", "User Lock Time", 1 << LWPROF_MS_USER_LOCK },
	[AN_M_SLEEP] = { "sleep", "Sleep Time", 1 << LWPROF_MS_SLEEP },
	[AN_M_STOP] = { "stop", "Stopped Time", 1 << LWPROF_MS_STOPPED },
	[AN_M_WAIT] = { "wait", "Wait CPU Time", 1 << LWPROF_MS_WAIT_CPU },
	[AN_M_WALL] = { "wall", "Wall Time", 1 << AN_BM_WALL },
};

int an_metric_count(struct an *an)
{
	return AN_M_NFIXED + an->nctr;
}

const char *an_metric_kw(struct an *an, int m)
{
	if (m == AN_M_NAME)
		return "name";
	if (m == AN_M_SIZE)
		return "size";
	if (m == AN_M_ADDRESS)
		return "address";
	return m < AN_M_NFIXED ? fixed[m].kw : an->ctr_names[m - AN_M_NFIXED];
}

const char *an_metric_title(struct an *an, int m)
{
	static char buf[AN_MAX_COUNTERS][96];
	int k;

	if (m == AN_M_NAME)
		return "Name";
	if (m == AN_M_SIZE)
		return "Size";
	if (m == AN_M_ADDRESS)
		return "PC Addr.";
	if (m < AN_M_NFIXED)
		return fixed[m].title;
	k = m - AN_M_NFIXED;
	snprintf(buf[k], sizeof(buf[k]), "%s %s", an->ctr_names[k],
		 an->ctr_mhz[k] > 0 ? "Time" : "Events");
	return buf[k];
}

bool an_metric_is_time(struct an *an, int m)
{
	return m < AN_M_NFIXED || an->ctr_mhz[m - AN_M_NFIXED] > 0;
}

uint64_t an_metric_raw(struct an *an, int m, const uint64_t *base)
{
	uint32_t mask;
	uint64_t v = 0;

	if (m >= AN_M_NFIXED)
		return base[AN_BM_CTR0 + m - AN_M_NFIXED];
	for (mask = fixed[m].mask; mask; mask &= mask - 1)
		v += base[__builtin_ctz(mask)];
	return v;
}

/* Seconds for time metrics, events for the others. */
double an_metric_val(struct an *an, int m, const uint64_t *base)
{
	uint64_t v = an_metric_raw(an, m, base);
	int k = m - AN_M_NFIXED;

	if (m < AN_M_NFIXED)
		return v / 1e9;
	return an->ctr_mhz[k] > 0 ? v / (an->ctr_mhz[k] * 1e6) : (double)v;
}

static int metric_by_kw(struct an *an, const char *kw)
{
	int m;

	if (!strcmp(kw, "name"))
		return AN_M_NAME;
	if (!strcmp(kw, "size"))
		return AN_M_SIZE;
	if (!strcmp(kw, "address"))
		return AN_M_ADDRESS;
	for (m = 0; m < an_metric_count(an); m++)
		if (!strcmp(kw, an_metric_kw(an, m)))
			return m;
	return -1;
}

static int add_col(struct an_mlist *l, char fl, bool value, bool pct, int m)
{
	if (l->n >= AN_MAX_COLS)
		return -E2BIG;
	l->c[l->n++] = (struct an_mcol){ fl, value, pct, m };
	return 0;
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

		m = metric_by_kw(an, tok);
		if (m >= AN_M_NAME) {
			if (add_col(l, 's', true, false, m))
				return an_errf(an, -E2BIG, "too many metrics");
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
		m = metric_by_kw(an, p);
		if (!nf || m < 0 || m >= AN_M_NAME)
			return an_errf(an, -EINVAL,
				       "'%s': not a metric (FLAVOR[.%%]NAME, e.g. e.user; see metric_list)",
				       tok);
		if (hide)
			continue;
		for (i = 0; i < nf; i++)
			if (add_col(l, fl[i], value, pct, m))
				return an_errf(an, -E2BIG, "too many metrics");
	}
	return 0;
}

int an_msort_parse(struct an *an, const char *spec, struct an_msort *s)
{
	const char *p = spec;
	char fl = 'e';
	int m;

	if (*p == 'e' || *p == 'i' || *p == 'a') {
		if (metric_by_kw(an, p) < 0) {
			fl = *p++;
			while (*p == '.' || *p == '%')
				p++;
		}
	}
	m = metric_by_kw(an, p);
	if (m < 0)
		return an_errf(an, -EINVAL, "'%s': not a metric to sort by", spec);
	s->flavor = m == AN_M_NAME ? 's' : fl;
	s->m = m;
	return 0;
}

/* The timing metrics that have data, and every counter. */
void an_mlist_default(struct an *an, const struct an_agg *g, struct an_mlist *l)
{
	int states[AN_M_NFIXED], ns = 0, m, i;

	l->n = 0;
	for (m = AN_M_USER; m <= AN_M_WAIT; m++)
		if (an_metric_raw(an, m, g->total))
			states[ns++] = m;
	if (ns == 1) {
		add_col(l, 'e', true, true, states[0]);
		add_col(l, 'i', true, true, states[0]);
	} else if (ns > 1) {
		add_col(l, 'e', true, true, AN_M_TOTAL);
		add_col(l, 'i', true, true, AN_M_TOTAL);
		for (i = 0; i < ns; i++)
			add_col(l, 'e', true, false, states[i]);
	}
	for (m = AN_M_NFIXED; m < an_metric_count(an); m++) {
		add_col(l, 'e', true, true, m);
		add_col(l, 'i', true, true, m);
	}
	if (!l->n) {	/* no data at all: still a useful header */
		add_col(l, 'e', true, true, AN_M_TOTAL);
		add_col(l, 'i', true, true, AN_M_TOTAL);
	}
	add_col(l, 's', true, false, AN_M_NAME);
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
		fprintf(f, "  %-14s %s (%s)\n", an_metric_kw(an, m),
			an_metric_title(an, m),
			an_metric_is_time(an, m) ? "sec." : "events");
	fprintf(f, "  %-14s %s\n  %-14s %s\n  %-14s %s\n", "name", "Name",
		"size", "Size (bytes)", "address", "PC Address (object:offset)");
}
