// SPDX-License-Identifier: GPL-2.0
/*
 * The MPI views (docs/guide/mpi.md), over an->mpi (load/mpi.c):
 * -mpi_stats, each MPI function's and each rank's calls, time (total,
 * min, mean, max; seconds to the microsecond, a call's in
 * microseconds), point-to-point sends and receives with their actual
 * bytes, Late Sender, Wait at Barrier and at NxN, and where the module
 * kept the microstates over each call, the MPI time split into spinning (User,
 * System and Trap CPU), blocked (sleep, lock and fault states) and
 * runnable but waiting for a CPU (Wait CPU); -mpi_matrix, the bytes and
 * messages each rank sent each other; -rank_list, the ranks loaded.  A
 * call is counted when its sample passes the filter (-rank_select,
 * -thread_select, -filters).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"
#include "libexp/mpi.h"

/* What a row sums: calls, times, messages, waits, microstates. */
struct msum {
	uint64_t calls, ns, lo, hi;
	uint64_t nsend, sbytes, nrecv, rbytes, late, barwait, nxnwait;
	uint64_t spin, blocked, waitcpu, ms_calls;
};

static bool call_pass(struct an *an, const struct an_settings *vs,
		      const struct an_mcall *c)
{
	if (!vs->filter)
		return true;
	if (c->sample != UINT32_MAX)
		return an_filter_pass(an, vs->filter, c->sample);
	return an_filter_exp(vs->filter, c->exp);
}

static void add(struct an *an, struct msum *s, const struct an_mcall *c)
{
	const uint64_t *ms = an_mcall_ms(an, c);
	uint64_t d = c->t1 - c->t0;

	if (!s->calls || d < s->lo)
		s->lo = d;
	if (d > s->hi)
		s->hi = d;
	s->calls++;
	s->ns += d;
	s->nsend += c->nsend;
	s->sbytes += c->sbytes;
	s->nrecv += c->nrecv;
	s->rbytes += c->rbytes;
	s->late += c->late;
	s->barwait += c->barwait;
	s->nxnwait += c->nxnwait;
	if (!ms)
		return;
	s->ms_calls++;
	s->spin += ms[LWPROF_MS_USER] + ms[LWPROF_MS_SYSTEM] + ms[LWPROF_MS_TRAP];
	s->blocked += ms[LWPROF_MS_TFAULT] + ms[LWPROF_MS_DFAULT] +
		      ms[LWPROF_MS_KFAULT] + ms[LWPROF_MS_USER_LOCK] +
		      ms[LWPROF_MS_SLEEP] + ms[LWPROF_MS_STOPPED];
	s->waitcpu += ms[LWPROF_MS_WAIT_CPU];
}

static const char *const heads[][2] = {
	{ "Calls", "events" }, { "MPI Time", "sec." }, { "Min", "usec" },
	{ "Mean", "usec" }, { "Max", "usec" }, { "Sends", "events" },
	{ "Bytes Sent", "bytes" }, { "Receives", "events" },
	{ "Bytes Received", "bytes" }, { "Late Sender", "sec." },
	{ "Wait at Barrier", "sec." }, { "Wait at NxN", "sec." },
	{ "Spinning", "sec." },
	{ "Blocked", "sec." }, { "Wait CPU", "sec." },
};
#define NHEADS ((int)(sizeof(heads) / sizeof(heads[0])))

static int table_heads(struct an_table *t, const char *first)
{
	int k;

	if (an_table_init(t, NHEADS + 1) || an_table_head(t, 0, first, "", true))
		return -ENOMEM;
	for (k = 0; k < NHEADS; k++)
		if (an_table_head(t, k + 1, heads[k][0], heads[k][1], false))
			return -ENOMEM;
	return 0;
}

/*
 * A row's values; the microstate split only where every call of it
 * carries them (else "absent": recorded without the module).
 */
