// SPDX-License-Identifier: GPL-2.0
/*
 * A traced process killed by a signal keeps what its buffers held
 * (docs/design/tracing.md).  At load, every catchable signal whose default
 * action ends the process (terminate or core) and whose action is still
 * the default gets the library's handler: it writes out every thread's
 * buffer (tr_flush_dying: system calls, no lock the interrupted code
 * may hold), puts the default action back and ends the process with the
 * same signal, so its parent sees the same status (and a core where one
 * is made: a fault is let happen again, at its own instruction).
 *
 * The program sees its own signal handling: sigaction, signal,
 * bsd_signal, sysv_signal, ssignal and sigset are interposed so that
 *  - its handler replaces the library's (the library's flush is then
 *    the program's business: most handlers exit, and exit flushes);
 *  - a default action it sets brings the library's handler back;
 *  - the library's handler reads as SIG_DFL (a shell asking whether
 *    SIGINT was ignored at its start gets the truth).
 * SIGKILL cannot be caught: what the buffers held is lost, what was
 * written stays (whole records).  Not for pid 1, to which the kernel
 * sends no default-action signal at all.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace.h"

#define ALT_STACK	(64 << 10)	/* the main thread's, if it has none */

/* The signals whose default action ends the process. */
static const int fatal[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
};

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static bool armed;			/* the handlers are in use */

static bool covered(int sig)
{
	size_t i;

	for (i = 0; armed && i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i] == sig)
			return true;
	return false;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t one;
	int err = errno;

	tr_in++;
	tr_flush_dying();
	real_sigaction(sig, &dfl, NULL);
	/* a fault: its instruction again, now with the default action */
	if (si && si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS ||
				      sig == SIGILL || sig == SIGFPE)) {
		tr_in--;
		errno = err;
		return;
	}
	/* else the signal again, pending while it is blocked here */
	syscall(SYS_tgkill, getpid(), gettid(), sig);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	tr_in--;	/* not reached, unless the program changed it meanwhile */
	errno = err;
}

/* The library's handler on sig (no other signal while it flushes). */
static int arm(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_fatal,
				.sa_flags = SA_SIGINFO | SA_ONSTACK };

	sigfillset(&sa.sa_mask);
	return real_sigaction(sig, &sa, NULL);
}

/* What the program is shown of a disposition: the library's is SIG_DFL. */
static void shown(struct sigaction *old)
{
	if (old && old->sa_sigaction == on_fatal) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
	}
}

static __sighandler_t shown_handler(__sighandler_t h)
{
	return (void *)h == (void *)on_fatal ? SIG_DFL : h;
}

void tr_signal_init(void)
{
	struct sigaction old;
	stack_t ss;
	size_t i;

	real_sigaction = tr_real("sigaction");
	if (!real_sigaction || !tr_conf.kinds || getpid() == 1)
		return;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (!real_sigaction(fatal[i], NULL, &old) && old.sa_handler == SIG_DFL)
			arm(fatal[i]);
	armed = true;
	/* a stack overflow's SIGSEGV needs another stack to run on */
	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_DISABLE)) {
		ss.ss_sp = mmap(NULL, ALT_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ss.ss_size = ALT_STACK;
		ss.ss_flags = 0;
		if (ss.ss_sp != MAP_FAILED && sigaltstack(&ss, NULL))
			munmap(ss.ss_sp, ALT_STACK);
	}
}

TR_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int ret;

	if (!real_sigaction && !(real_sigaction = tr_real("sigaction"))) {
		errno = ENOSYS;
		return -1;
	}
	if (!covered(sig))
		return real_sigaction(sig, act, old);
	ret = real_sigaction(sig, act, old);
	if (!ret && act && act->sa_handler == SIG_DFL)
		arm(sig);
	if (!ret)
		shown(old);
	return ret;
}

/* signal and its kin: the same, by handler. */
#define SIGNAL_LIKE(name)						\
	TR_API __sighandler_t name(int sig, __sighandler_t h)		\
	{								\
		static __sighandler_t (*real)(int, __sighandler_t);	\
		__sighandler_t prev;					\
									\
		if (!real && !(real = tr_real(#name)))			\
			return SIG_ERR;					\
		if (!covered(sig))					\
			return real(sig, h);				\
		prev = real(sig, h);					\
		if (prev != SIG_ERR && h == SIG_DFL)			\
			arm(sig);					\
		return shown_handler(prev);				\
	}

SIGNAL_LIKE(signal)
SIGNAL_LIKE(bsd_signal)
SIGNAL_LIKE(sysv_signal)
SIGNAL_LIKE(sigset)
SIGNAL_LIKE(ssignal)
