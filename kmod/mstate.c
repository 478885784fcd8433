// SPDX-License-Identifier: GPL-2.0
/*
 * The microstate machine: Solaris's ten LMS_* states kept for Linux threads
 * by probes on the scheduler, system calls, page faults, interrupts and the
 * return to user mode (docs/mstate.md has the table of transitions).
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
#include <linux/user-return-notifier.h>
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
static DEFINE_PER_CPU(struct user_return_notifier, lwprof_urn);

/*
 * Non-zero while an attach adds running threads to the table and before
 * lwprof_ms_cpu_adopt() has cached them per CPU: only then can a thread
 * that is accounted switch out without being its CPU's cur.
 */
atomic_t lwprof_adopting = ATOMIC_INIT(0);

/* The whole-machine session, if one is open; every new thread joins it. */
struct lwprof_session __rcu *lwprof_machine;

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

static void lwprof_ms_switch_out(struct lwprof_thread *t,
				 struct task_struct *prev,
				 unsigned int prev_state, u64 now)
{
	write_seqcount_begin(&t->seq);
	if (prev_state & TASK_DEAD) {
		/* The last switch of an exiting thread: totals are final. */
		lwprof_ms_set(t, t->state, now);
		t->end_ns = t->last_ns;
		lwprof_thread_final(t, prev);
		lwprof_us_release(t);
		t->exited = 1;
		lwprof_smp_exit(t);
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
		t->vcsw++;
		t->resume = LWPROF_MS_SYSTEM;
		lwprof_ms_set(t, lwprof_ms_sleep_state(t, prev_state), now);
	}
	write_seqcount_end(&t->seq);
}

static void lwprof_ms_switch_in(struct lwprof_thread *t, u64 now)
{
	unsigned int state = t->state;

	if (state == LWPROF_MS_WAIT_CPU)
		state = t->resume;
	else if (lwprof_ms_asleep(state))
		state = LWPROF_MS_SYSTEM;	/* woken before we looked */
	else
		return;
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, state, now);
	write_seqcount_end(&t->seq);
}

static void lwprof_urn_arm(struct lwprof_cpu *c);
static void lwprof_urn_disarm(struct lwprof_cpu *c);

/* Context: rq lock held, interrupts off. */
static void lwprof_tp_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *out = c->cur, *in;
	u64 now = 0;

	if (!lwprof_probes_live())
		return;
	if (lwprof_bench_empty(LWPROF_EMPTY_SWITCH)) {
		lwprof_urn_arm(c);
		return;
	}
	if (lwprof_bench_empty(LWPROF_EMPTY_SWSTATE)) {
		c->cur = lwprof_thread_find(next);
		if (c->cur)
			lwprof_urn_arm(c);
		else
			lwprof_urn_disarm(c);
		return;
	}
	if (out && out->task != prev)
		out = NULL;
	if (unlikely(!out && atomic_read(&lwprof_adopting)))
		out = lwprof_thread_find(prev);
	/* One clock reading for both threads; none between two bystanders. */
	if (out) {
		now = lwprof_now();
		if (unlikely(out->idle))
			lwprof_idle_out(out, now);
		else
			lwprof_ms_switch_out(out, prev, prev_state, now);
	}
	in = lwprof_thread_find(next);
	if (unlikely(!in && is_idle_task(next)) &&
	    (c->idle || lwprof_idle_adopt(c, out ? now : lwprof_now()))) {
		c->cur = lwprof_idle_in(c, next, out ? now : lwprof_now());
		lwprof_urn_disarm(c);	/* the idle task never goes to user */
		return;
	}
	c->cur = in;
	if (in) {
		if (!out)
			now = lwprof_now();
		lwprof_urn_arm(c);
		lwprof_ms_switch_in(in, now);
		lwprof_smp_switch_in(in, now);
	} else {
		lwprof_urn_disarm(c);
	}
}

