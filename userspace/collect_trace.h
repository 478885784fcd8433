/* SPDX-License-Identifier: GPL-2.0 */
/* collect -s/-H/-i: collect's side of tracing (collect_trace.c). */
#ifndef LWPROF_COLLECT_TRACE_H
#define LWPROF_COLLECT_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "collect.h"

/*
 * Before the experiment exists: can the command be traced (the library
 * is there, the command is not static or set-user-ID)?  0, or -errno and
 * the reason in msg.
 */
int collect_trace_check(const struct collect_opts *o, char *msg, size_t len);
/*
 * The experiment exists: calibrate the sync threshold, set this
 * process's environment for the command (LD_PRELOAD, LWPROF_TRACE,
 * LWPROF_TRACE_DIR) and note the settings for log.txt.  source_tasks:
 * the recording source writes the processes' TASK and MMAP records (the
 * module does), so the library must not write them again.
 */
int collect_trace_env(const struct collect_opts *o, struct exp_writer *e,
		      bool source_tasks, char *msg, size_t len);
/* The command is done: check, count and archive the trace files. */
void collect_trace_adopt(const struct collect_opts *o, struct exp_writer *e,
			 struct archiver *a);

#endif