static void put_row(struct an_table *t, size_t r, const struct msum *s)
{
	bool ms = s->calls && s->ms_calls == s->calls;
	const uint64_t split[3] = { s->spin, s->blocked, s->waitcpu };
	int k;

	an_table_int(t, r, 1, s->calls);
	an_table_text(t, r, 2, "%.6f", s->ns / 1e9);
	an_table_text(t, r, 3, "%.1f", s->lo / 1e3);
	an_table_text(t, r, 4, "%.1f", s->calls ? s->ns / 1e3 / s->calls : 0.0);
	an_table_text(t, r, 5, "%.1f", s->hi / 1e3);
	an_table_int(t, r, 6, s->nsend);
	an_table_int(t, r, 7, s->sbytes);
	an_table_int(t, r, 8, s->nrecv);
	an_table_int(t, r, 9, s->rbytes);
	an_table_text(t, r, 10, "%.6f", s->late / 1e9);
	an_table_text(t, r, 11, "%.6f", s->barwait / 1e9);
	an_table_text(t, r, 12, "%.6f", s->nxnwait / 1e9);
	for (k = 0; k < 3; k++)
		if (ms)
			an_table_text(t, r, 13 + k, "%.6f", split[k] / 1e9);
		else
			an_table_num(t, r, 13 + k, AN_C_ABSENT, 0);
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const struct msum *s = ctx;
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (s[x].ns != s[y].ns)
		return s[x].ns > s[y].ns ? -1 : 1;
	return strcmp(exp_mpi_funcs[x].name, exp_mpi_funcs[y].name);
}

/* the highest rank of an experiment loaded, or -1 */
static int32_t max_rank(struct an *an)
{
	int32_t m = -1;
	size_t i;

	for (i = 0; i < an->exps.n; i++)
		if (AN_VEC(an->exps, struct an_exp, i).rank > m)
			m = AN_VEC(an->exps, struct an_exp, i).rank;
	return m;
}

int an_view_mpi_stats(struct an *an, const struct an_settings *vs,
		      struct an_out *o)
{
	int32_t nr = max_rank(an) + 1, r;
	struct msum *fs, *rs, tot = { 0 };
	uint32_t order[EXP_MPI_F_MAX], n = 0, f;
	struct an_table t = { 0 };
	bool any_ms = false;
	size_t i, row;
	int err = -ENOMEM;

	if (!an->mpi.n)
		return an_errf(an, -ENOENT, "no MPI calls in these experiments (record them with collect -M)");
	fs = calloc(EXP_MPI_F_MAX, sizeof(*fs));
	rs = calloc(nr + 1, sizeof(*rs));
	if (!fs || !rs)
		goto out;
	for (i = 0; i < an->mpi.n; i++) {
		const struct an_mcall *c = &AN_VEC(an->mpi, struct an_mcall, i);
		const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, c->exp);

		if (!call_pass(an, vs, c))
			continue;
		add(an, &fs[c->func], c);
		add(an, &tot, c);
		if (e->rank >= 0 && e->rank < nr)
			add(an, &rs[e->rank], c);
		any_ms |= c->ms != UINT32_MAX;
	}
	for (f = 0; f < EXP_MPI_F_MAX; f++)
		if (fs[f].calls)
			order[n++] = f;
	qsort_r(order, n, sizeof(*order), by_time, fs);
	an_title(o, "MPI calls by function\n\n");
	if (table_heads(&t, "Function"))
		goto out;
	row = an_table_row(&t);
	if (row == SIZE_MAX)
		goto out;
	an_table_text(&t, row, 0, "<Total>");
	put_row(&t, row, &tot);
	for (f = 0; f < n; f++) {
		row = an_table_row(&t);
		if (row == SIZE_MAX)
			goto out;
		an_table_text(&t, row, 0, "%s", exp_mpi_funcs[order[f]].name);
		put_row(&t, row, &fs[order[f]]);
	}
	an_table_print(o, &t);
	an_table_free(&t);
	an_title(o, "\nMPI calls by rank\n\n");
	if (table_heads(&t, "Rank"))
		goto out;
	for (r = 0; r < nr; r++) {
		if (!rs[r].calls)
			continue;
		row = an_table_row(&t);
		if (row == SIZE_MAX)
			goto out;
		an_table_text(&t, row, 0, "%d", r);
		put_row(&t, row, &rs[r]);
	}
	an_table_print(o, &t);
	if (!any_ms)
		an_title(o, "\nSpinning, Blocked, Wait CPU: absent: these experiments were recorded without lwprof.ko, which alone keeps the microstates over each call\n");
	err = 0;
out:
	an_table_free(&t);
	free(fs);
	free(rs);
	return err ? an_errf(an, err, "out of memory") : 0;
}

/* Bytes and messages from each rank (rows) to each (columns). */
int an_view_mpi_matrix(struct an *an, const struct an_settings *vs,
		       struct an_out *o)
{
	int32_t nr = max_rank(an) + 1, s, d;
	uint64_t *bytes, *msgs;
	struct an_table t = { 0 };
	char h[32];
	size_t i, row;
	int k, err = -ENOMEM;

