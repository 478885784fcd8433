/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Microstate sessions for ptime and top: attach, and read every thread's
 * usage into a set that merges successive reads.  Every function returns 0
 * or a negative errno.
 */
#ifndef LWPROF_USAGE_H
#define LWPROF_USAGE_H

#include <stddef.h>

#include "lwprof.h"

/*
 * The columns a backend fills (lwprof_usage_set.have): one bit per
 * microstate (LWPROF_HAVE_MS(LWPROF_MS_*)), then the counts.  The module
 * fills them all; a column without its bit is absent and shown as "-".
 */
#define LWPROF_HAVE_MS(ms)	(1u << (ms))
#define LWPROF_HAVE_VCSW	(1u << 10)
#define LWPROF_HAVE_IVCSW	(1u << 11)
#define LWPROF_HAVE_MINFLT	(1u << 12)
#define LWPROF_HAVE_MAJFLT	(1u << 13)
#define LWPROF_HAVE_SYSCALLS	(1u << 14)
#define LWPROF_HAVE_SIGNALS	(1u << 15)
#define LWPROF_HAVE_ALL		0xffffu

/*
 * A record's flag of our own (above the uapi's LWPROF_TU_*): its syscall
 * and signal counts are unknown though its backend has them (a thread
 * that could not be counted).  lwprof_usage_have() applies it.
 */
#define LWPROF_TU_NOCOUNT	(1u << 31)

/* The columns filled for one record of a set. */
static inline __u32 lwprof_usage_have(__u32 have,
				      const struct lwprof_thread_usage *tu)
{
	if (tu->flags & LWPROF_TU_NOCOUNT)
		have &= ~(LWPROF_HAVE_SYSCALLS | LWPROF_HAVE_SIGNALS);
	return have;
}

/*
 * The threads of a session, sorted by pid, tid, start_ns.  A thread is
 * identified by (pid, tid, start_ns), so a recycled tid is another thread.
 * A later record of a thread replaces the earlier one; final (EXITED)
 * records are only ever returned once by the module, so the set keeps them.
 */
struct lwprof_usage_set {
	struct lwprof_thread_usage *tu;
	size_t n;
	size_t cap;
	__u32 live;		/* from the last read */
	__u64 lost;		/* from the last read */
	__u64 now_ns;		/* from the last read */
	__u32 have;		/* LWPROF_HAVE_* of the last read */
	__u32 stopped;		/* ABI 1.6: LWPROF_STOP_* once another session ended it */
};

/* Sums over a set's threads (or one thread). */
struct lwprof_usage_sum {
	__u64 ms[LWPROF_MS_COUNT];
	__u64 vcsw, ivcsw, minflt, majflt, syscalls, signals;
};

/*
 * The microstates in the order ptime and top show them (Solaris's ptime
 * -m order): user sys trap tflt dflt kflt lock slp lat stop.
 */
extern const int lwprof_ms_order[LWPROF_MS_COUNT];

/* Parse a positive process id; -EINVAL if s is not one. */
int lwprof_parse_pid(const char *s, int *pid);

/* Format ns as seconds with 9 decimals ("12.000000345") into buf. */
char *lwprof_fmt_sec(char *buf, size_t len, __u64 ns);

/*
 * Open /dev/lwprof and check that the module does microstate accounting.
 * Returns the fd, or a negative errno (-EOPNOTSUPP: no LWPROF_FEAT_MSTATE);
 * lwprof_session_strerror() explains it.
 */
int lwprof_session_open(void);

/* ATTACH fd to process pid, or to the machine with LWPROF_ATTACH_MACHINE. */
int lwprof_session_attach(int fd, __u32 flags, int pid);

/* Why pid may not be traced (no ptrace rights), and what would allow it. */
const char *lwprof_ptrace_refusal(int pid, char *buf, size_t len);

/* A one-line explanation of an error from open or attach. */
const char *lwprof_session_strerror(int err, __u32 flags, int pid,
				    char *buf, size_t len);

void lwprof_usage_init(struct lwprof_usage_set *set);
void lwprof_usage_free(struct lwprof_usage_set *set);

/* Drop every thread from the set. */
void lwprof_usage_clear(struct lwprof_usage_set *set);

/*
 * Read the session's threads (all of them, growing the buffer as needed)
 * and merge them into set.
 */
int lwprof_usage_read(int fd, struct lwprof_usage_set *set);

/* Add n records to the set; keep one, the newest, per thread. */
int lwprof_usage_merge(struct lwprof_usage_set *set,
		       const struct lwprof_thread_usage *tu, size_t n);

/*
 * Hand the set's exited threads to put (runs of n records) and drop them
 * from the set, which keeps the live ones: their records are final, and
 * the module returns each only once.  On put's error the records not
 * handed over stay in the set; the error is returned.
 */
int lwprof_usage_spill(struct lwprof_usage_set *set,
		       int (*put)(void *arg,
				  const struct lwprof_thread_usage *tu,
				  size_t n),
		       void *arg);

/* The thread (pid, tid, start_ns) in set, or NULL. */
const struct lwprof_thread_usage *
lwprof_usage_find(const struct lwprof_usage_set *set,
		  const struct lwprof_thread_usage *key);

/* Add one thread's usage to sum (a = tu) or its growth since old. */
void lwprof_usage_add(struct lwprof_usage_sum *sum,
		      const struct lwprof_thread_usage *tu,
		      const struct lwprof_thread_usage *old);

/*
 * Make the threads of set that are also in base count from base's record:
 * subtract its times and counts, and start at its end_ns.
 */
void lwprof_usage_rebase(struct lwprof_usage_set *set,
			 const struct lwprof_usage_set *base);

/* end_ns - start_ns of thread tid, or of the whole set if tid is absent. */
__u64 lwprof_usage_real(const struct lwprof_usage_set *set, int tid);

#endif
