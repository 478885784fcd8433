// SPDX-License-Identifier: GPL-2.0
/*
 * The sample points of an experiment (libexp/format.h, EXP_REC_GSAMPLE,
 * samples.rec, format 1.4): the packets collect wrote at the start, every
 * -S interval, on -l's signal, on collector_sample(), at pauses and
 * resumes, at the end; read into e->gs by time, and the paused windows
 * (from a PAUSE to the next RESUME or END) into e->pauses.  The spans
 * between the points (model/spans.c) are what er_print calls samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "libexp/reader.h"

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

