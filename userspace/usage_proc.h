/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread usage without the module, for ptime and top: every thread's
 * /proc/PID/task/TID/{stat,schedstat,status}, and the kernel's taskstats
 * exit records (exact final totals of the threads that exit) where the
 * caller may register for them (CAP_NET_ADMIN).  Records come as the
 * module's struct lwprof_thread_usage, with the columns /proc cannot fill
 * left out of lwprof_usage_set.have.  Every function returns 0 or a
 * negative errno.
 */
#ifndef LWPROF_USAGE_PROC_H
#define LWPROF_USAGE_PROC_H

#include <stddef.h>

#include "usage.h"

/* The columns this backend fills. */
#define LWPROF_PROC_HAVE	(LWPROF_HAVE_MS(LWPROF_MS_USER) | \
				 LWPROF_HAVE_MS(LWPROF_MS_SYSTEM) | \
				 LWPROF_HAVE_MS(LWPROF_MS_SLEEP) | \
				 LWPROF_HAVE_MS(LWPROF_MS_WAIT_CPU) | \
				 LWPROF_HAVE_VCSW | LWPROF_HAVE_IVCSW | \
				 LWPROF_HAVE_MINFLT | LWPROF_HAVE_MAJFLT)

struct lwprof_proc;

int lwprof_proc_open(struct lwprof_proc **p);

/*
 * Watch process pid, its threads and the processes it creates from now on
 * (and those orphaned to us when pid is our child and we are its
 * subreaper), or with LWPROF_ATTACH_MACHINE every thread.  -ESRCH: no
 * such process; -EACCES: no ptrace rights over it; -EPERM: the machine
 * without CAP_PERFMON or CAP_SYS_ADMIN.
 */
int lwprof_proc_attach(struct lwprof_proc *p, __u32 flags, int pid);

/*
 * Read the session's threads into set: the live ones as they are now,
 * zombies and the threads whose taskstats exit record came with their
 * final totals (LWPROF_TU_EXITED, once).  A thread that vanished without
 * an exit record keeps, in set, its last reading.
 */
int lwprof_proc_read(struct lwprof_proc *p, struct lwprof_usage_set *set);

/* How exited threads are counted, for the log (one line). */
const char *lwprof_proc_note(const struct lwprof_proc *p, char *buf,
			     size_t len);

void lwprof_proc_close(struct lwprof_proc *p);

#endif
