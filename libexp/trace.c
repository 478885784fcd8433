// SPDX-License-Identifier: GPL-2.0
/* Trace records (libexp/trace.h): the calls' names, the records' checks. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/trace.h"

#define EV(e, n, c) [EXP_TR_##e] = { n, EXP_TC_##c }

const struct exp_trace_event_info exp_trace_events[EXP_TR_MAX] = {
	EV(MALLOC, "malloc", ALLOC),
	EV(CALLOC, "calloc", ALLOC),
	EV(REALLOC, "realloc", ALLOC),
	EV(MEMALIGN, "memalign", ALLOC),
	EV(POSIX_MEMALIGN, "posix_memalign", ALLOC),
	EV(ALIGNED_ALLOC, "aligned_alloc", ALLOC),
	EV(VALLOC, "valloc", ALLOC),
	EV(PVALLOC, "pvalloc", ALLOC),
	EV(MMAP, "mmap", ALLOC),
	EV(FREE, "free", FREE),
	EV(MUNMAP, "munmap", FREE),
	EV(REALLOCARRAY, "reallocarray", ALLOC),
	EV(MUTEX_LOCK, "pthread_mutex_lock", SYNC),
	EV(MUTEX_TIMEDLOCK, "pthread_mutex_timedlock", SYNC),
	EV(COND_WAIT, "pthread_cond_wait", SYNC),
	EV(COND_TIMEDWAIT, "pthread_cond_timedwait", SYNC),
	EV(RWLOCK_RDLOCK, "pthread_rwlock_rdlock", SYNC),
	EV(RWLOCK_WRLOCK, "pthread_rwlock_wrlock", SYNC),
	EV(RWLOCK_TIMEDRDLOCK, "pthread_rwlock_timedrdlock", SYNC),
	EV(RWLOCK_TIMEDWRLOCK, "pthread_rwlock_timedwrlock", SYNC),
	EV(SEM_WAIT, "sem_wait", SYNC),
	EV(SEM_TIMEDWAIT, "sem_timedwait", SYNC),
	EV(JOIN, "pthread_join", SYNC),
	EV(BARRIER_WAIT, "pthread_barrier_wait", SYNC),
	EV(MUTEX_CLOCKLOCK, "pthread_mutex_clocklock", SYNC),
	EV(COND_CLOCKWAIT, "pthread_cond_clockwait", SYNC),
	EV(RWLOCK_CLOCKRDLOCK, "pthread_rwlock_clockrdlock", SYNC),
	EV(RWLOCK_CLOCKWRLOCK, "pthread_rwlock_clockwrlock", SYNC),
	EV(SEM_CLOCKWAIT, "sem_clockwait", SYNC),
	EV(TIMEDJOIN, "pthread_timedjoin_np", SYNC),
	EV(CLOCKJOIN, "pthread_clockjoin_np", SYNC),
	EV(READ, "read", IOREAD),
	EV(PREAD, "pread", IOREAD),
	EV(READV, "readv", IOREAD),
	EV(PREADV, "preadv", IOREAD),
	EV(WRITE, "write", IOWRITE),
	EV(PWRITE, "pwrite", IOWRITE),
	EV(WRITEV, "writev", IOWRITE),
	EV(PWRITEV, "pwritev", IOWRITE),
	EV(OPEN, "open", IOOTHER),
	EV(CLOSE, "close", IOOTHER),
	EV(DUP, "dup", IOOTHER),
	EV(FSYNC, "fsync", IOOTHER),
	EV(FDATASYNC, "fdatasync", IOOTHER),
	EV(LSEEK, "lseek", IOOTHER),
	EV(CREAT, "creat", IOOTHER),
	EV(FCNTL, "fcntl", IOOTHER),
	EV(FTRUNCATE, "ftruncate", IOOTHER),
	EV(FOPEN, "fopen", IOOTHER),
	EV(FCLOSE, "fclose", IOOTHER),
	EV(FREAD, "fread", IOREAD),
	EV(FWRITE, "fwrite", IOWRITE),
	EV(FFLUSH, "fflush", IOOTHER),
	EV(MPI, "MPI", NONE),
};

const char *exp_trace_check(const struct exp_rec_trace *t, unsigned int *at)
{
	__u64 sum = 0;
	int i;

	*at = offsetof(struct exp_rec_trace, event);
	if (!exp_trace_event(t->event))
		return "unknown traced call";
	*at = offsetof(struct exp_rec_trace, pad0);
	if (t->pad0)
		return "trace record padding not zero";
	*at = offsetof(struct exp_rec_trace, s);
	if (t->s.hdr.type != LWPROF_REC_SAMPLE)
		return "trace record without its sample";
	*at = offsetof(struct exp_rec_trace, s.time_ns);
	if (t->s.time_ns < t->start_ns)
		return "trace record returns before it starts";
	*at = offsetof(struct exp_rec_trace, s.pid);
	if (!t->s.pid || !t->s.tid)
		return "trace record of pid or tid 0";
	/* the module's microstates over the call, or none (all 0) */
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		sum += t->s.mstate_ns[i];
	*at = offsetof(struct exp_rec_trace, s.value);
	if (sum != t->s.value)
		return "trace record's microstates do not sum to its value";
	return NULL;
}

/*
 * A record's name at path (plen bytes to the record's end): NUL-terminated,
 * not empty, padded with NULs?  0; 1 not terminated, 2 padding not zero,
 * *at the offset of the fault in the record at rec.
 */
