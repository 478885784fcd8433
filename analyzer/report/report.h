/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reporting: the layer of lwprof print that computes and shows
 * (docs/design/analyzer.md).  The samples that pass the filter are summed
 * per call stack, then spread over functions, lines, pcs and objects,
 * caller and callee edges and the call tree (compute.c); filters
 * (filter.c); metric lists (mlist.c); tables written as text, csv or
 * with a delimiter (out.c); the views (view_*.c), er_print's commands.
 * It reads the model (model/model.h) and names through symbols/.
 */
#ifndef LWPROF_ANALYZER_REPORT_H
#define LWPROF_ANALYZER_REPORT_H

#include "analyzer/model/model.h"
#include "analyzer/symbols/symbols.h"

/* Per-stack sums of the samples that pass the filter. */
struct an_agg {
	size_t n, nb;
	uint64_t *acc;		/* n x nb */
	uint8_t *used;
	uint64_t *total;	/* nb */
	uint64_t nsamples;
};

struct an_filter;

/* the samples that pass filter f (NULL: all) */
int an_aggregate(struct an *an, struct an_filter *f, struct an_agg *g);
/* ... and of experiment exp alone (UINT32_MAX: all) */
int an_aggregate_exp(struct an *an, struct an_filter *f, uint32_t exp,
		     struct an_agg *g);
void an_agg_free(struct an_agg *g);

#define AN_K_FUNC 0
#define AN_K_OBJ 1
#define AN_K_LINE 2	/* ids >= lines.n: "no line" of function id - lines.n */
#define AN_K_PC 3

struct an_flat {
	size_t n, nb;
	uint64_t *excl, *incl;	/* n x nb */
	uint8_t *seen;
};

size_t an_kind_count(struct an *an, int kind);
int an_flat(struct an *an, const struct an_agg *g, int kind, struct an_flat *f);
void an_flat_free(struct an_flat *f);

struct an_edge {
	uint32_t from, to;
};

struct an_edges {
	struct an_edge *e;
	uint64_t *vals;		/* n x nb */
	size_t n, cap, nb;
	struct an_htab h;
};

int an_edges(struct an *an, const struct an_agg *g, struct an_edges *callers,
	     struct an_edges *callees);
/* the values of edge from -> to, or NULL when there is none */
const uint64_t *an_edge_vals(const struct an_edges *e, uint32_t from,
			     uint32_t to);
void an_edges_free(struct an_edges *e);

struct an_tnode {
	uint32_t parent, func, child, next;
};

struct an_tree {
	struct an_tnode *n;
	size_t cnt, cap, nb;
	uint32_t roots;
	uint64_t *excl, *incl;
	struct an_htab h;
	uint32_t *of_node;	/* per pc-trie node (an->nodes): its tree node */
};

int an_tree(struct an *an, const struct an_agg *g, struct an_tree *t);
void an_tree_free(struct an_tree *t);

/* ---- metric lists (mlist.c) ---- */

struct an_mcol {
	char flavor;		/* 'e', 'i', 'a', or 's' for the statics */
	bool value, pct;
	int m;			/* an->metrics index, or AN_M_NAME, _SIZE, _ADDRESS */
	int col;		/* its first table column (an_make_heads) */
	int grp;		/* -compare: the experiment it shows (view_compare.c) */
};

/* A metric list: as many columns as asked for. */
struct an_mlist {
	struct an_mcol *c;
	int n, cap;
};

int an_mlist_add(struct an_mlist *l, char flavor, bool value, bool pct, int m);
int an_mlist_copy(struct an_mlist *dst, const struct an_mlist *src);
void an_mlist_free(struct an_mlist *l);

struct an_msort {
	char flavor;		/* 0: the first metric column */
	int m;
};

int an_mlist_parse(struct an *an, const char *spec, struct an_mlist *l);
int an_msort_parse(struct an *an, const char *spec, struct an_msort *s);
int an_mlist_default(struct an *an, const struct an_agg *g, struct an_mlist *l);
void an_mlist_print(struct an *an, FILE *f, const struct an_mlist *l);
void an_metric_list_help(struct an *an, FILE *f);

/* ---- filters (filter.c): *fp is the settings' filter, NULL for none ---- */

