// SPDX-License-Identifier: GPL-2.0
/*
 * The microstate machine: Solaris's ten LMS_* states kept for Linux threads
 * by probes on the scheduler, system calls, page faults, interrupts and the
 * return to user mode (docs/design/mstate.md has the table of transitions).
 *
 * Who writes a thread's entry, and why they never race:
 *  - while it runs, only probes on its own CPU; those that can be
 *    interrupted by an IRQ probe disable interrupts around the update;
 *  - at switch-out and switch-in, sched_switch under that CPU's rq lock;
 *  - while it is off CPU, only sched_wakeup, under the rq lock that its
 *    later switch-in also takes.  ttwu() orders the wakeup after the
 *    switch-out (it waits for p->on_cpu == 0 or goes through p's rq lock).
 * Every update bumps t->seq, so readers on other CPUs retry torn copies.
 */
#include <linux/interrupt.h>
#include <asm/irq_regs.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>
#include <asm/trace/exceptions.h>
#include <asm/trace/irq_vectors.h>

#include "mstate.h"

DEFINE_PER_CPU(struct lwprof_cpu, lwprof_cpu);

/*
 * Non-zero while an attach adds running threads to the table and before
 * lwprof_ms_cpu_adopt() has cached them per CPU: only then can a thread
 * that is accounted switch out without being its CPU's cur.
 */
atomic_t lwprof_adopting = ATOMIC_INIT(0);

/* The whole-machine session, if one is open; every new thread joins it. */
struct lwprof_session __rcu *lwprof_machine;

/*
 * The fast switch's futex test, one bit test: a bit for each system-call
 * number of a futex wait, of either ABI, modulo 64 (an x32 call's flag
 * above bit 6 drops out).  The numbers that share a bit with them (write,
 * fsync, openat among others) take the general path when they sleep,
 * which tells them apart exactly: a few dozen instructions on a sleep.
 */
#define LWPROF_FUTEX_NR_BITS	(BIT_ULL(__NR_futex & 63) |		\
				 BIT_ULL(__NR_futex_waitv & 63) |	\
				 BIT_ULL(LWPROF_NR_FUTEX_COMPAT & 63) |	\
				 BIT_ULL(LWPROF_NR_FUTEX_WAITV_COMPAT & 63))

/* Which sleep a thread going to sleep is in, from its innermost context. */
static unsigned int lwprof_ms_sleep_state(struct lwprof_thread *t,
					  unsigned int prev_state)
{
	if (prev_state & (__TASK_STOPPED | __TASK_TRACED))
		return LWPROF_MS_STOPPED;
	if (t->depth && lwprof_ctx_is_fault(t->ctx[t->depth - 1]) &&
	    lwprof_fault_count(t->task) != t->fault_cnt)
		t->depth--;	/* that fault completed: not what we sleep in */
	if (!t->depth)
		return LWPROF_MS_SLEEP;
	switch (t->ctx[t->depth - 1]) {
	case LWPROF_CTX_TFAULT:
		return LWPROF_MS_TFAULT;
	case LWPROF_CTX_DFAULT:
		return LWPROF_MS_DFAULT;
	case LWPROF_CTX_KFAULT:
		return LWPROF_MS_KFAULT;
	case LWPROF_CTX_LOCK:
		return LWPROF_MS_USER_LOCK;
	default:
		return LWPROF_MS_SLEEP;
	}
}

/* The last switch of an exiting thread: totals are final. */
static noinline void lwprof_ms_exit(struct lwprof_thread *t,
				    struct task_struct *prev, u64 now)
{
	lwprof_ms_set(t, t->state, now);
	t->end_ns = t->last_ns;
	lwprof_thread_final(t, prev);
	lwprof_us_release(t);
	t->exited = 1;
	lwprof_smp_exit(t);
}

/*
 * t, the CPU's cur, leaves it at now.  A system call it entered since its
 * last change is charged first (the stamp is its, see mstate_sys.c).
 */