static int path_check(const void *rec, const char *path, size_t plen,
		      unsigned int *at)
{
	const char *nul = memchr(path, 0, plen), *p;

	*at = path - (const char *)rec;
	if (!nul || nul == path)
		return 1;
	for (p = nul; p < path + plen; p++)
		if (*p) {
			*at = p - (const char *)rec;
			return 2;
		}
	return 0;
}

const char *exp_trace_file_check(const struct exp_rec_trace_file *f,
				 unsigned int *at)
{
	static const char *const why[] = { NULL, "trace file name not NUL-terminated",
					   "trace file name padding not zero" };
	int bad = path_check(f, f->path, f->hdr.size - sizeof(*f), at);

	if (bad)
		return why[bad];
	*at = offsetof(struct exp_rec_trace_file, pid);
	if (!f->pid)
		return "trace file record of pid 0";
	return NULL;
}

const char *exp_trace_free_check(const struct exp_rec_trace_free *f,
				 unsigned int *at)
{
	const struct exp_trace_event_info *e = exp_trace_event(f->event);

	*at = offsetof(struct exp_rec_trace_free, event);
	if (!e || e->cls != EXP_TC_FREE)
		return "not a free";
	*at = offsetof(struct exp_rec_trace_free, pad0);
	if (f->pad0 || f->pad1)
		return "trace free record padding not zero";
	*at = offsetof(struct exp_rec_trace_free, pid);
	if (!f->pid || !f->tid)
		return "trace free record of pid or tid 0";
	return NULL;
}

const char *exp_trace_untraced_check(const struct exp_rec_trace_untraced *u,
				     unsigned int *at)
{
	static const char *const why[] = { NULL, "untraced program name not NUL-terminated",
					   "untraced program name padding not zero" };

	*at = offsetof(struct exp_rec_trace_untraced, reason);
	if (!exp_untraced_why(u->reason))
		return "unknown reason of an untraced program";
	*at = offsetof(struct exp_rec_trace_untraced, pad0);
	if (u->pad0 || u->pad1)
		return "untraced record padding not zero";
	*at = offsetof(struct exp_rec_trace_untraced, ppid);
	if (!u->ppid)
		return "untraced record of parent pid 0";
	return why[path_check(u, u->path, u->hdr.size - sizeof(*u), at)];
}

const char *exp_untraced_why(unsigned int reason)
{
	static const char *const why[EXP_UT_MAX] = {
		[EXP_UT_STATIC] = "is statically linked",
		[EXP_UT_SETUID] = "is set-user-ID to another user (the dynamic linker ignores LD_PRELOAD)",
		[EXP_UT_SETGID] = "is set-group-ID to another group (the dynamic linker ignores LD_PRELOAD)",
		[EXP_UT_CAPS] = "has file capabilities (the dynamic linker ignores LD_PRELOAD)",
		[EXP_UT_FOREIGN] = "is not an x86-64 program",
		[EXP_UT_ENV] = "runs from an environment without the tracing library's LD_PRELOAD or settings",
		[EXP_UT_EXEC_FAILED] = "did not start (the exec failed: traced on)",
	};

	return reason < EXP_UT_MAX ? why[reason] : NULL;
}

/* Is e the entry u takes back, or says again? */
static bool same(const struct exp_untraced *e, const struct exp_rec_trace_untraced *u)
{
	if (u->reason == EXP_UT_EXEC_FAILED || u->pid)
		return e->pid == u->pid;
	return !e->pid && e->ppid == u->ppid && e->reason == u->reason &&
	       !strcmp(e->path, u->path);
}

int exp_untraced_add(struct exp_untraced_list *l,
		     const struct exp_rec_trace_untraced *u)
{
	struct exp_untraced *e;
	char *path;
	size_t i;

	for (i = l->n; i-- > 0;) {
		if (!same(&l->v[i], u))
			continue;
		if (u->reason != EXP_UT_EXEC_FAILED)
			return 0;	/* said once per process */
		free(l->v[i].path);
		memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*e));
		l->n--;
		return 0;
	}
	if (u->reason == EXP_UT_EXEC_FAILED)
		return 0;
	path = strdup(u->path);
	if (!path)
		return -ENOMEM;
	if (l->n == l->cap) {
		e = realloc(l->v, (l->cap * 2 + 4) * sizeof(*e));
		if (!e) {
			free(path);
			return -ENOMEM;
		}
		l->v = e;
		l->cap = l->cap * 2 + 4;
	}
	for (i = l->n; i > 0 && l->v[i - 1].time_ns > u->time_ns; i--)
		;	/* in time order */
	e = &l->v[i];
	memmove(e + 1, e, (l->n - i) * sizeof(*e));
	*e = (struct exp_untraced){ u->time_ns, u->pid, u->ppid, u->reason, path };
	l->n++;
	return 0;
}

void exp_untraced_free(struct exp_untraced_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void exp_untraced_str(const struct exp_untraced *u, char *buf, size_t len)
{
	if (u->pid)
		snprintf(buf, len, "process %u: %s %s: not traced", u->pid, u->path,
			 exp_untraced_why(u->reason));
	else
		snprintf(buf, len, "a child of process %u (system, popen): %s %s: not traced",
			 u->ppid, u->path, exp_untraced_why(u->reason));
}
