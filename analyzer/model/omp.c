// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP's side tables (omp.h): names, and where a thread was at a time
 * (its spans sorted by start, per thread).
 */
#include <stdlib.h>

#include "analyzer/model/omp.h"

static const char *const kind_names[AN_OMP_NKINDS] = {
	"overhead", "idle", "implicit_barrier", "explicit_barrier", "lock",
	"critical_section", "ordered_section", "atomic_wait", "reduction",
	"taskwait",
};

const char *an_omp_kind_name(int k)
{
	return k >= 0 && k < AN_OMP_NKINDS ? kind_names[k] : "?";
}

size_t an_omp_nregions(const struct an_omp *o)
{
	return o->regions.n;
}

const struct an_omp_region *an_omp_region(const struct an_omp *o, uint32_t r)
{
	return &AN_VEC(o->regions, struct an_omp_region, r);
}

const uint64_t *an_omp_wait_ms(const struct an_omp *o,
			       const struct an_omp_span *w)
{
	return w->ms == UINT32_MAX ? NULL :
		(const uint64_t *)o->ms.p + (size_t)LWPROF_MS_COUNT * w->ms;
}

/*
 * The span of v[lo, hi) (sorted by start) that holds t and started last:
 * spans of one thread nest or follow each other, so it is the innermost.
 * A few are looked at back from the last start before t.
 */
static const struct an_omp_span *span_at(const struct an_vec *v, uint32_t lo,
					 uint32_t hi, uint64_t t)
{
	const struct an_omp_span *s = v->p;
	uint32_t a = lo, b = hi, m, k;

	while (a < b) {		/* the first that starts after t */
		m = a + (b - a) / 2;
		if (s[m].t0 <= t)
			a = m + 1;
		else
			b = m;
	}
	for (k = 0; a > lo && k < 16; a--, k++)
		if (s[a - 1].t1 >= t)
			return &s[a - 1];
	return NULL;
}

void an_omp_lookup(const struct an_omp *o, uint32_t thr, uint64_t t,
		   struct an_omp_at *at)
{
	const struct an_omp_span *s;

	at->region = UINT32_MAX;
	at->worker = false;
	at->wait = -1;
	at->traced = false;
	if (thr >= o->nthr)
		return;
	at->traced = o->traced && o->traced[thr];
	s = span_at(&o->tasks, o->task_first[thr], o->task_first[thr + 1], t);
	if (s) {
		at->region = s->region;
		at->worker = s->index != 0;
	}
	s = span_at(&o->waits, o->wait_first[thr], o->wait_first[thr + 1], t);
	if (s)
		at->wait = s->kind;
}

int an_omp_sample_wait(const struct an_omp *o, size_t i)
{
	if (i < o->first_wait_row || i - o->first_wait_row >= o->nrow_wait)
		return -1;
	return AN_VEC(o->waits, struct an_omp_span,
		      o->row_wait[i - o->first_wait_row]).kind;
}

const struct an_omp_span *an_omp_sample_xtask(const struct an_omp *o, size_t i,
					      uint32_t thr, uint64_t t)
{
	const struct an_omp_span *w;

	if (i >= o->first_wait_row && i - o->first_wait_row < o->nrow_wait) {
		w = &AN_VEC(o->waits, struct an_omp_span,
			    o->row_wait[i - o->first_wait_row]);
		thr = w->thr;
		t = w->t0 + (w->t1 - w->t0) / 2;
	}
	if (thr >= o->nthr || !o->xtask_first)
		return NULL;
	return span_at(&o->xtasks, o->xtask_first[thr], o->xtask_first[thr + 1], t);
}

void an_omp_free(struct an_omp *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->rts.n; i++)
		free(AN_VEC(o->rts, struct an_omp_rt, i).version);
	free(o->regions.p);
	free(o->tasks.p);
	free(o->waits.p);
	free(o->xtasks.p);
	free(o->ms.p);
	free(o->rts.p);
	free(o->task_first);
	free(o->wait_first);
	free(o->xtask_first);
	free(o->traced);
	free(o->row_wait);
	free(o);
}