static __always_inline void lwprof_ms_switch_out(struct lwprof_thread *t,
						 struct task_struct *prev,
						 unsigned int prev_state,
						 u64 now)
{
	u64 sys_in = this_cpu_read(lwprof_cpu.sys_in);

	write_seqcount_begin(&t->seq);
	if (sys_in)
		lwprof_ms_commit_at(t, sys_in);
	if (unlikely(prev_state & TASK_DEAD)) {
		lwprof_ms_exit(t, prev, now);
	} else if (lwprof_task_runnable(prev)) {
		/*
		 * Still runnable (preempted, yielded, or a signal kept it
		 * awake): on_rq, not prev_state, says so -- __schedule()
		 * dequeues only a thread that really sleeps (6.12 may delay
		 * the dequeue: compat.h).
		 */
		t->ivcsw++;
		if (t->state != LWPROF_MS_WAIT_CPU)
			t->resume = t->state;
		lwprof_ms_set(t, LWPROF_MS_WAIT_CPU, now);
	} else {
		/*
		 * Asleep.  It resumes in SYSTEM, or in USER if it slept from
		 * USER: in the kernel's work on the way out after the return
		 * hook (mstate_ret.c), or after an entry no probe sees.
		 */
		t->vcsw++;
		t->resume = t->state == LWPROF_MS_USER ? LWPROF_MS_USER :
							 LWPROF_MS_SYSTEM;
		lwprof_ms_set(t, lwprof_ms_sleep_state(t, prev_state), now);
	}
	write_seqcount_end(&t->seq);
}

static __always_inline void lwprof_ms_switch_in(struct lwprof_thread *t,
						u64 now)
{
	unsigned int state = t->state;

	/* From WAIT_CPU, or a sleep whose wakeup was not seen. */
	if (state == LWPROF_MS_WAIT_CPU || lwprof_ms_asleep(state))
		state = t->resume;
	else
		return;
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, state, now);
	write_seqcount_end(&t->seq);
}

/*
 * Any other switch: a bystander in or out, the idle task, a thread that
 * switches out without being its CPU's cur (an attach adopting it).
 */
static noinline void lwprof_switch_other(struct lwprof_cpu *c,
					 struct lwprof_thread *out,
					 struct lwprof_thread *in,
					 struct task_struct *prev,
					 struct task_struct *next,
					 unsigned int prev_state)
{
	u64 now = 0;

	if (out && out->task != prev)
		out = NULL;
	if (!out) {
		/* A stamp of a thread no longer accounted: not out's. */
		c->sys_in = 0;
		if (unlikely(atomic_read(&lwprof_adopting)))
			out = lwprof_thread_find(prev);
	}
	/* One clock reading for both threads; none between two bystanders. */
	if (out) {
		now = lwprof_now();
		if (unlikely(out->idle))
			lwprof_idle_out(out, now);
		else
			lwprof_ms_switch_out(out, prev, prev_state, now);
	}
	if (unlikely(!in && is_idle_task(next)) &&
	    (c->idle || lwprof_idle_adopt(c, out ? now : lwprof_now()))) {
		c->cur = lwprof_idle_in(c, next, out ? now : lwprof_now());
		lwprof_urn_switch(c, NULL);	/* idle never goes to user */
		return;
	}
	c->cur = in;
	lwprof_urn_switch(c, in);
	if (in) {
		if (!out)
			now = lwprof_now();
		lwprof_ms_switch_in(in, now);
		lwprof_smp_switch_in(in, now);
	}
}

/*
 * Context: rq lock held, interrupts off.
 *
 * The common switch is done here, in a function that calls nothing (one
 * clock reading for both threads): from the CPU's cur, preempted or
 * asleep in the system call it entered since its last change (not a
 * futex wait: that needs its arguments), to another accounted thread, no
 * notifier to arm or disarm, no clock packets, the TSC the clock
 * (LWPROF_CPU_NO_FAST otherwise).  Everything else, and
 * the decision is made before anything changes, goes to
 * lwprof_switch_other() (a tail call), which does the same for any case.
 * notrace, as the wakeup probe: no ftrace call site on every switch.
 *
 * Each test is made once, on the path that needs it: a thread that is
 * still runnable is neither dead nor stopped (__schedule() dequeues
 * those), so only a sleep looks at prev_state; and the futex test reads
 * the call's number alone, one bit of LWPROF_FUTEX_NR_BITS.  A 32-bit
 * call may carry any number there: those that are a 64-bit futex call's,
 * and the 32-bit futex call's own, all go to the general code, which
 * tells them apart, so that no 32-bit futex wait is taken for an
 * ordinary sleep.
 */
