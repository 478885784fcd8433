/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading one thread from /proc (stat, schedstat, status) into what
 * usage_proc.c keeps of it, and the checks that ask the kernel what the
 * caller may do.  Functions return 0 or a negative errno.
 */
#ifndef LWPROF_PROC_FILES_H
#define LWPROF_PROC_FILES_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>

#include "lwprof.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

/* What one reading of a thread (or one exit record) says. */
struct proc_thr {
	__u32 pid, tid, ppid;
	char state;
	char comm[16];
	__u64 start_ns, life_ns;
	__u64 tick_ns;		/* start by /proc's starttime */
	__u64 read_ns;		/* when its schedstat was read */
	__u64 run_ns, delay_ns, utime, stime;
	__u64 vcsw, ivcsw, minflt, majflt;
};

/* CLOCK_BOOTTIME in ns: /proc's starttime counts from boot. */
__u64 proc_boot_ns(void);

/* Whether the capability is in our effective set (capget(2)). */
bool proc_has_cap(int cap);

/*
 * Ptrace read rights over pid, as the kernel checks them for /proc/PID/io:
 * -EACCES without, -ESRCH without such a process.
 */
int proc_may_trace(int pid);

/* Read a small file at dir/name (dir may be AT_FDCWD) into buf. */
int proc_read_at(int dir, const char *name, char *buf, size_t len);

/*
 * Parse a stat line into t (comm, state, ppid, faults, utime, stime) and
 * *start_tick (starttime in clock ticks since boot).
 */
int proc_parse_stat(const char *s, struct proc_thr *t, __u64 *start_tick);

/* Read the thread whose /proc/PID/task/TID directory is dir into t. */
int proc_read_thread(int dir, __u64 tick_ns, struct proc_thr *t);

/*
 * t as a usage record ending at end_ns: run time split as the kernel
 * splits it, SLEEP the rest of its life.
 */
void proc_to_usage(const struct proc_thr *t, __u64 end_ns, __u32 flags,
		   struct lwprof_thread_usage *tu);

#endif
