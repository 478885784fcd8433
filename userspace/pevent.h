/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_event_open(2) for the counters the commands open themselves:
 * collect's probe of what this machine can count (counters.c) and ptime's
 * and top's per-thread tracepoint counts (usage_pcnt.c).
 */
#ifndef LWPROF_PEVENT_H
#define LWPROF_PEVENT_H

#include <linux/perf_event.h>

/* An attr for event (type, config), hypervisor excluded, all else 0. */
void pevent_attr(struct perf_event_attr *a, __u32 type, __u64 config);

/* perf_event_open(a, pid, cpu, group), close-on-exec: fd or -errno. */
int pevent_open(struct perf_event_attr *a, int pid, int cpu, int group);

#endif