static void notrace lwprof_tp_sched_switch(void *data, bool preempt,
					   struct task_struct *prev,
					   struct task_struct *next,
					   unsigned int prev_state)
{
	struct lwprof_thread *out = this_cpu_read(lwprof_cpu.cur), *in;
	unsigned int state, nr;
	u64 sys_in, now, last;

	if (lwprof_probes_dormant())
		return;
	in = lwprof_thread_find(next);
	if (unlikely(!out || !in || out->task != prev || out->idle ||
		     this_cpu_read(lwprof_cpu.flags) || in->want_urn ||
		     static_branch_unlikely(&lwprof_clock_key)))
		goto slow;
	sys_in = this_cpu_read(lwprof_cpu.sys_in);
	if (lwprof_task_runnable(prev)) {
		if (unlikely(sys_in))
			goto other;
		now = lwprof_tsc_now();
		write_seqcount_begin(&out->seq);
		state = out->state;
		out->ivcsw++;
		if (state != LWPROF_MS_WAIT_CPU)
			out->resume = state;
		out->state = LWPROF_MS_WAIT_CPU;
		last = out->last_ns;
	} else {
		if (unlikely(!sys_in || (prev_state & (TASK_DEAD |
				__TASK_STOPPED | __TASK_TRACED))))
			goto other;
		nr = (unsigned int)task_pt_regs(prev)->orig_ax;
		if (unlikely((LWPROF_FUTEX_NR_BITS >> (nr & 63)) & 1))
			goto other;
		now = lwprof_tsc_now();
		write_seqcount_begin(&out->seq);
		/* As lwprof_ms_commit_at(), then lwprof_ms_sleep_state(). */
		this_cpu_write(lwprof_cpu.sys_in, 0);
		out->syscalls++;
		out->vcsw++;
		out->depth = 1;
		out->ctx[0] = LWPROF_CTX_SYSCALL;
		last = out->last_ns;
		if (sys_in > last) {
			out->acc[out->state] += sys_in - last;
			last = sys_in;
		}
		state = LWPROF_MS_SYSTEM;
		out->resume = LWPROF_MS_SYSTEM;
		out->state = LWPROF_MS_SLEEP;
	}
	if (now > last) {
		out->acc[state] += now - last;
		last = now;
	}
	out->last_ns = last;
	write_seqcount_end(&out->seq);

	this_cpu_write(lwprof_cpu.cur, in);
	state = in->state;
	if (state == LWPROF_MS_WAIT_CPU || lwprof_ms_asleep(state)) {
		write_seqcount_begin(&in->seq);
		lwprof_ms_move(in, state, in->resume, now);
		write_seqcount_end(&in->seq);
	}
	return;
slow:
	/*
	 * Between two threads nobody accounts, nothing to do: unless an
	 * attach is adopting running threads, the idle task comes in (idle
	 * accounting), or a notifier is left to disarm.
	 */
	if (!out && !in && !atomic_read(&lwprof_adopting) &&
	    !is_idle_task(next) &&
	    !(this_cpu_read(lwprof_cpu.flags) & LWPROF_CPU_URN))
		return;
other:
	lwprof_switch_other(this_cpu_ptr(&lwprof_cpu), out, in, prev, next,
			    prev_state);
}

/* Rq lock held, t's thread not running: a wakeup ends its sleep, if any. */
static void lwprof_ms_woken(struct lwprof_thread *t)
{
	if (!lwprof_ms_asleep(t->state))
		return;
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, LWPROF_MS_WAIT_CPU, lwprof_now());
	write_seqcount_end(&t->seq);
}

/*
 * Context: rq lock held; p is not running.  Ignore threads not asleep.
 * With the TSC the clock, the change is made here, calling nothing (no
 * register to save); lwprof_ms_woken() does it on any clock.
 */
