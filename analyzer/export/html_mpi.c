// SPDX-License-Identifier: GPL-2.0
/*
 * The html page's MPI data (docs/design/html-report.md): each
 * experiment's rank ("ranks", -1 none), the MPI functions' names
 * ("mpifn"), per thread of the timeline its MPI calls whose samples pass
 * the filter ("mpi": start, length and function of each, by start, the
 * starts from the earliest experiment's start), and the messages matched
 * between two such calls ("msgs": sending thread, send's start,
 * receiving thread, the end of the call that received it; threads by
 * their page number, "i").  The page draws the calls under each thread's
 * row and each message as a line from its send to its receive.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analyzer/export/html.h"
#include "analyzer/report/report.h"
#include "libexp/mpi.h"

static bool shown(struct an *an, const struct an_settings *set,
		  const struct an_mcall *c)
{
	return c->sample != UINT32_MAX &&
	       (!set->filter || an_filter_pass(an, set->filter, c->sample));
}

static uint64_t rel(const struct an *an, uint64_t t)
{
	return t > an->tmin ? t - an->tmin : 0;
}

static int by_thread_start(const void *a, const void *b, void *ctx)
{
	const struct an *an = ctx;
	const struct an_mcall *x = &AN_VEC(an->mpi, struct an_mcall, *(const uint32_t *)a);
	const struct an_mcall *y = &AN_VEC(an->mpi, struct an_mcall, *(const uint32_t *)b);
	uint32_t tx = an->s.thr[x->sample], ty = an->s.thr[y->sample];

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

int html_mpi(struct an *an, const struct an_settings *set, FILE *o)
{
	uint32_t *idx = malloc((an->mpi.n + 1) * sizeof(*idx)), thr;
	size_t i, n = 0, j;
	uint64_t prev;

	if (!idx)
		return an_errf(an, -ENOMEM, "out of memory");
	fprintf(o, ",\"ranks\":[");
	for (i = 0; i < an->exps.n; i++)
		fprintf(o, "%s%d", i ? "," : "", AN_VEC(an->exps, struct an_exp, i).rank);
	fprintf(o, "],\"mpifn\":[");
	for (i = 0; i < EXP_MPI_F_MAX; i++) {
		if (i)
			fputc(',', o);
		html_json_str(o, exp_mpi_funcs[i].name);
	}
	for (i = 0; i < an->mpi.n; i++)
		if (shown(an, set, &AN_VEC(an->mpi, struct an_mcall, i)))
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), by_thread_start, an);
	fprintf(o, "],\"mpi\":{");
	for (i = 0; i < n; i = j) {
		thr = an->s.thr[AN_VEC(an->mpi, struct an_mcall, idx[i]).sample];
		fprintf(o, "%s\"%u\":[", i ? "," : "", thr + 1);
		for (prev = 0, j = i; j < n; j++) {
			const struct an_mcall *c = &AN_VEC(an->mpi, struct an_mcall, idx[j]);

			if (an->s.thr[c->sample] != thr)
				break;
			html_num(o, j > i, rel(an, c->t0) - prev);
			html_num(o, true, c->t1 > c->t0 ? c->t1 - c->t0 : 0);
			html_num(o, true, c->func);
			prev = rel(an, c->t0);
		}
		fputc(']', o);
	}
	fprintf(o, "},\"msgs\":[");
	for (i = 0, n = 0; i < an->mpi_msgs.n; i++) {
		const struct an_mmsg *m = &AN_VEC(an->mpi_msgs, struct an_mmsg, i);
		const struct an_mcall *s = &AN_VEC(an->mpi, struct an_mcall, m->send);
		const struct an_mcall *r = &AN_VEC(an->mpi, struct an_mcall, m->recv);

		if (!shown(an, set, s) || !shown(an, set, r))
			continue;
		html_num(o, n++, an->s.thr[s->sample] + 1);
		html_num(o, true, rel(an, s->t0));
		html_num(o, true, an->s.thr[r->sample] + 1);
		html_num(o, true, rel(an, r->t1));
	}
	fputc(']', o);
	free(idx);
	return 0;
}
