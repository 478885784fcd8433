/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taskstats exit records over generic netlink (TASKSTATS_CMD_GET with
 * TASKSTATS_CMD_ATTR_REGISTER_CPUMASK): the kernel sends every thread's
 * final accounting when it exits.  Registering needs CAP_NET_ADMIN.
 * Every function returns 0 or a negative errno.
 */
#ifndef LWPROF_TASKSTATS_H
#define LWPROF_TASKSTATS_H

#include <linux/taskstats.h>

struct lwprof_ts;

/*
 * Open a listener for the exits on every CPU.  -EPERM without
 * CAP_NET_ADMIN, -ENOENT when the kernel has no taskstats.
 */
int lwprof_ts_open(struct lwprof_ts **ts);

/*
 * Hand every exit record received so far to fn (a thread's record; the
 * fields the running kernel does not send are zero).  Returns how many
 * records the kernel dropped since the last call (a full socket buffer)
 * or a negative errno.
 */
int lwprof_ts_drain(struct lwprof_ts *ts,
		    void (*fn)(void *arg, const struct taskstats *t),
		    void *arg);

/* A live thread's accounting so far (ac_etime: its age). */
int lwprof_ts_query(struct lwprof_ts *ts, __u32 tid, struct taskstats *t);

void lwprof_ts_close(struct lwprof_ts *ts);

#endif
