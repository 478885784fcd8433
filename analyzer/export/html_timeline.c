// SPDX-License-Identifier: GPL-2.0
/*
 * The html page's timeline data: per thread, the samples that pass the
 * filter and carry microstate (or CPU idle) time, in time order.  Per
 * thread: "ts", the first sample's time since the earliest experiment's
 * start, then each one's distance from the one before (ns); "s", its
 * stack (the page's call-tree node); "m", its time per state: a count k,
 * then k codes ns * 16 + state (0-9 the microstates, LWPROF_MS_*, 10 idle).
 * The page lays each sample's states out just before its time (a packet
 * carries the states since the thread's last one).  Counter-only samples
 * have no interval and are left to the flame graph and the tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/html.h"
#include "analyzer/report/report.h"

#define TL_IDLE LWPROF_MS_COUNT

struct tl {
	struct an *an;
	int8_t *state;		/* per base: its timeline state, or -1 */
	uint32_t *idx;		/* selected samples, grouped by thread */
	uint64_t *off;		/* per sample: its first value in an->s.vals */
	size_t *first;		/* per thread: its samples in idx[] */
};

static int by_time(const void *a, const void *b, void *ctx)
{
	const uint64_t *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (t[x] != t[y])
		return t[x] < t[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Select, group by thread (counting sort), order each thread's by time. */
static int tl_select(struct tl *t, const struct an_settings *set)
{
	struct an *an = t->an;
	size_t n = an->s.n, nt = an->threads.n, i, nsel = 0;
	uint64_t off = 0;
	uint8_t *sel;

	t->state = malloc(an->bases.n + 1);
	t->off = malloc((n + 1) * sizeof(*t->off));
	t->first = calloc(nt + 2, sizeof(*t->first));
	sel = calloc(n + 1, 1);
	if (!t->state || !t->off || !t->first || !sel) {
		free(sel);
		return -ENOMEM;
	}
	for (i = 0; i < an->bases.n; i++) {
		const struct an_base *b = &AN_VEC(an->bases, struct an_base, i);

		t->state[i] = b->kind == AN_B_MSTATE ? (int8_t)b->idx :
			      b->kind == AN_B_IDLE ? TL_IDLE : -1;
	}
	for (i = 0; i < n; i++) {
		const uint32_t *l = an_layout(an, an->s.layout[i]);
		uint32_t j;

		t->off[i] = off;
		off += l[0];
		for (j = 1; j <= l[0] && t->state[l[j]] < 0; j++)
			;
		if (j > l[0] || (set->filter && !an_filter_pass(an, set->filter, i)))
			continue;
		sel[i] = 1;
		t->first[an->s.thr[i] + 2]++;
		nsel++;
	}
	t->idx = malloc((nsel + 1) * sizeof(*t->idx));
	if (!t->idx) {
		free(sel);
		return -ENOMEM;
	}
	for (i = 2; i < nt + 2; i++)
		t->first[i] += t->first[i - 1];
	for (i = 0; i < n; i++)
		if (sel[i])
			t->idx[t->first[an->s.thr[i] + 1]++] = i;
	free(sel);
	for (i = 0; i < nt; i++)
		qsort_r(t->idx + t->first[i], t->first[i + 1] - t->first[i],
			sizeof(*t->idx), by_time, an->s.time);
	return 0;
}

static void tl_thread(struct tl *t, uint32_t th, const uint32_t *of_node,
		      const uint32_t *page_node, FILE *o)
{
	struct an *an = t->an;
	const struct an_thread *r = &AN_VEC(an->threads, struct an_thread, th);
	size_t a = t->first[th], b = t->first[th + 1], i;
	uint64_t prev = an->tmin;

	fprintf(o, "{\"i\":%u,\"e\":%u,\"p\":%u,\"t\":%u,\"n\":%" PRIu64 ",\"c\":",
		th + 1, r->exp + 1, r->pid, r->tid, r->nsamples);
	html_json_str(o, r->comm[0] ? r->comm : "?");
	fprintf(o, ",\"ts\":[");
	for (i = a; i < b; i++) {
		uint64_t tm = an->s.time[t->idx[i]];

		tm = tm > prev ? tm : prev;	/* before tmin: at it */
		html_num(o, i > a, tm - prev);
		prev = tm;
	}
	fprintf(o, "],\"s\":[");
	for (i = a; i < b; i++) {
		uint32_t nd = an->s.stack[t->idx[i]];
		uint32_t pn = nd < an->nodes.n ? page_node[of_node[nd]] : UINT32_MAX;

		html_id(o, i > a, pn);
	}
	fprintf(o, "],\"m\":[");
	for (i = a; i < b; i++) {
		uint32_t s = t->idx[i], j, k = 0;
		const uint32_t *l = an_layout(an, an->s.layout[s]);
		const uint64_t *v = an->s.vals + t->off[s];

		for (j = 1; j <= l[0]; j++)
			k += t->state[l[j]] >= 0 && v[j - 1];
		html_num(o, i > a, k);
		for (j = 1; j <= l[0]; j++)
			if (t->state[l[j]] >= 0 && v[j - 1])
				html_num(o, true, v[j - 1] * 16 + t->state[l[j]]);
	}
	fprintf(o, "]}");
}

int html_threads(struct an *an, const struct an_settings *set,
		 const uint32_t *of_node, const uint32_t *page_node, FILE *o)
{
	struct tl t = { .an = an };
	size_t th;
	int err;

	err = tl_select(&t, set);
	if (!err) {
		fprintf(o, ",\"threads\":[");
		for (th = 0; th < an->threads.n; th++) {
			if (th)
				fputc(',', o);
			tl_thread(&t, th, of_node, page_node, o);
		}
		fputc(']', o);
	} else {
		err = an_errf(an, -ENOMEM, "out of memory");
	}
	free(t.state);
	free(t.idx);
	free(t.off);
	free(t.first);
	return err;
}