	if (!an->mpi.n)
		return an_errf(an, -ENOENT, "no MPI calls in these experiments (record them with collect -M)");
	for (i = 0; i < an->mpi.n; i++) {	/* ranks not loaded, sent to */
		d = AN_VEC(an->mpi, struct an_mcall, i).dst;
		if (d >= nr)
			nr = d + 1;
	}
	for (i = 0; i < an->mpi_req.n; i++) {
		const struct an_mreq *q = &AN_VEC(an->mpi_req, struct an_mreq, i);

		if (q->start && q->peer >= nr)
			nr = q->peer + 1;
	}
	bytes = calloc((size_t)nr * nr + 1, sizeof(*bytes));
	msgs = calloc((size_t)nr * nr + 1, sizeof(*msgs));
	if (!bytes || !msgs)
		goto out;
	for (i = 0; i < an->mpi.n; i++) {
		const struct an_mcall *c = &AN_VEC(an->mpi, struct an_mcall, i);

		s = AN_VEC(an->exps, struct an_exp, c->exp).rank;
		if (s < 0 || c->dst < 0 || !c->nsend || c->nstart ||
		    !call_pass(an, vs, c))
			continue;
		bytes[(size_t)s * nr + c->dst] += c->sbytes;
		msgs[(size_t)s * nr + c->dst] += c->nsend;
	}
	/* the sends of an MPI_Startall (MPI_Start), to each peer */
	for (i = 0; i < an->mpi_req.n; i++) {
		const struct an_mreq *q = &AN_VEC(an->mpi_req, struct an_mreq, i);
		const struct an_mcall *c;

		if (!q->start || q->peer < 0)
			continue;
		c = &AN_VEC(an->mpi, struct an_mcall, q->call);
		s = AN_VEC(an->exps, struct an_exp, c->exp).rank;
		if (s < 0 || !call_pass(an, vs, c))
			continue;
		bytes[(size_t)s * nr + q->peer] += q->bytes;
		msgs[(size_t)s * nr + q->peer]++;
	}
	for (k = 0; k < 2; k++) {
		const uint64_t *m = k ? msgs : bytes;

		an_title(o, k ? "\nMPI messages sent, from rank (rows) to rank (columns)\n\n" :
			 "MPI bytes sent, from rank (rows) to rank (columns)\n\n");
		if (an_table_init(&t, nr + 1) ||
		    an_table_head(&t, 0, "From", "", true))
			goto out;
		for (d = 0; d < nr; d++) {
			snprintf(h, sizeof(h), "%d", d);
			if (an_table_head(&t, d + 1, h, k ? "events" : "bytes", false))
				goto out;
		}
		for (s = 0; s < nr; s++) {
			row = an_table_row(&t);
			if (row == SIZE_MAX)
				goto out;
			an_table_text(&t, row, 0, "%d", s);
			for (d = 0; d < nr; d++)
				an_table_int(&t, row, d + 1, m[(size_t)s * nr + d]);
		}
		an_table_print(o, &t);
		an_table_free(&t);
	}
	err = 0;
out:
	an_table_free(&t);
	free(bytes);
	free(msgs);
	return err ? an_errf(an, err, "out of memory") : 0;
}

int an_view_rank_list(struct an *an, const struct an_settings *vs,
		      struct an_out *o)
{
	struct an_table t = { 0 };
	uint64_t *calls;
	size_t i, row;
	int err = -ENOMEM;

	calls = calloc(an->exps.n + 1, sizeof(*calls));
	if (!calls)
		return an_errf(an, -ENOMEM, "out of memory");
	for (i = 0; i < an->mpi.n; i++)
		calls[AN_VEC(an->mpi, struct an_mcall, i).exp]++;
	if (an_table_init(&t, 5) || an_table_head(&t, 0, "Rank", "", false) ||
	    an_table_head(&t, 1, "Exp", "", false) ||
	    an_table_head(&t, 2, "MPI", "", true) ||
	    an_table_head(&t, 3, "MPI Calls", "events", false) ||
	    an_table_head(&t, 4, "Experiment", "", true))
		goto out;
	for (i = 0; i < an->exps.n; i++) {
		const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);

		row = an_table_row(&t);
		if (row == SIZE_MAX)
			goto out;
		if (e->rank >= 0)
			an_table_text(&t, row, 0, "%d", e->rank);
		else
			an_table_text(&t, row, 0, "-");
		an_table_text(&t, row, 1, "%zu", i + 1);
		an_table_text(&t, row, 2, "%s", e->log->mpi ? e->log->mpi : "-");
		an_table_int(&t, row, 3, calls[i]);
		an_table_text(&t, row, 4, "%s", e->name);
	}
	an_table_print(o, &t);
	err = 0;
out:
	an_table_free(&t);
	free(calls);
	return err ? an_errf(an, err, "out of memory") : 0;
}
