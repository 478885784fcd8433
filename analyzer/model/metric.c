// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: the registry (model.h, "metrics as data") of the timing
 * metrics, each on its own, with er_print's keywords, and one metric per
 * counter (cycles as time when log.txt knows the clock rate); the static
 * metrics name, size and address.  Lists of them are report/mlist.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"
#include "libexp/mstate_names.h"

/*
 * A registry row: one metric, or with kw NULL a family: one metric per
 * microstate (named by libexp's table), or per counter (named by
 * log.txt).
 */
struct mrow {
	const char *kw, *title;
	enum an_unit unit;
	uint32_t flags;		/* AN_MF_* */
	uint32_t kind;		/* its bases' kind (enum an_base_kind) */
	uint32_t states;	/* AN_B_MSTATE: bit i for LWPROF_MS_ i */
	bool idle;		/* and the CPUs' idle time (AN_B_IDLE) */
};

#define MS(s) (1u << LWPROF_MS_##s)

/* Table A's timing metrics, in er_print's order; AN_M_TOTAL is the first. */
static const struct mrow registry[] = {
	/* with idle CPUs' time: a machine's total is CPUs x elapsed */
	{ "total", "Total Thread Time", AN_U_TIME, AN_MF_THREAD, AN_B_MSTATE,
	  (1u << LWPROF_MS_COUNT) - 1, true },
	{ "totalcpu", "Total CPU Time", AN_U_TIME, AN_MF_THREAD, AN_B_MSTATE,
	  MS(USER) | MS(SYSTEM) | MS(TRAP), false },
	/* user ... wait, in LWPROF_MS_ order */
	{ NULL, NULL, AN_U_TIME, AN_MF_STATE | AN_MF_THREAD, AN_B_MSTATE, 0, false },
	/* every CPU's idle time (<IDLE>, docs/design/kernel-profiling.md) */
	{ "idle", "Idle Time", AN_U_TIME, AN_MF_STATE | AN_MF_THREAD | AN_MF_DATA,
	  AN_B_IDLE, 0, false },
	{ "wall", "Wall Time", AN_U_TIME, 0, AN_B_WALL, 0, false },
	/* hardware counters: always default columns */
	{ NULL, "Events", AN_U_COUNT, AN_MF_ALWAYS, AN_B_COUNTER, 0, false },
	/* traced calls (docs/design/tracing.md), gprofng's keywords; states: the base */
#define TR(kw, title, unit, base) \
	{ kw, title, AN_U_##unit, AN_MF_TRACE | AN_MF_DATA, AN_B_TRACE, AN_T_##base, false }
	TR("sync", "Sync Wait Time", TIME, SYNC_NS),
	TR("syncn", "Sync Wait Count", COUNT, SYNC_CNT),
	TR("heapalloccnt", "Allocations", COUNT, ALLOC_CNT),
	TR("heapallocbytes", "Bytes Allocated", BYTES, ALLOC_BYTES),
	TR("heapleakcnt", "Leaks", COUNT, LEAK_CNT),
	TR("heapleakbytes", "Bytes Leaked", BYTES, LEAK_BYTES),
	TR("ioreadbytes", "Read Bytes", BYTES, READ_BYTES),
	TR("ioreadcnt", "Read Count", COUNT, READ_CNT),
	TR("ioreadtime", "Read Time", TIME, READ_NS),
	TR("iowritebytes", "Write Bytes", BYTES, WRITE_BYTES),
	TR("iowritecnt", "Write Count", COUNT, WRITE_CNT),
	TR("iowritetime", "Write Time", TIME, WRITE_NS),
	TR("ioothercnt", "Other I/O Count", COUNT, OTHER_CNT),
	TR("ioothertime", "Other I/O Time", TIME, OTHER_NS),
	TR("ioerrorcnt", "I/O Error Count", COUNT, ERR_CNT),
	TR("ioerrortime", "I/O Error Time", TIME, ERR_NS),
	/* MPI calls (docs/guide/mpi.md), Oracle's keywords; bytes are actual */
	TR("mpitime", "MPI Time", TIME, MPI_NS),
	TR("mpisend", "MPI Sends", COUNT, MPI_SEND),
	TR("mpibytessent", "MPI Bytes Sent", BYTES, MPI_SBYTES),
	TR("mpircv", "MPI Receives", COUNT, MPI_RECV),
	TR("mpibytesrcv", "MPI Bytes Received", BYTES, MPI_RBYTES),
	TR("mpiother", "Other MPI Events", COUNT, MPI_OTHER),
	TR("mpilatesender", "MPI Late Sender Time", TIME, MPI_LATE),
	TR("mpibarrierwait", "MPI Wait at Barrier", TIME, MPI_BARWAIT),
	TR("mpinxnwait", "MPI Wait at NxN", TIME, MPI_NXNWAIT),
#undef TR
	/* OpenMP (docs/guide/openmp.md): Oracle's keywords; states: the base */
	{ "ompwork", "OpenMP Work", AN_U_TIME, AN_MF_TRACE | AN_MF_DATA, AN_B_OMP, AN_OMP_B_WORK, false },
	{ "ompwait", "OpenMP Wait", AN_U_TIME, AN_MF_TRACE | AN_MF_DATA, AN_B_OMP, AN_OMP_B_WAIT, false },
	/* the team's wait at a barrier, on the thread that came last */
	{ "ompimbal", "OpenMP Imbalance", AN_U_TIME, AN_MF_TRACE | AN_MF_DATA, AN_B_OMP, AN_OMP_B_BLAME, false },
	/* ... by the module's microstates: ompwait_user ... ompwait_wait */
	{ NULL, "OpenMP Wait", AN_U_TIME, AN_MF_DATA, AN_B_OMP, AN_OMP_B_MS, false },
};

#define NROWS (sizeof(registry) / sizeof(registry[0]))

/*
 * Make metric row r named kw and title, over the bases of kind r->kind:
 * r->states, else base idx (the microstate or counter of a family).
 */
static int metric_add(struct an *an, const struct mrow *r, const char *kw,
		      const char *title, uint32_t idx, double mhz)
{
	uint32_t ids[LWPROF_MS_COUNT + 1], n = 0, i;
	struct an_metric *m;

	if (r->kind == AN_B_MSTATE && r->states) {
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			if (r->states & 1u << i)
				ids[n++] = an_base_id(an, AN_B_MSTATE, i);
		if (r->idle)
			ids[n++] = an_base_id(an, AN_B_IDLE, 0);
	} else {
		ids[n++] = an_base_id(an, r->kind, idx);
	}
	for (i = 0; i < n; i++)
		if (ids[i] == UINT32_MAX)
			return -ENOMEM;
	an->metrics.esz = sizeof(*m);
	m = an_vec_push(&an->metrics);
	if (!m)
		return -ENOMEM;
	m->bases = malloc(n * sizeof(*m->bases));
	if (!m->bases) {
		an->metrics.n--;
		return -ENOMEM;
	}
	memcpy(m->bases, ids, n * sizeof(*ids));
	m->nbases = n;
	snprintf(m->kw, sizeof(m->kw), "%s", kw);
	m->unit = r->unit;
	m->flags = r->flags;
	m->as_time = r->unit == AN_U_TIME || mhz > 0;
	m->div = r->unit == AN_U_TIME ? 1e9 : mhz > 0 ? mhz * 1e6 : 1;
	snprintf(m->title, sizeof(m->title), "%s", title);
	return 0;
}

/* OpenMP Wait in each microstate: "ompwait_lock", "OpenMP Wait User Lock" */
static int omp_family(struct an *an, const struct mrow *r)
{
	char kw[64], title[96];
	uint32_t k;
	int err = 0;

	for (k = 0; k < LWPROF_MS_COUNT && !err; k++) {
		snprintf(kw, sizeof(kw), "ompwait_%s", exp_mstate_names[k].keyword);
		snprintf(title, sizeof(title), "%s %s", r->title,
			 exp_mstate_names[k].label);
		err = metric_add(an, r, kw, title, r->states + k, 0);
	}
	return err;
}

/* Every row but the families (after the decoders' bases: load/decode.c). */
int an_metrics_init(struct an *an)
{
	size_t i;
	int err = 0;

	for (i = 0; i < NROWS && !err; i++) {
		const struct mrow *r = &registry[i];
		uint32_t k;

		if (r->kw)
			err = metric_add(an, r, r->kw, r->title,
					 r->kind == AN_B_TRACE || r->kind == AN_B_OMP ?
					 r->states : 0, 0);
		else if (r->kind == AN_B_MSTATE)
			for (k = 0; k < LWPROF_MS_COUNT && !err; k++)
				err = metric_add(an, r, exp_mstate_names[k].keyword,
						 exp_mstate_names[k].title, k, 0);
		else if (r->kind == AN_B_OMP)
			err = omp_family(an, r);
	}
	return err;
}

/*
 * Counter nctr of log.txt: its metric (mhz > 0: cycles), on its base
 * (made first by its decoder, load/decode.c).
 */
int an_metric_add_counter(struct an *an, const char *name, double mhz)
{
	char title[96];
	size_t i;
	int err = -EINVAL;

	/* cycles at a known clock rate are time */
	for (i = 0; i < NROWS; i++)
		if (!registry[i].kw && registry[i].kind == AN_B_COUNTER) {
			snprintf(title, sizeof(title), "%s %s", name,
				 mhz > 0 ? "Time" : registry[i].title);
			err = metric_add(an, &registry[i], name, title, an->nctr,
					 mhz);
		}
	if (!err)
		an->nctr++;
	return err;
}

/* Counter k's name (k < an->nctr): its metric's keyword. */
const char *an_counter_name(struct an *an, uint32_t k)
{
	uint32_t base = an_base_id(an, AN_B_COUNTER, k);
	size_t m;

	for (m = 0; m < an->metrics.n; m++) {
		const struct an_metric *x = &AN_VEC(an->metrics, struct an_metric, m);

		if (x->nbases == 1 && x->bases[0] == base)
			return x->kw;
	}
	return "";
}

void an_metrics_free(struct an *an)
{
	size_t i;

	for (i = 0; i < an->metrics.n; i++)
		free(AN_VEC(an->metrics, struct an_metric, i).bases);
	free(an->metrics.p);
	free(an->bases.p);
	memset(&an->metrics, 0, sizeof(an->metrics));
	memset(&an->bases, 0, sizeof(an->bases));
}

int an_metric_count(struct an *an)
{
	return an->metrics.n;
}

static inline const struct an_metric *metric(struct an *an, int m)
{
	return &AN_VEC(an->metrics, struct an_metric, m);
}

/*
 * Is metric m one of these experiments'?  All are but those of AN_MF_DATA,
 * which are where a value layout has one of their bases.
 */
bool an_metric_present(struct an *an, int m)
{
	const struct an_metric *x = metric(an, m);
	size_t l;
	uint32_t i, j;

	if (!(x->flags & AN_MF_DATA))
		return true;
	for (l = 0; l < an->lay.first.n; l++) {
		const uint32_t *ids = an_layout(an, l);

		for (i = 1; i <= ids[0]; i++)
			for (j = 0; j < x->nbases; j++)
				if (ids[i] == x->bases[j])
					return true;
	}
	return false;
}

bool an_metric_absent(struct an *an, int m)
{
	const struct an_metric *x = metric(an, m);
	const struct an_base *b;
	uint32_t all = UINT32_MAX;
	size_t i;

	if (!(x->flags & AN_MF_STATE) || x->nbases != 1 || !an->exps.n)
		return false;
	b = &AN_VEC(an->bases, struct an_base, x->bases[0]);
	if (b->kind != AN_B_MSTATE)
		return false;
	for (i = 0; i < an->exps.n; i++)
		all &= AN_VEC(an->exps, struct an_exp, i).log->ms_absent;
	return all >> b->idx & 1;
}

const char *an_metric_kw(struct an *an, int m)
{
	if (m == AN_M_NAME)
		return "name";
	if (m == AN_M_SIZE)
		return "size";
	if (m == AN_M_ADDRESS)
		return "address";
	return metric(an, m)->kw;
}

const char *an_metric_title(struct an *an, int m)
{
	if (m == AN_M_NAME)
		return "Name";
	if (m == AN_M_SIZE)
		return "Size";
	if (m == AN_M_ADDRESS)
		return "PC Addr.";
	return metric(an, m)->title;
}

enum an_unit an_metric_unit(struct an *an, int m)
{
	return metric(an, m)->unit;
}

/* What a metric's values are counted in, for column heads. */
const char *an_metric_unit_name(struct an *an, int m)
{
	if (an_metric_is_time(an, m))
		return "sec.";
	return metric(an, m)->unit == AN_U_BYTES ? "bytes" : "events";
}

bool an_metric_is_time(struct an *an, int m)
{
	return metric(an, m)->as_time;
}

uint32_t an_metric_flags(struct an *an, int m)
{
	return metric(an, m)->flags;
}

uint64_t an_metric_raw(struct an *an, int m, const uint64_t *base)
{
	const struct an_metric *x = metric(an, m);
	uint64_t v = 0;
	uint32_t i;

	for (i = 0; i < x->nbases; i++)
		v += base[x->bases[i]];
	return v;
}

/* Seconds for time metrics, events for the others. */
double an_metric_val(struct an *an, int m, const uint64_t *base)
{
	return an_metric_raw(an, m, base) / metric(an, m)->div;
}

int an_metric_find(struct an *an, const char *kw)
{
	int m = an_metric_lookup(an, kw);

	return m >= 0 && m < an_metric_count(an) ? m : -1;
}

int an_metric_lookup(struct an *an, const char *kw)
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
