// SPDX-License-Identifier: GPL-2.0
/*
 * Spans: the sample points of an experiment (the packets of samples.rec,
 * load/points.c) divide its run into spans, what er_print calls samples;
 * the points' PAUSE/RESUME (and END) kinds give the paused windows, whose
 * time is in no metric.  Without points (an older experiment), a span is
 * each second of the run, as Oracle's collector records samples by
 * default.  Every span has a number from 1 in its experiment;
 * -sample_select and the SAMPLE filter field select by it, -sample_list
 * and -overview show them (report/view_info.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"

#define GRID_NS		1000000000ULL	/* no packets: a sample a second */
#define GRID_MAX	1000000		/* samples per experiment at most */

uint64_t an_unpaused(const struct an_exp *e, uint64_t t0, uint64_t t1)
{
	uint64_t in = 0, lo, hi;
	size_t i;

	for (i = 0; i < e->pauses.n; i++) {
		const uint64_t *w = (const uint64_t *)e->pauses.p + 2 * i;

		if (w[0] >= t1)
			break;
		lo = w[0] > t0 ? w[0] : t0;
		hi = w[1] < t1 ? w[1] : t1;
		if (hi > lo)
			in += hi - lo;
	}
	return t1 - t0 - in;
}

/* The run of experiment ex as its log says, else as its packets do. */
static void run_span(struct an *an, uint32_t ex, uint64_t *start,
		     uint64_t *end)
{
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, ex);
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < an->s.n; i++) {
		if (AN_VEC(an->threads, struct an_thread, an->s.thr[i]).exp != ex)
			continue;
		if (an->s.time[i] < lo)
			lo = an->s.time[i];
		if (an->s.time[i] > hi)
			hi = an->s.time[i];
	}
	*start = e->log->start_ns || lo == UINT64_MAX ? e->log->start_ns : lo;
	*end = e->log->end_ns > *start ? e->log->end_ns : hi > *start ? hi : *start;
}

static struct an_span *span_push(struct an *an, uint32_t ex, uint64_t start,
			       uint64_t end, int32_t gb, int32_t ge)
{
	struct an_span *s = an_vec_push(&an->spans);

	if (s)
		*s = (struct an_span){ ex, an->spans.n - an->span_first[ex], start,
				      end, gb, ge };
	return s;
}

/* Experiment ex's samples: between its packets, or its seconds. */
static int build_exp(struct an *an, uint32_t ex)
{
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, ex);
	uint64_t start, end, n, k;
	size_t i;

	if (e->gs.n >= 2) {
		for (i = 1; i < e->gs.n; i++)
			if (!span_push(an, ex, AN_VEC(e->gs, struct an_gs, i - 1).time,
				      AN_VEC(e->gs, struct an_gs, i).time,
				      i - 1, i))
				return -ENOMEM;
		return 0;
	}
	run_span(an, ex, &start, &end);
	n = (end - start + GRID_NS - 1) / GRID_NS;
	n = n < 1 ? 1 : n > GRID_MAX ? GRID_MAX : n;
	for (k = 0; k < n; k++)
		if (!span_push(an, ex, start + k * GRID_NS,
			      k + 1 == n ? end : start + (k + 1) * GRID_NS, -1, -1))
			return -ENOMEM;
	return 0;
}

/* The sample of experiment ex holding time t (the first or the last). */
static uint32_t span_find(struct an *an, uint32_t ex, uint64_t t)
{
	uint32_t lo = an->span_first[ex], hi = an->span_first[ex + 1];

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (AN_VEC(an->spans, struct an_span, mid).start <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int an_spans_build(struct an *an)
{
	uint32_t ex;
	size_t i;

	if (an->span_of)
		return 0;
	an->spans.esz = sizeof(struct an_span);
	an->span_first = calloc(an->exps.n + 1, sizeof(uint32_t));
	an->span_of = malloc((an->s.n + 1) * sizeof(uint32_t));
	if (!an->span_first || !an->span_of)
		goto oom;
	for (ex = 0; ex < an->exps.n; ex++) {
		an->span_first[ex] = an->spans.n;
		if (build_exp(an, ex))
			goto oom;
	}
	an->span_first[ex] = an->spans.n;
	for (i = 0; i < an->s.n; i++)
		an->span_of[i] = span_find(an, AN_VEC(an->threads, struct an_thread,
						    an->s.thr[i]).exp,
					 an->s.time[i]);
	return 0;
oom:
	an_spans_free(an);
	return an_errf(an, -ENOMEM, "out of memory");
}

void an_spans_free(struct an *an)
{
	free(an->spans.p);
	free(an->span_first);
	free(an->span_of);
	memset(&an->spans, 0, sizeof(an->spans));
	an->span_first = an->span_of = NULL;
}