static void notrace lwprof_tp_sched_wakeup(void *data, struct task_struct *p)
{
	struct lwprof_thread *t;
	unsigned int state;

	if (lwprof_probes_dormant())
		return;
	t = lwprof_thread_find(p);
	if (!t)
		return;
	state = t->state;
	if (!lwprof_ms_asleep(state))
		return;
	if (unlikely(!lwprof_clock.tsc)) {
		lwprof_ms_woken(t);
		return;
	}
	write_seqcount_begin(&t->seq);
	lwprof_ms_move(t, state, LWPROF_MS_WAIT_CPU, lwprof_tsc_now());
	write_seqcount_end(&t->seq);
}

/*
 * Context: the new task's rq lock held; it has not run.  A thread created
 * at its fork (newborn) is counted from now, in WAIT_CPU: the start of its
 * wait as the scheduler's own statistics see it (sched_info_enqueue()).
 */
static void lwprof_tp_sched_wakeup_new(void *data, struct task_struct *p)
{
	struct lwprof_thread *t;

	if (lwprof_probes_dormant())
		return;
	t = lwprof_thread_find(p);
	if (!t)
		return;
	if (!t->newborn) {
		lwprof_ms_woken(t);
		return;
	}
	write_seqcount_begin(&t->seq);
	t->newborn = 0;
	lwprof_thread_begin(t, p, lwprof_now());
	write_seqcount_end(&t->seq);
}

/*
 * After an attach, on every CPU: note the entry of the task running there
 * and settle a guessed state from the interrupted registers.
 */
void lwprof_ms_cpu_adopt(void *unused)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct pt_regs *regs = in_hardirq() ? get_irq_regs() : NULL;
	struct lwprof_thread *t = lwprof_thread_find(current);
	unsigned int state;

	c->cur = t;
	lwprof_urn_switch(c, t);	/* on current: the interrupted task */
	if (!t || !t->guessed)
		return;
	state = regs && user_mode(regs) ? LWPROF_MS_USER : LWPROF_MS_SYSTEM;
	write_seqcount_begin(&t->seq);
	t->guessed = 0;
	if (c->trapped)
		c->trap_resume = state;
	else
		lwprof_ms_set(t, state, lwprof_now());
	write_seqcount_end(&t->seq);
}

/*
 * For a reader on another CPU, inside t's seqcount read: the time t
 * entered a system call not yet charged, or 0.  The stamp is its CPU's
 * while it is that CPU's cur; a switch in between bumps t's seqcount
 * (out, or in from WAIT_CPU or a sleep), and the reader retries.
 */
u64 lwprof_ms_pending(struct lwprof_thread *t)
{
	struct lwprof_cpu *c;
	u64 sys_in;

	if (t->idle || READ_ONCE(t->exited))
		return 0;
	c = per_cpu_ptr(&lwprof_cpu, task_cpu(t->task));
	sys_in = READ_ONCE(c->sys_in);
	/* The stamp before the owner: a stamp cleared by a switch since. */
	smp_rmb();
	return READ_ONCE(c->cur) == t ? sys_in : 0;
}

/* A session is ending: no CPU may keep pointing at its entries. */
void lwprof_ms_cpu_forget(struct lwprof_session *s)
{
	struct lwprof_thread *t;
	int cpu;

	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct lwprof_cpu *c = per_cpu_ptr(&lwprof_cpu, cpu);

		t = READ_ONCE(c->cur);
		if (t && t->session == s)
			cmpxchg(&c->cur, t, NULL);
	}
	rcu_read_unlock();
}

#define TP(n, fn, opt)	{ .name = n, .probe = fn, .optional = opt }

