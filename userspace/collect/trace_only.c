// SPDX-License-Identifier: GPL-2.0
/*
 * The recording source of a run that only traces (collect -s/-H/-i with
 * -p off and no -h, or where the module is not loaded): no rings, since
 * the tracing library in the command writes its own files, which the
 * loop adopts at the end (trace.c).  No usage either: the run
 * ends when the command does.
 */
#include <errno.h>
#include <stdlib.h>

#include "userspace/collect/collect.h"

static int trace_open(const struct rec_opts *o, struct rec_source **sp,
		      char *msg, size_t len)
{
	struct rec_source *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ops = &collect_trace_only;
	s->poll_fd = -1;
	*sp = s;
	return 0;
}

static int trace_setup(struct rec_source *s, int pid, struct exp_writer *e,
		       char *msg, size_t len)
{
	s->abi_major = LWPROF_ABI_MAJOR;
	s->abi_minor = LWPROF_ABI_MINOR;
	exp_note(e, EXP_K_SOURCE, "tracing only");
	return 0;
}

static int trace_start(struct rec_source *s, char *msg, size_t len)
{
	return 0;
}

static void trace_stop(struct rec_source *s, struct exp_writer *e)
{
}

static void trace_finish(struct rec_source *s, struct exp_writer *e)
{
}

static void trace_close(struct rec_source *s)
{
	free(s);
}

const struct rec_ops collect_trace_only = {
	.name = "trace",
	.open = trace_open,
	.setup = trace_setup,
	.start = trace_start,
	.stop = trace_stop,
	.finish = trace_finish,
	.close = trace_close,
};
