/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread perf counters for ptime and top without the module: the
 * system calls (raw_syscalls:sys_enter) and signals delivered
 * (signal:signal_deliver) of each thread, counted with perf_event_open(2)
 * from when the thread is first read.  Tracepoints count in the kernel, so
 * perf's rules want CAP_PERFMON (or perf_event_paranoid <= 1), and their
 * ids come from tracefs.  Every function returns 0 or a negative errno.
 */
#ifndef LWPROF_USAGE_PCNT_H
#define LWPROF_USAGE_PCNT_H

#include <linux/types.h>

struct lwprof_pcnt;

/*
 * -ENOENT: no tracefs mounted (/sys/kernel/tracing, or debugfs's
 * tracing); -EACCES: tracefs is not ours to read, or perf_event_paranoid
 * forbids kernel events to us.
 */
int lwprof_pcnt_open(struct lwprof_pcnt **pc);

/*
 * Thread tid's counts since its counters were opened, opening them now
 * (counts 0) if it has none.  They stay readable after the thread exits,
 * with its final counts.  -ESRCH: it cannot be counted (gone before we
 * could open them, or out of file descriptors).
 */
int lwprof_pcnt_read(struct lwprof_pcnt *pc, __u32 tid, __u64 *syscalls,
		     __u64 *signals);

/* Close the counters of the threads not read since the last sweep. */
void lwprof_pcnt_sweep(struct lwprof_pcnt *pc);

void lwprof_pcnt_close(struct lwprof_pcnt *pc);

#endif