struct lwprof_tp lwprof_mstate_tps[] = {
	TP("sched_switch", lwprof_tp_sched_switch, false),
	TP("sched_wakeup", lwprof_tp_sched_wakeup, false),
	TP("sched_wakeup_new", lwprof_tp_sched_wakeup_new, false),
	TP("sched_process_fork", lwprof_tp_fork, false),
	TP("task_newtask", lwprof_tp_newtask, false),
	TP("sched_process_exec", lwprof_tp_exec, false),
	TP("sched_process_free", lwprof_tp_free, false),
	{ .name = "sys_enter", .probe = lwprof_tp_sys_enter, .syscall = true },
	TP("page_fault_user", lwprof_tp_page_fault_user, false),
	TP("page_fault_kernel", lwprof_tp_page_fault_kernel, false),
	TP("irq_handler_entry", lwprof_tp_irq_entry, false),
	TP("irq_handler_exit", lwprof_tp_irq_exit, false),
	TP("softirq_entry", lwprof_tp_softirq_entry, false),
	TP("softirq_exit", lwprof_tp_softirq_exit, false),
	TP("local_timer_entry", lwprof_tp_vector_entry, false),
	TP("local_timer_exit", lwprof_tp_vector_exit, false),
	TP("reschedule_entry", lwprof_tp_vector_entry, true),
	TP("reschedule_exit", lwprof_tp_vector_exit, true),
	TP("call_function_entry", lwprof_tp_vector_entry, true),
	TP("call_function_exit", lwprof_tp_vector_exit, true),
	TP("call_function_single_entry", lwprof_tp_vector_entry, true),
	TP("call_function_single_exit", lwprof_tp_vector_exit, true),
	TP("irq_work_entry", lwprof_tp_vector_entry, true),
	TP("irq_work_exit", lwprof_tp_vector_exit, true),
	TP("x86_platform_ipi_entry", lwprof_tp_vector_entry, true),
	TP("x86_platform_ipi_exit", lwprof_tp_vector_exit, true),
	TP("spurious_apic_entry", lwprof_tp_vector_entry, true),
	TP("spurious_apic_exit", lwprof_tp_vector_exit, true),
	TP("error_apic_entry", lwprof_tp_vector_entry, true),
	TP("error_apic_exit", lwprof_tp_vector_exit, true),
	TP("thermal_apic_entry", lwprof_tp_vector_entry, true),
	TP("thermal_apic_exit", lwprof_tp_vector_exit, true),
	TP("threshold_apic_entry", lwprof_tp_vector_entry, true),
	TP("threshold_apic_exit", lwprof_tp_vector_exit, true),
	TP("deferred_error_apic_entry", lwprof_tp_vector_entry, true),
	TP("deferred_error_apic_exit", lwprof_tp_vector_exit, true),
	TP("signal_deliver", lwprof_tp_signal_deliver, false),
	TP("task_rename", lwprof_smp_tp_rename, false),
	{ }
};

/* The probes' prototypes, checked against the kernel's at build time. */
LWPROF_CHECK_TP(sched_switch, lwprof_tp_sched_switch);
LWPROF_CHECK_TP(sched_wakeup, lwprof_tp_sched_wakeup);
LWPROF_CHECK_TP(sched_wakeup_new, lwprof_tp_sched_wakeup_new);
LWPROF_CHECK_TP(sched_process_fork, lwprof_tp_fork);
LWPROF_CHECK_TP(sched_process_exec, lwprof_tp_exec);
LWPROF_CHECK_TP(sched_process_free, lwprof_tp_free);
LWPROF_CHECK_TP(sys_enter, lwprof_tp_sys_enter);
LWPROF_CHECK_TP(page_fault_user, lwprof_tp_page_fault_user);
LWPROF_CHECK_TP(page_fault_kernel, lwprof_tp_page_fault_kernel);
LWPROF_CHECK_TP(irq_handler_entry, lwprof_tp_irq_entry);
LWPROF_CHECK_TP(irq_handler_exit, lwprof_tp_irq_exit);
LWPROF_CHECK_TP(softirq_entry, lwprof_tp_softirq_entry);
LWPROF_CHECK_TP(softirq_exit, lwprof_tp_softirq_exit);
LWPROF_CHECK_TP(local_timer_entry, lwprof_tp_vector_entry);
LWPROF_CHECK_TP(local_timer_exit, lwprof_tp_vector_exit);
LWPROF_CHECK_TP(signal_deliver, lwprof_tp_signal_deliver);
LWPROF_CHECK_TP(task_rename, lwprof_smp_tp_rename);
LWPROF_CHECK_TP(task_newtask, lwprof_tp_newtask);