int an_filter_set(struct an *an, struct an_filter **fp, const char *expr);
/* the expression again over the pc trie as it is now (after a viewmode) */
int an_filter_renew(struct an *an, struct an_filter **fp);
int an_thread_select(struct an *an, struct an_filter **fp, const char *list);
int an_cpu_select(struct an *an, struct an_filter **fp, const char *list);
int an_sample_select(struct an *an, struct an_filter **fp, const char *list);
int an_rank_select(struct an *an, struct an_filter **fp, const char *list);
/* does experiment exp pass the rank list (NULL: all do)? */
bool an_filter_exp(const struct an_filter *f, uint32_t exp);
bool an_filter_pass(struct an *an, struct an_filter *f, size_t i);
void an_filter_free(struct an_filter **fp);
/* "none", or the filter's parts, in buf */
const char *an_filter_desc(const struct an_filter *f, char *buf, size_t len);

/* ---- the output layer (out.c) ---- */

#define AN_PM_TEXT 0
#define AN_PM_CSV 1
#define AN_PM_DELIM 2

/* What a cell holds: nothing, text, or a number and how it is shown. */
enum {
	AN_C_NONE,
	AN_C_TEXT,
	AN_C_TIME,	/* seconds: 3 decimals */
	AN_C_COUNT,	/* events: a whole number */
	AN_C_PCT,	/* a percentage: 2 decimals */
	AN_C_INT,	/* an integer (bytes) */
	AN_C_DTIME,	/* -compare delta: signed seconds, 3 decimals */
	AN_C_DCOUNT,	/* -compare delta: signed events */
	AN_C_RATIO,	/* -compare ratio: x1.234, x>99.999 */
	AN_C_ABSENT,	/* a metric the recording could not give: "absent" */
};

struct an_cell {
	int kind;		/* AN_C_* */
	union {
		char *s;	/* AN_C_TEXT, owned */
		double d;
		uint64_t u;	/* AN_C_INT */
	};
};

struct an_col {
	char *head1, *head2;	/* the two title lines */
	bool left;		/* aligned left (names, text) */
};

/* What a view computed: rows x columns of values, with the columns' names. */
struct an_table {
	int ncol;
	struct an_col *cols;
	struct an_cell *cells;	/* rows x ncol */
	size_t rows, cap;
};

struct an_out;

/* A format: how titles and tables are written (text, csv, delimiter). */
struct an_fmt_ops {
	void (*title)(struct an_out *o, const char *s);
	void (*table)(struct an_out *o, const struct an_table *t);
};

/* Where views write, and how (-outfile, -printmode). */
struct an_out {
	FILE *f;
	int mode;		/* AN_PM_* */
	char delim;		/* AN_PM_DELIM's */
	const struct an_fmt_ops *ops;
};

