/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to export/'s html format (docs/design/html-report.md): one
 * self-contained page (its script and style inside, no network) with the
 * per-thread microstate timeline, the flame graph per metric, the
 * functions table with callers and callees, the header and the
 * statistics.
 */
#ifndef LWPROF_ANALYZER_EXPORT_HTML_H
#define LWPROF_ANALYZER_EXPORT_HTML_H

#include "analyzer/export/export.h"

/* Its parts (json.c): s as a JSON string (safe inside a <script> element) ... */
void html_json_str(FILE *o, const char *s);
/* ... a number, after a comma if sep; an id, -1 for UINT32_MAX ... */
void html_num(FILE *o, bool sep, uint64_t v);
void html_id(FILE *o, bool sep, uint32_t id);
/*
 * ... and the timeline's threads (html_timeline.c): the selected samples
 * with microstate values, per thread by time; a sample's stack as the
 * page's tree node of its pc-trie node (page_node[of_node[node]]).
 */
int html_threads(struct an *an, const struct an_settings *set,
		 const uint32_t *of_node, const uint32_t *page_node, FILE *o);

/* ... and the MPI calls and messages (html_mpi.c) */
int html_mpi(struct an *an, const struct an_settings *set, FILE *o);

/* The page's script, style and body (export/html/, built in by make). */
extern const char an_html_js[], an_html_css[], an_html_body[];

#endif
