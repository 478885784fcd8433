// SPDX-License-Identifier: GPL-2.0
/* Trace records (libexp/trace.h): the calls' names, the records' checks. */
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

const char *exp_trace_file_check(const struct exp_rec_trace_file *f,
				 unsigned int *at)
{
	size_t plen = f->hdr.size - sizeof(*f);
	const char *nul = memchr(f->path, 0, plen), *p;

	*at = sizeof(*f);
	if (!nul || nul == f->path)
		return "trace file name not NUL-terminated";
	for (p = nul; p < f->path + plen; p++)
		if (*p) {
			*at = p - (const char *)f;
			return "trace file name padding not zero";
		}
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