/* Rq lock held, t's thread not running: a wakeup ends its sleep, if any. */
static void lwprof_ms_woken(struct lwprof_thread *t)
{
	if (!lwprof_ms_asleep(t->state))
		return;
	write_seqcount_begin(&t->seq);
	t->resume = LWPROF_MS_SYSTEM;
	lwprof_ms_set(t, LWPROF_MS_WAIT_CPU, lwprof_now());
	write_seqcount_end(&t->seq);
}

/* Context: rq lock held; p is not running.  Ignore threads not asleep. */
static void lwprof_tp_sched_wakeup(void *data, struct task_struct *p)
{
	struct lwprof_thread *t;

	if (!lwprof_probes_live() || lwprof_bench_empty(LWPROF_EMPTY_WAKE))
		return;
	t = lwprof_thread_find(p);
	if (t)
		lwprof_ms_woken(t);
}

/*
 * Context: the new task's rq lock held; it has not run.  A thread created
 * at its fork (newborn) is counted from now, in WAIT_CPU: the start of its
 * wait as the scheduler's own statistics see it (sched_info_enqueue()).
 */
static void lwprof_tp_sched_wakeup_new(void *data, struct task_struct *p)
{
	struct lwprof_thread *t;

	if (!lwprof_probes_live() || lwprof_bench_empty(LWPROF_EMPTY_WAKE))
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
 * The return to user mode, from a system call, a fault or an interrupt:
 * the user-return notifier marks it exactly.  It is armed on a CPU only
 * while an accounted thread runs there (sched_switch arms and disarms it),
 * so other threads' switches and returns to user mode do not pay for it.
 * Its flag (TIF_USER_RETURN_NOTIFY) is set on the task running when it is
 * armed; from a sched_switch probe that is the thread switching out, and
 * the switch hands the flag on to the next one (the flag follows the CPU).
 *
 * Interrupts off: the last step before the thread runs user code again.
 * That also ends the system call: no sys_exit probe is needed.
 */
static void lwprof_on_user_return(struct user_return_notifier *urn)
{
	struct lwprof_thread *t;

	if (lwprof_bench_empty(LWPROF_EMPTY_URN))
		return;
	t = lwprof_cur();
	if (!t)
		return;
	/* guard.c: one its session may no longer record stops here. */
	if (unlikely(!lwprof_guard_current(t)))
		return;
	t->depth = 0;
	if (t->state != LWPROF_MS_USER)
		lwprof_ms_change(t, LWPROF_MS_USER);
	lwprof_us_publish(t);
	lwprof_smp_user_return(t);
}

/* Preemption or interrupts off, on c's own CPU. */
static void lwprof_urn_arm(struct lwprof_cpu *c)
{
	struct user_return_notifier *urn;

	if (c->urn_armed)
		return;
	urn = this_cpu_ptr(&lwprof_urn);
	urn->on_user_return = lwprof_on_user_return;
	user_return_notifier_register(urn);
	c->urn_armed = true;
}

static void lwprof_urn_disarm(struct lwprof_cpu *c)
{
	if (!c->urn_armed)
		return;
	user_return_notifier_unregister(this_cpu_ptr(&lwprof_urn));
	c->urn_armed = false;
}

static void lwprof_urn_disarm_ipi(void *unused)
{
	lwprof_urn_disarm(this_cpu_ptr(&lwprof_cpu));
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
	if (t)
		lwprof_urn_arm(c);	/* on current: the interrupted task */
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

/* Before the probes are attached: nothing is current or trapped. */
void lwprof_ms_cpu_reset(void *unused)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);

	c->cur = NULL;
	c->idle = NULL;
	c->trapped = false;
	c->urn_armed = false;
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

/* Probes are gone: no CPU keeps a notifier armed. */
void lwprof_ms_urn_disarm(void)
{
	on_each_cpu(lwprof_urn_disarm_ipi, NULL, 1);
}
