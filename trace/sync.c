// SPDX-License-Identifier: GPL-2.0
/*
 * Sync wait tracing (collect -s): the thread library's blocking calls,
 * each timed; a wait of at least tr_conf.sync_ns (collect's calibrated
 * threshold, 0 with -s all) is recorded with its request and grant times,
 * the object and the stack.  And the calls the library must see to keep
 * its buffers right: thread start and exit, fork, vfork, _exit (exec:
 * exec.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace.h"

static void sync_ev(uint16_t event, uint64_t *regs, const void *obj,
		    uint64_t t0, int ret)
{
	struct tr_ev ev = { .event = event, .fd = -1, .addr = (uint64_t)obj,
			    .start = t0, .ret = ret };
	uint64_t ms[LWPROF_MS_COUNT];

	ev.end = tr_clock_end();
	if (ev.end - t0 >= tr_conf.sync_ns) {
		ev.ms = tr_ms_delta(t0, ev.end, ms) ? ms : NULL;
		tr_emit(&ev, regs);
	}
}

/* -s all: a call that took its object at once; request and grant now. */
static void sync_at_once(uint16_t event, uint64_t *regs, const void *obj,
			 int ret)
{
	struct tr_ev ev = { .event = event, .fd = -1, .addr = (uint64_t)obj,
			    .ret = ret };

	ev.start = ev.end = tr_now();
	tr_emit(&ev, regs);
}

/*
 * A traced wait's real call between two clock reads (after tr_enter();
 * regs, t0, ret and real are the wrapper's), with tr_in clear during it,
 * as the program's own code runs.
 */
#define TIMED(event, args, obj)						\
	do {								\
		TR_REGS(regs);						\
		t0 = tr_clock_start();					\
		tr_leave();						\
		ret = real args;					\
		tr_in = 1;						\
		sync_ev(event, regs, obj, t0, ret);			\
		tr_leave();						\
	} while (0)

/*
 * A wait: NAME(ARGS) with OBJ the object, traced as EVENT.  The real
 * function is find("NAME") at the first call.
 */
