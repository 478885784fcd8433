// SPDX-License-Identifier: GPL-2.0
/*
 * Global samples (seed 000, "global (sample) data"): the packets of
 * samples.rec (format 1.4) divide each experiment's run into samples, the
 * spans between two sample points; the packets' PAUSE/RESUME (and END)
 * kinds give the paused windows, whose time is in no metric.  Without
 * packets (an older experiment), a sample is each second of the run, as
 * Oracle's collector records them by default.  Every sample has a number
 * from 1 in its experiment; -sample_select and the SAMPLE filter field
 * select by it, -sample_list and -overview show them (view_info.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "libexp/reader.h"

#define GRID_NS		1000000000ULL	/* no packets: a sample a second */
#define GRID_MAX	1000000		/* samples per experiment at most */

static void gs_warn(void *arg, const char *msg)
{
	an_warn(arg, "%s", msg);
}

static int gs_cmp(const void *a, const void *b)
{
	const struct an_gs *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The paused windows: from a PAUSE to the next RESUME or END. */
static int pauses(struct an *an, struct an_exp *e)
{
	uint64_t from = 0, *w;
	bool paused = false;
	size_t i;

	e->pauses.esz = 2 * sizeof(uint64_t);
	for (i = 0; i <= e->gs.n; i++) {
		const struct an_gs *g = i < e->gs.n ?
			&AN_VEC(e->gs, struct an_gs, i) : NULL;
		bool ends = !g || g->kind == EXP_GS_RESUME || g->kind == EXP_GS_END;

		if (g && g->kind == EXP_GS_PAUSE && !paused) {
			paused = true;
			from = g->time;
		} else if (ends && paused) {
			paused = false;
			w = an_vec_push(&e->pauses);
			if (!w)
				return an_errf(an, -ENOMEM, "out of memory");
			w[0] = from;
			/* paused to the end: to the end of the run */
			w[1] = g ? g->time : UINT64_MAX;
			e->paused_ns += (g ? g->time : e->log->end_ns > from ?
					 e->log->end_ns : from) - from;
		}
	}
	return 0;
}

int an_read_gsamples(struct an *an, struct an_exp *e)
{
	const struct exp_rec_gsample *r;
	const struct lwprof_rec *h;
	struct exp_reader rd;
	struct an_gs *g;
	int err;

	e->gs.esz = sizeof(struct an_gs);
	err = exp_file_open(e->x, EXP_FILE_SAMPLES, &rd, gs_warn, an);
	if (err) {
		err = an_errf(an, err, "%s", rd.msg);
		goto out;
	}
	while ((err = exp_reader_next(&rd, &h)) > 0) {
		if (h->type != EXP_REC_GSAMPLE || rd.hdr.minor < EXP_MINOR_GSAMPLE)
			continue;	/* a later minor's: skipped */
		r = (const void *)h;
		if (r->kind > EXP_GS_KIND_MAX)
			continue;	/* a later minor's kind */
		g = an_vec_push(&e->gs);
		if (!g) {
			err = an_errf(an, -ENOMEM, "out of memory");
			goto out;
		}
		g->time = r->time_ns;
		g->kind = r->kind;
		g->flags = r->hdr.flags;
		g->paused_ns = r->paused_ns;
		memcpy(g->stat, &r->minflt, sizeof(g->stat));
		if (r->name_len && !(g->name = strdup(r->name))) {
			err = an_errf(an, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (err == -ENODATA) {
		an_warn(an, "%s", rd.msg);	/* cut short: the rest is used */
		err = 0;
	} else if (err) {
		err = an_errf(an, err, "%s", rd.msg);
	}
	if (!err && e->gs.n) {
		/* stable: packets of one time stay in the order written */
		for (size_t i = 1; i < e->gs.n; i++)
			if (gs_cmp(&AN_VEC(e->gs, struct an_gs, i - 1),
				   &AN_VEC(e->gs, struct an_gs, i)) > 0) {
				an_vec_sort(&e->gs, gs_cmp);
				break;
			}
		err = pauses(an, e);
	}
out:
	exp_reader_close(&rd);
	return err;
}

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

static struct an_smp *smp_push(struct an *an, uint32_t ex, uint64_t start,
			       uint64_t end, int32_t gb, int32_t ge)
{
	struct an_smp *s = an_vec_push(&an->smp);

	if (s)
		*s = (struct an_smp){ ex, an->smp.n - an->smp_first[ex], start,
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
			if (!smp_push(an, ex, AN_VEC(e->gs, struct an_gs, i - 1).time,
				      AN_VEC(e->gs, struct an_gs, i).time,
				      i - 1, i))
				return -ENOMEM;
		return 0;
	}
	run_span(an, ex, &start, &end);
	n = (end - start + GRID_NS - 1) / GRID_NS;
	n = n < 1 ? 1 : n > GRID_MAX ? GRID_MAX : n;
	for (k = 0; k < n; k++)
		if (!smp_push(an, ex, start + k * GRID_NS,
			      k + 1 == n ? end : start + (k + 1) * GRID_NS, -1, -1))
			return -ENOMEM;
	return 0;
}

/* The sample of experiment ex holding time t (the first or the last). */
static uint32_t smp_find(struct an *an, uint32_t ex, uint64_t t)
{
	uint32_t lo = an->smp_first[ex], hi = an->smp_first[ex + 1];

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (AN_VEC(an->smp, struct an_smp, mid).start <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int an_smp_build(struct an *an)
{
	uint32_t ex;
	size_t i;

	if (an->smp_of)
		return 0;
	an->smp.esz = sizeof(struct an_smp);
	an->smp_first = calloc(an->exps.n + 1, sizeof(uint32_t));
	an->smp_of = malloc((an->s.n + 1) * sizeof(uint32_t));
	if (!an->smp_first || !an->smp_of)
		goto oom;
	for (ex = 0; ex < an->exps.n; ex++) {
		an->smp_first[ex] = an->smp.n;
		if (build_exp(an, ex))
			goto oom;
	}
	an->smp_first[ex] = an->smp.n;
	for (i = 0; i < an->s.n; i++)
		an->smp_of[i] = smp_find(an, AN_VEC(an->threads, struct an_thread,
						    an->s.thr[i]).exp,
					 an->s.time[i]);
	return 0;
oom:
	an_smp_free(an);
	return an_errf(an, -ENOMEM, "out of memory");
}

void an_smp_free(struct an *an)
{
	free(an->smp.p);
	free(an->smp_first);
	free(an->smp_of);
	memset(&an->smp, 0, sizeof(an->smp));
	an->smp_first = an->smp_of = NULL;
}