void an_out_mode(struct an_out *o, int mode, char delim);
void an_fmt_num(char *buf, size_t len, int kind, double v);
void an_title(struct an_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int an_table_init(struct an_table *t, int ncol);
int an_table_head(struct an_table *t, int col, const char *h1, const char *h2,
		  bool left);
size_t an_table_row(struct an_table *t);	/* new row index, or SIZE_MAX */
int an_table_text(struct an_table *t, size_t row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void an_table_num(struct an_table *t, size_t row, int col, int kind, double v);
void an_table_int(struct an_table *t, size_t row, int col, uint64_t v);
void an_table_print(struct an_out *o, const struct an_table *t);
void an_table_free(struct an_table *t);

/*
 * The view settings: what the commands set (cmd_print.c owns them) and
 * every view reads, given to it as an argument.
 */
struct an_settings {
	struct an_mlist ml;	/* explicit -metrics, or n == 0: defaults */
	struct an_msort sort;
	bool sort_set;
	long limit;		/* 0: all */
	bool name_long;		/* -name long */
	struct an_filter *filter;	/* NULL: every sample */
	int compare;		/* -compare: AN_CMP_* */
};

/* -compare: each experiment's metrics side by side (view_compare.c) */
#define AN_CMP_OFF	0
#define AN_CMP_ON	1	/* the values */
#define AN_CMP_DELTA	2	/* the others as differences from the first */
#define AN_CMP_RATIO	3	/* ... as ratios to the first */

int an_cmp_parse(struct an *an, const char *arg, int *mode);
/* experiments compared: 1 when -compare is off or there is one */
int an_cmp_groups(struct an *an, const struct an_settings *vs);
/* ml's metric columns, one per experiment each; their table's heads */
int an_cmp_heads(struct an *an, const struct an_settings *vs,
		 struct an_mlist *ml, struct an_table *t);
/*
 * Items of f[0..ng) with one key (their name) become one: the first
 * item's, with the others' values added.
 */
int an_cmp_merge(struct an *an, struct an_flat *f, int ng,
		 const char *(*key)(void *ctx, uint32_t k), void *ctx);
/* One experiment's base vectors of a row: exclusive, inclusive, attributed
 * (NULL: zero). */
struct an_cmp_vals {
	const uint64_t *e, *i, *a;
};

/*
 * A row of the compared experiments: experiment x's values v[x], its
 * percentages of g[x]'s total; the base is v[0].
 */
void an_cmp_row(struct an *an, const struct an_settings *vs,
		const struct an_mlist *ml, struct an_table *t, size_t row,
		const struct an_agg *g, const struct an_cmp_vals *v,
		const char *name, uint64_t size, const char *addr);

/* views: the experiments, the settings, where to write */
int an_view_flat(struct an *an, const struct an_settings *vs,
		 struct an_out *o, int kind);
int an_view_fsingle(struct an *an, const struct an_settings *vs,
		    struct an_out *o, const char *name);
int an_view_cc(struct an *an, const struct an_settings *vs,
	       struct an_out *o, const char *single);
int an_view_calltree(struct an *an, const struct an_settings *vs,
		     struct an_out *o);
int an_view_source(struct an *an, const struct an_settings *vs,
		   struct an_out *o, const char *what);
int an_view_disasm(struct an *an, const struct an_settings *vs,
		   struct an_out *o, const char *what);
int an_view_statistics(struct an *an, const struct an_settings *vs,
		       struct an_out *o);
int an_view_header(struct an *an, const struct an_settings *vs,
		   struct an_out *o);
int an_view_overview(struct an *an, const struct an_settings *vs,
		     struct an_out *o);
int an_view_thread_list(struct an *an, const struct an_settings *vs,
			struct an_out *o);
int an_view_cpu_list(struct an *an, const struct an_settings *vs,
		     struct an_out *o);
int an_view_sample_list(struct an *an, const struct an_settings *vs,
			struct an_out *o);

/* view_trace.c: traced calls (docs/design/tracing.md) */
enum { AN_HEAP_ALL, AN_HEAP_LEAKS, AN_HEAP_ALLOCS };
int an_view_heap(struct an *an, const struct an_settings *vs,
		 struct an_out *o, int what);
int an_view_heapstat(struct an *an, const struct an_settings *vs,
		     struct an_out *o);
int an_view_io(struct an *an, const struct an_settings *vs, struct an_out *o,
	       bool detail);
int an_view_iocallstack(struct an *an, const struct an_settings *vs,
			struct an_out *o);
/* view_mpi.c: the MPI views (-mpi_stats, -mpi_matrix, -rank_list) */
int an_view_mpi_stats(struct an *an, const struct an_settings *vs,
		      struct an_out *o);
int an_view_mpi_matrix(struct an *an, const struct an_settings *vs,
		       struct an_out *o);
int an_view_rank_list(struct an *an, const struct an_settings *vs,
		      struct an_out *o);
int an_view_omp_regions(struct an *an, const struct an_settings *vs,
			struct an_out *o);
int an_view_omp_tasks(struct an *an, const struct an_settings *vs,
		      struct an_out *o);
int an_view_iostat(struct an *an, const struct an_settings *vs,
		   struct an_out *o);
/*
 * experiment exp's traced waits: their count and time, and of those with
 * the module's microstates over the call, their count and the sums
 * (ms[LWPROF_MS_COUNT], added to)
 */
void an_trace_sync_sum(struct an *an, size_t exp, uint64_t *n, uint64_t *ns,
		       uint64_t *nms, uint64_t *ms);
/* its n longest, each with the microstates of the clock packets in it */
void an_trace_sync_top(struct an *an, size_t exp, size_t n, FILE *f);

/* columns.c: the metric columns of the views' tables */
int an_cols_effective(struct an *an, const struct an_settings *vs,
		      const struct an_agg *g, struct an_mlist *out,
		      bool attributed);
int an_metric_cell(struct an *an, int m);	/* AN_C_TIME, _COUNT or _ABSENT */
int an_make_heads(struct an *an, struct an_mlist *ml, struct an_table *t);
/*
 * Fill a row's columns of ml: metrics from the base vectors of the e, i
 * and a flavors (NULL: blank), percentages of tot; the name, and size and
 * address (addr NULL: blank).
 */
void an_fill_row(struct an *an, const struct an_mlist *ml, struct an_table *t,
		 size_t row, const uint64_t *e,
		 const uint64_t *i, const uint64_t *a, const uint64_t *tot,
		 const char *name, uint64_t size, const char *addr);
/* view_func.c: the function named name, and how many have that name */
uint32_t an_func_find(struct an *an, const char *name, int *nfound);

#endif
