/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics as data (docs/analyzer.md, "Metrics").  A record decoder turns
 * each record into base values: (base id, value) pairs, a base being one
 * kind of quantity a record carries (the time of one microstate, the wall
 * time, the events of one counter).  A sample keeps the id of its "value
 * layout", the interned list of the bases it has values for, and those
 * values in that order.  The registry (metric.c) lists the metrics: each
 * its er_print keyword, title, unit, how it is shown and the bases that
 * feed it (their sum); a family row makes one metric per counter.  A new
 * kind of data adds base kinds, registry rows and a decoder; the views
 * only read the metrics' list.
 */
#ifndef LWPROF_METRIC_H
#define LWPROF_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"

struct an;
struct an_exp;
struct lwprof_rec_sample;

/* What a base value is: the kind of record field, and which one. */
enum an_base_kind {
	AN_B_MSTATE,	/* idx: LWPROF_MS_* (ns) */
	AN_B_WALL,	/* the process's wall time (ns), on its main thread */
	AN_B_COUNTER,	/* idx: the counter of log.txt (events) */
	AN_B_IDLE,	/* a CPU's idle time (ns): SYSTEM of LWPROF_RS_IDLE packets */
	AN_B_TRACE,	/* idx: enum an_trace_base, the traced calls' */
};

/* The traced calls' bases (trace.c), in this order (layouts list them so). */
enum an_trace_base {
	AN_T_ALLOC_CNT, AN_T_ALLOC_BYTES, AN_T_LEAK_CNT, AN_T_LEAK_BYTES,
	AN_T_SYNC_NS, AN_T_SYNC_CNT,
	AN_T_READ_BYTES, AN_T_READ_CNT, AN_T_READ_NS,
	AN_T_WRITE_BYTES, AN_T_WRITE_CNT, AN_T_WRITE_NS,
	AN_T_OTHER_CNT, AN_T_OTHER_NS, AN_T_ERR_CNT, AN_T_ERR_NS,
	AN_T_COUNT
};

struct an_base {
	uint32_t kind, idx;
};

enum an_unit {
	AN_U_TIME,	/* nanoseconds, shown as seconds */
	AN_U_COUNT,	/* events; cycles shown as time at a known clock rate */
	AN_U_BYTES,
};

/* Metric flags: where the views use a metric without being told. */
#define AN_MF_STATE	0x1	/* one microstate: a default column when it has data */
#define AN_MF_THREAD	0x2	/* part of the thread time: -overview shows its share */
#define AN_MF_ALWAYS	0x4	/* a default column always (the counters) */
#define AN_MF_DATA	0x8	/* listed only where a sample has its bases (idle) */
#define AN_MF_TRACE	0x10	/* a traced call's: a default column when it has data */

/* A metric of the experiments loaded (an->metrics), from a registry row. */
struct an_metric {
	char kw[64];		/* er_print's keyword */
	char title[96];		/* "User CPU Time", "cycles Events" */
	enum an_unit unit;
	bool as_time;		/* shown in seconds */
	double div;		/* shown value = sum of the bases / div */
	uint32_t flags;		/* AN_MF_* */
	uint32_t *bases;	/* the bases it sums */
	uint32_t nbases;
};

/* The first metric of the registry: the total thread time. */
#define AN_M_TOTAL 0

/* metric.c: the registry */
int an_metrics_init(struct an *an);
int an_metric_add_counter(struct an *an, const char *name, double mhz);
const char *an_counter_name(struct an *an, uint32_t k);
void an_metrics_free(struct an *an);

/* values.c: bases and value layouts */
uint32_t an_base_id(struct an *an, uint32_t kind, uint32_t idx);	/* or UINT32_MAX */
/* the layout of n base ids (increasing), or UINT32_MAX */
uint32_t an_layout_intern(struct an *an, const uint32_t *ids, uint32_t n);
int an_decode_init(struct an *an);
uint32_t an_decode_counter(struct an *an, uint32_t k);
/*
 * decode.c: a sample record's base values, in its layout's order, and
 * the layout (*layout): their count; -EINVAL with the reason in msg and
 * the offending field's offset in *at; or -ENOMEM.
 */
int an_decode_sample(struct an *an, const struct an_exp *e,
		     const struct lwprof_rec_sample *r, uint32_t *layout,
		     uint64_t *vals, char *msg, size_t len, uint64_t *at);
/* at most this many base values per sample record */
#define AN_SAMPLE_VALUES_MAX (LWPROF_MS_COUNT + 2)

#endif
