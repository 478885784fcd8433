/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where ptime and top read thread usage from: the module's microstate
 * session, or (the perf backend) /proc, taskstats and what the kernel
 * keeps without us.  One interface over both; every function returns 0
 * or a negative errno.
 */
#ifndef LWPROF_USAGE_SRC_H
#define LWPROF_USAGE_SRC_H

#include <stddef.h>

#include "backend.h"
#include "usage.h"

struct lwprof_proc;
struct lwprof_usage_ops;

struct lwprof_usage_src {
	enum lwprof_backend backend;	/* resolved: MODULE or PERF */
	const struct lwprof_usage_ops *ops;
	int fd;				/* MODULE: /dev/lwprof */
	struct lwprof_proc *proc;	/* PERF */
	char why[128];			/* auto chose PERF: the module's reason */
};

/*
 * Open the backend want (AUTO: the module when it answers, else perf).
 * On error, lwprof_dev_strerror() explains it (the module's errors).
 */
int lwprof_src_open(struct lwprof_usage_src *s, enum lwprof_backend want);

/* Attach to process pid, or to the machine with LWPROF_ATTACH_MACHINE. */
int lwprof_src_attach(struct lwprof_usage_src *s, __u32 flags, int pid);

/* Read the session's threads and merge them into set (set->have says
 * which columns are filled). */
int lwprof_src_read(struct lwprof_usage_src *s, struct lwprof_usage_set *set);

/* A one-line explanation of an error from attach. */
const char *lwprof_src_strerror(const struct lwprof_usage_src *s, int err,
				__u32 flags, int pid, char *buf, size_t len);

/*
 * For the log, on stderr: the backend, why, and what it fills; nothing
 * for the module, which fills everything.
 */
void lwprof_src_log(const struct lwprof_usage_src *s, const char *cmd);

void lwprof_src_close(struct lwprof_usage_src *s);

#endif
