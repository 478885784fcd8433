/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwprof export FORMAT -o FILE [SETTINGS] EXPERIMENT...: the experiments
 * written in another tool's format (docs/design/export.md).  The analyzer loads
 * them as lwprof print does, runs the settings (-metrics, -thread_select,
 * -cpu_select, -filters, -name, -inline) and hands the model to
 * the format's write function.
 *
 * A format is one row of an_export_fmts[] (export.c), a struct
 * an_export_ops:
 *
 *   name   what `lwprof export NAME` calls it;
 *   help   one line for the usage message;
 *   write  write the whole file to f: 0, or a negative errno with the
 *          one-line message in an->run->err (an_errf()).  It reads the
 *          model (struct an, read only but for the lazy symbol and line
 *          lookups every view does) and the settings: vs->filter says
 *          which samples count (an_aggregate(), an_filter_pass()),
 *          an_export_metrics() which metrics, vs->name_long the name
 *          form.  f is opened by the caller (a temporary file renamed
 *          over FILE on success, removed on failure; standard output for
 *          "-o -") and closed by it; the format writes bytes, nothing
 *          else;
 *   binary true when the output is not text (refused on a terminal).
 *
 * A new format (html) is a function of that signature in its own file
 * and a row in the table.
 */
#ifndef LWPROF_ANALYZER_EXPORT_H
#define LWPROF_ANALYZER_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/report/report.h"

struct an_export_ops {
	const char *name;
	const char *help;
	int (*write)(struct an *an, const struct an_settings *vs, FILE *f);
	bool binary;
	int need;	/* what it reads of the records (AN_NEED_*) */
};

/* The formats (export.c), and one by name (NULL: none such). */
extern const struct an_export_ops an_export_fmts[];
extern const size_t an_export_nfmts;
const struct an_export_ops *an_export_find(const char *name);

/*
 * Is print command NAME (without its dash) a setting export takes?  The
 * views are not.
 */
bool an_export_setting(const char *name);

/* Write the experiments in format x to path ("-": standard output). */
int an_export_run(struct an *an, const struct an_settings *vs,
		  const struct an_export_ops *x, const char *path);

/*
 * The metrics an export writes: those of the -metrics list (each once,
 * in its order, whatever its flavors), else the default columns' (total
 * and each microstate with data, the counters).  *ms is malloc'd; the
 * count, or a negative errno.  g: the filtered samples' sums.
 */
int an_export_metrics(struct an *an, const struct an_settings *vs,
		      const struct an_agg *g, int **ms);

/* Object obj's build id (hex) in buf, when its experiment archived it. */
bool an_export_buildid(struct an *an, uint32_t obj, char *buf, size_t len);

/* When experiment e started, ns since the epoch (log.txt's start_time), or 0. */
uint64_t an_export_start_wall(const struct an_exp *e);

/* Object obj's virtual address range [lo, hi) from its program headers. */
bool an_export_obj_range(struct an *an, uint32_t obj, uint64_t *lo,
			 uint64_t *hi);

/* the formats: folded.c, pprof.c, perfetto.c, html.c */
int an_export_folded(struct an *an, const struct an_settings *vs, FILE *f);
int an_export_pprof(struct an *an, const struct an_settings *vs, FILE *f);
int an_export_perfetto(struct an *an, const struct an_settings *vs, FILE *f);
int an_export_html(struct an *an, const struct an_settings *vs, FILE *f);

#endif
