// SPDX-License-Identifier: GPL-2.0
/*
 * Clock ticks of Java stacks (agent.h): each Java thread has a timer of
 * its own CPU time (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID) at the
 * recording's interval, so only a thread that runs is ever signalled:
 * an idle thread costs nothing.  The signal handler walks the Java stack
 * with AsyncGetCallTrace, which libjvm exports for this, and writes it
 * into the thread's own buffer.  The analyzer pairs each tick with the
 * recorder's clock sample of the same thread nearest in time.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "agent.h"

#define TICK_SIGNAL	SIGPROF

/* AsyncGetCallTrace's frame and trace (libjvm's, not in a JDK header). */
typedef struct {
	jint bci;		/* < 0: native (-3) or not known */
	jmethodID method;
} agct_frame;

typedef struct {
	JNIEnv *env;
	jint num_frames;	/* < 0: why none (the VM's ticks_* codes) */
	agct_frame *frames;
} agct_trace;

typedef void (*agct_fn)(agct_trace *, jint, void *);

static agct_fn agct;
unsigned long ja_ticks;

/*
 * A tick the JVM could not walk (its runtime, called from the
 * interpreter, leaves no walkable frame) is tried again once, after a
 * tenth of the interval of the thread's CPU time, then the timer goes on
 * at its interval: the analyzer pairs samples with ticks near them in
 * that time, and a walked one is usually this near.
 */
static void retry(struct ja_thread *t, bool failed)
{
	struct itimerspec its;
	uint64_t soon = ja_conf.interval_ns / 10;

	if (!failed || t->retried) {
		t->retried = false;
		return;
	}
	t->retried = true;
	its.it_interval.tv_sec = ja_conf.interval_ns / 1000000000;
	its.it_interval.tv_nsec = ja_conf.interval_ns % 1000000000;
	its.it_value.tv_sec = soon / 1000000000;
	its.it_value.tv_nsec = soon % 1000000000;
	timer_settime(t->timer, 0, &its, NULL);	/* async-signal-safe */
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	struct ja_thread *t = ja_self;
	struct exp_jframe f[JA_DEPTH];
	agct_frame af[JA_DEPTH];
	agct_trace tr;
	int e = errno, i;

	if (!t || !agct || t->dead)
		goto out;
	__atomic_fetch_add(&ja_ticks, 1, __ATOMIC_RELAXED);
	tr.env = t->env;
	tr.num_frames = 0;
	tr.frames = af;
	agct(&tr, JA_DEPTH, uc);
	for (i = 0; i < tr.num_frames; i++) {
		f[i].method = (uintptr_t)af[i].method;
		f[i].bci = af[i].bci;
		f[i].pad0 = 0;
	}
	ja_put_stack(t, EXP_JW_TICK, 0, f, tr.num_frames, tr.num_frames);
	retry(t, tr.num_frames <= 0);
out:
	errno = e;
}

int ja_tick_init(void)
{
	struct sigaction sa;

	if (!ja_conf.interval_ns)
		return 0;
	agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
	if (!agct)
		return -ENOENT;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(TICK_SIGNAL, &sa, NULL) ? -errno : 0;
}

void ja_tick_start(struct ja_thread *t)
{
	struct sigevent sev;
	struct itimerspec its;

	if (!ja_conf.interval_ns || !agct)
		return;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = TICK_SIGNAL;
	sev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer))
		return;
	its.it_interval.tv_sec = ja_conf.interval_ns / 1000000000;
	its.it_interval.tv_nsec = ja_conf.interval_ns % 1000000000;
	its.it_value = its.it_interval;
	if (timer_settime(t->timer, 0, &its, NULL)) {
		timer_delete(t->timer);
		return;
	}
	t->has_timer = true;
}

void ja_tick_stop(struct ja_thread *t)
{
	if (t->has_timer)
		timer_delete(t->timer);
	t->has_timer = false;
}