#define WAIT_BY(find, name, event, proto, args, obj)			\
	TR_API int name proto						\
	{								\
		static int (*real) proto;				\
		uint64_t regs[EXP_TR_NR_REGS], t0;			\
		int ret;						\
									\
		if (!real && !(real = find(#name)))			\
			return ENOSYS;					\
		if (!tr_enter(TR_SYNC))					\
			return real args;				\
		TIMED(event, args, obj);				\
		return ret;						\
	}

#define WAIT(name, event, proto, args, obj) \
	WAIT_BY(tr_real, name, event, proto, args, obj)

/*
 * A wait whose object can be tried first: TRY takes it if that needs no
 * wait, and BUSY says, of TRY's result ret, that it would have waited.
 * Taken at once, the call waited for nothing: it is granted at its
 * request.  Under a threshold (-s on, -s N) that is no event and no clock
 * read, the uncontended lock's whole cost a try; with -s all an event of
 * one clock read, request and grant alike, no microstates.  Any other
 * result of the try (an error) is the call's too: the lock calls fail
 * alike where they cannot wait, and those that can (EDEADLK on an
 * error-checking mutex the thread owns) find the object busy and are
 * called.
 */
#define WAIT_TRY(name, event, proto, args, obj, try, busy)		\
	TR_API int name proto						\
	{								\
		static int (*real) proto;				\
		uint64_t regs[EXP_TR_NR_REGS], t0;			\
		int ret, err;						\
									\
		if (!real && !(real = tr_real(#name)))			\
			return ENOSYS;					\
		if (!tr_enter(TR_SYNC))					\
			return real args;				\
		err = errno;						\
		ret = try;						\
		if (!(busy)) {						\
			if (!tr_conf.sync_ns) {				\
				TR_REGS(regs);				\
				sync_at_once(event, regs, obj, ret);	\
			}						\
			tr_leave();					\
			return ret;					\
		}							\
		errno = err;	/* the try's EAGAIN is not the call's */ \
		TIMED(event, args, obj);				\
		return ret;						\
	}

/* The locks' tries return EBUSY; sem_trywait -1 with errno EAGAIN. */
#define MUTEX(name, event, proto, args) \
	WAIT_TRY(name, event, proto, args, m, pthread_mutex_trylock(m), ret == EBUSY)
#define RDLOCK(name, event, proto, args) \
	WAIT_TRY(name, event, proto, args, l, pthread_rwlock_tryrdlock(l), ret == EBUSY)
#define WRLOCK(name, event, proto, args) \
	WAIT_TRY(name, event, proto, args, l, pthread_rwlock_trywrlock(l), ret == EBUSY)
#define SEM(name, event, proto, args) \
	WAIT_TRY(name, event, proto, args, s, sem_trywait(s), ret && errno == EAGAIN)

MUTEX(pthread_mutex_lock, EXP_TR_MUTEX_LOCK, (pthread_mutex_t *m), (m))
MUTEX(pthread_mutex_timedlock, EXP_TR_MUTEX_TIMEDLOCK,
      (pthread_mutex_t *m, const struct timespec *t), (m, t))
RDLOCK(pthread_rwlock_rdlock, EXP_TR_RWLOCK_RDLOCK, (pthread_rwlock_t *l), (l))
WRLOCK(pthread_rwlock_wrlock, EXP_TR_RWLOCK_WRLOCK, (pthread_rwlock_t *l), (l))
RDLOCK(pthread_rwlock_timedrdlock, EXP_TR_RWLOCK_TIMEDRDLOCK,
       (pthread_rwlock_t *l, const struct timespec *t), (l, t))
WRLOCK(pthread_rwlock_timedwrlock, EXP_TR_RWLOCK_TIMEDWRLOCK,
       (pthread_rwlock_t *l, const struct timespec *t), (l, t))
WAIT(pthread_join, EXP_TR_JOIN, (pthread_t th, void **rv), (th, rv), (void *)th)
WAIT(pthread_barrier_wait, EXP_TR_BARRIER_WAIT, (pthread_barrier_t *b), (b), b)
SEM(sem_wait, EXP_TR_SEM_WAIT, (sem_t *s), (s))
SEM(sem_timedwait, EXP_TR_SEM_TIMEDWAIT, (sem_t *s, const struct timespec *t), (s, t))
/* glibc 2.30's clock variants (C++'s condition_variable waits with them) */
MUTEX(pthread_mutex_clocklock, EXP_TR_MUTEX_CLOCKLOCK,
      (pthread_mutex_t *m, clockid_t c, const struct timespec *t), (m, c, t))
WAIT(pthread_cond_clockwait, EXP_TR_COND_CLOCKWAIT,
     (pthread_cond_t *cv, pthread_mutex_t *m, clockid_t c, const struct timespec *t),
     (cv, m, c, t), cv)
RDLOCK(pthread_rwlock_clockrdlock, EXP_TR_RWLOCK_CLOCKRDLOCK,
       (pthread_rwlock_t *l, clockid_t c, const struct timespec *t), (l, c, t))
WRLOCK(pthread_rwlock_clockwrlock, EXP_TR_RWLOCK_CLOCKWRLOCK,
       (pthread_rwlock_t *l, clockid_t c, const struct timespec *t), (l, c, t))
SEM(sem_clockwait, EXP_TR_SEM_CLOCKWAIT,
    (sem_t *s, clockid_t c, const struct timespec *t), (s, c, t))
WAIT(pthread_timedjoin_np, EXP_TR_TIMEDJOIN,
     (pthread_t th, void **rv, const struct timespec *t), (th, rv, t), (void *)th)
WAIT(pthread_clockjoin_np, EXP_TR_CLOCKJOIN,
     (pthread_t th, void **rv, clockid_t c, const struct timespec *t),
     (th, rv, c, t), (void *)th)

/*
 * The condition calls have two versions in glibc: the one programs link
 * today (GLIBC_2.3.2) is the one interposed, and the one called.
 */
static void *cond_real(const char *name)
{
	void *p;

	tr_in++;
	p = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");
	tr_in--;
	return p ? p : tr_real(name);
}

WAIT_BY(cond_real, pthread_cond_wait, EXP_TR_COND_WAIT,
	(pthread_cond_t *c, pthread_mutex_t *m), (c, m), c)
WAIT_BY(cond_real, pthread_cond_timedwait, EXP_TR_COND_TIMEDWAIT,
	(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t),
	(c, m, t), c)

/* ---- the process's life ---- */

REAL(int, pthread_create, (pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *))
REAL(void, pthread_exit, (void *))
REAL(pid_t, fork, (void))
REAL(void, _exit, (int))

TR_API int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct tr_start *st;
	int err;

	if (!get_pthread_create())
		return ENOSYS;
	if (!tr_conf.kinds)
		return real_pthread_create(th, attr, fn, arg);
	tr_in++;
	st = malloc(sizeof(*st));
	tr_in--;
	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	err = real_pthread_create(th, attr, tr_thread_start, st);
	if (err) {
		tr_in++;
		free(st);
		tr_in--;
	}
	return err;
}

TR_API void pthread_exit(void *rv)
{
	tr_thread_exit();
	get_pthread_exit()(rv);
	__builtin_unreachable();
}

TR_API pid_t fork(void)
{
	pid_t pid;

	get_fork();
	tr_before_fork();
	pid = real_fork();
	if (pid >= 0)
		tr_after_fork(!pid);
	return pid;
}

/*
 * vfork, while tracing, is fork.  A vfork child runs in its parent's
 * memory until it execs: the thread's buffer, the process's trace file
 * and pid are the parent's (its calls would be filed under the parent),
 * and the parent's other threads go on using them meanwhile, so the
 * child cannot be given its own without changing what they read.  As a
 * fork, it gets its own as any forked child (a TASK fork record, its
 * file).  Oracle's collector replaces vfork the same way (by fork1), as
 * does Quantify; POSIX leaves everything a vfork child does but exec
 * and _exit undefined, so a correct program behaves the same, only the
 * copy of the page tables costs more (docs/design/tracing.md).  Untraced, the
 * real vfork: a jump to it, as a C function cannot return into a vfork
 * child.  tr_real_vfork is found at load (tr_sync_init).
 */
static void *tr_real_vfork __attribute__((used));	/* the asm below reads it */
_Static_assert(offsetof(struct tr_conf, kinds) == 0, "the asm reads kinds at tr_conf");
extern __typeof__(fork) tr_fork
	__attribute__((alias("fork"), visibility("hidden"), nothrow));

__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"
	"	cmpl $0, tr_conf(%rip)\n"	/* tr_conf.kinds: tracing? */
	"	jne tr_fork\n"
	"	movq tr_real_vfork(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz tr_fork\n"			/* before the library's constructor */
	"	jmp *%rax\n"
	"	.cfi_endproc\n"
	".size vfork, .-vfork\n");

void tr_sync_init(void)
{
	tr_real_vfork = tr_real("vfork");
}

/* _exit skips the destructors: what the buffers hold goes out first. */
TR_API void _exit(int status)
{
	tr_before_exec();
	get__exit()(status);
	__builtin_unreachable();
}

TR_API void _Exit(int status) __attribute__((alias("_exit")));
