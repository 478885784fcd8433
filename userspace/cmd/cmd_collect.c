// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect: record an experiment (docs/design/experiment-format.md) with
 * the backend --backend names (auto: the module when it answers, else
 * perf), or with none when only tracing (collect/run.c does the rest).
 */
#include <stdio.h>

#include "userspace/backend/backend.h"
#include "userspace/cmd/cmds.h"
#include "userspace/collect/collect.h"

int cmd_collect(int argc, char **argv)
{
	const struct backend_ops *b;
	struct rec_opts o;
	char why[160];
	int ret;

	ret = collect_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = collect_mpi_prepare(argc, argv, &o);	/* -M */
	if (ret)
		return ret < 0 ? 0 : ret;
	if (!o.clock_ns && !o.nr_counters)
		return collect_run(&o, &collect_trace_only);	/* tracing only */
	b = backend_resolve(o.backend, why, sizeof(why));
	if (why[0])
		fprintf(stderr, COLLECT ": %s: recording with the %s backend (--backend %s; docs/design/perf-backend.md)\n",
			why, b->name, b->name);
	return collect_run(&o, b->rec);
}
