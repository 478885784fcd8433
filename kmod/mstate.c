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
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/user-return-notifier.h>
#include <asm/compat.h>
#include <asm/irq_regs.h>
#include <asm/syscall.h>
#include <asm/trap_pf.h>
#include <uapi/linux/futex.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>
#include <asm/trace/exceptions.h>
#include <asm/trace/irq_vectors.h>

#include "internal.h"

/* Per CPU: the entry of the task running here, and an open trap. */
struct lwprof_cpu {
	struct lwprof_thread *cur;
	bool trapped;		/* cur is in TRAP, trap_resume to restore */
	u8 trap_resume;
};

static DEFINE_PER_CPU(struct lwprof_cpu, lwprof_cpu);

/* The whole-machine session, if one is open; every new thread joins it. */
struct lwprof_session __rcu *lwprof_machine;

static inline bool lwprof_ms_asleep(unsigned int state)
{
	return state >= LWPROF_MS_TFAULT && state <= LWPROF_MS_STOPPED;
}

/* Fault contexts and the task's count of completed faults (see below). */
static inline u64 lwprof_fault_count(struct task_struct *task)
{
	return READ_ONCE(task->min_flt) + READ_ONCE(task->maj_flt);
}

static inline bool lwprof_ctx_is_fault(u8 ctx)
{
	return ctx >= LWPROF_CTX_TFAULT;
}

/* Charge the time since the last change to the old state, enter the new. */
static void lwprof_ms_set(struct lwprof_thread *t, unsigned int state, u64 now)
{
	if (now > t->last_ns) {
		t->acc[t->state] += now - t->last_ns;
		t->last_ns = now;
	}
	t->state = state;
}

static void lwprof_ms_change(struct lwprof_thread *t, unsigned int state)
{
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, state, lwprof_now());
	write_seqcount_end(&t->seq);
}

/* The running thread's entry, if it is accounted. */
static inline struct lwprof_thread *lwprof_cur(void)
{
	struct lwprof_thread *t = this_cpu_read(lwprof_cpu.cur);

	return t && t->task == current ? t : NULL;
}

/*
 * The running thread's entry, with interrupts off (an IRQ probe could
 * interleave) and its seqcount open for writing; NULL, with nothing held,
 * if the thread is not accounted.  Close with lwprof_cur_write_end().
 */
static struct lwprof_thread *lwprof_cur_write_begin(unsigned long *flags)
{
	struct lwprof_thread *t;

	local_irq_save(*flags);
	t = lwprof_cur();
	if (t)
		write_seqcount_begin(&t->seq);
	else
		local_irq_restore(*flags);
	return t;
}

static void lwprof_cur_write_end(struct lwprof_thread *t, unsigned long flags)
{
	write_seqcount_end(&t->seq);
	local_irq_restore(flags);
}

/* Is this system call a futex wait (a user-level lock or condvar)? */
static bool lwprof_futex_wait(struct task_struct *task, struct pt_regs *regs,
			      long nr, bool compat)
{
	unsigned long args[6];
	unsigned int cmd;

	if (nr == (compat ? LWPROF_NR_FUTEX_WAITV_COMPAT : __NR_futex_waitv))
		return true;
	if (nr != (compat ? LWPROF_NR_FUTEX_COMPAT : __NR_futex))
		return false;
	syscall_get_arguments(task, regs, args);
	cmd = args[1] & FUTEX_CMD_MASK;
	return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET ||
	       cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
	       cmd == FUTEX_WAIT_REQUEUE_PI;
}

/*
 * A thread found by an attach: guess its state from what the scheduler
 * knows.  One that is running on another CPU is settled by
 * lwprof_ms_cpu_adopt() (user or kernel mode) right after.
 */
void lwprof_ms_initial(struct lwprof_thread *t, struct task_struct *task)
{
	unsigned int st = READ_ONCE(task->__state);
	struct pt_regs *regs = NULL;
	long nr = -1;

	t->resume = LWPROF_MS_SYSTEM;
	if (task == current) {
		t->state = LWPROF_MS_SYSTEM;
		t->depth = 1;
		t->ctx[0] = LWPROF_CTX_SYSCALL;
		return;
	}
	if (READ_ONCE(task->on_cpu)) {
		t->state = LWPROF_MS_USER;
		t->guessed = 1;
		return;
	}
	if (READ_ONCE(task->on_rq)) {
		t->state = LWPROF_MS_WAIT_CPU;
		t->resume = LWPROF_MS_USER;
		return;
	}
	if (!(task->flags & PF_KTHREAD)) {
		regs = task_pt_regs(task);
		nr = syscall_get_nr(task, regs);
	}
	if (nr >= 0) {
		t->depth = 1;
		t->ctx[0] = lwprof_futex_wait(task, regs, nr, false) ?
			    LWPROF_CTX_LOCK : LWPROF_CTX_SYSCALL;
	}
	if (st & (__TASK_STOPPED | __TASK_TRACED))
		t->state = LWPROF_MS_STOPPED;
	else if (t->depth && t->ctx[0] == LWPROF_CTX_LOCK)
		t->state = LWPROF_MS_USER_LOCK;
	else
		t->state = LWPROF_MS_SLEEP;
}

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
		t->exited = 1;
		lwprof_smp_exit(t);
	} else if (READ_ONCE(prev->on_rq)) {
		/*
		 * Still runnable (preempted, yielded, or a signal kept it
		 * awake): on_rq, not prev_state, says so -- __schedule()
		 * dequeues only a thread that really sleeps.
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

/* Context: rq lock held, interrupts off. */
static void lwprof_tp_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = c->cur;
	u64 now = lwprof_now();

	if (!t || t->task != prev)
		t = lwprof_thread_find(prev);
	if (t)
		lwprof_ms_switch_out(t, prev, prev_state, now);
	t = lwprof_thread_find(next);
	c->cur = t;
	if (t) {
		lwprof_ms_switch_in(t, now);
		lwprof_smp_switch_in(t, now);
	}
}

/* Context: rq lock held; p is not running.  Ignore threads not asleep. */
static void lwprof_tp_sched_wakeup(void *data, struct task_struct *p)
{
	struct lwprof_thread *t = lwprof_thread_find(p);

	if (!t || !lwprof_ms_asleep(t->state))
		return;
	write_seqcount_begin(&t->seq);
	t->resume = LWPROF_MS_SYSTEM;
	lwprof_ms_set(t, LWPROF_MS_WAIT_CPU, lwprof_now());
	write_seqcount_end(&t->seq);
}

static void lwprof_tp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->depth = 1;
	t->ctx[0] = lwprof_futex_wait(current, regs, id, in_ia32_syscall()) ?
		    LWPROF_CTX_LOCK : LWPROF_CTX_SYSCALL;
	t->syscalls++;
	lwprof_ms_set(t, LWPROF_MS_SYSTEM, lwprof_now());
	lwprof_cur_write_end(t, flags);
}

/*
 * The system call is done; the way out (signals, rescheduling) still runs
 * in SYSTEM until the user-return notifier, but is no longer the call.
 */
static void lwprof_tp_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct lwprof_thread *t = lwprof_cur();

	if (t)
		t->depth = 0;
}

/* Interrupts off: the last step before the thread runs user code again. */
static void lwprof_on_user_return(struct user_return_notifier *urn)
{
	struct lwprof_thread *t = lwprof_cur();

	if (!t)
		return;
	t->depth = 0;
	if (t->state != LWPROF_MS_USER)
		lwprof_ms_change(t, LWPROF_MS_USER);
	lwprof_smp_user_return(t);
}

static DEFINE_PER_CPU(struct user_return_notifier, lwprof_urn);

/* Set the callback here: per-CPU initial data is not to be relied on. */
static void lwprof_urn_register(void *unused)
{
	struct user_return_notifier *urn = this_cpu_ptr(&lwprof_urn);

	urn->on_user_return = lwprof_on_user_return;
	user_return_notifier_register(urn);
}

static void lwprof_urn_unregister(void *unused)
{
	user_return_notifier_unregister(this_cpu_ptr(&lwprof_urn));
}

/*
 * Page faults.  A fault opens a fault context; a sleep while it is the
 * innermost context is fault time.  The kernel counts a fault in the
 * task's min_flt/maj_flt only once it has completed (not when it must be
 * retried), so a fault context whose count has moved is over: that is how
 * its end is found without a probe on the fault handler.  A user fault's
 * context also ends at the return to user mode.
 */
static void lwprof_fault_push(struct lwprof_thread *t, u8 ctx)
{
	if (t->depth && lwprof_ctx_is_fault(t->ctx[t->depth - 1]))
		t->depth--;	/* the previous fault is over */
	if (t->depth < LWPROF_CTX_MAX)
		t->ctx[t->depth++] = ctx;
	t->fault_cnt = lwprof_fault_count(t->task);
}

/* A user fault: TFAULT if it fetched an instruction, else DFAULT. */
static void lwprof_tp_page_fault_user(void *data, unsigned long address,
				      struct pt_regs *regs,
				      unsigned long error_code)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->depth = 0;
	lwprof_fault_push(t, (error_code & X86_PF_INSTR) || regs->ip == address ?
			  LWPROF_CTX_TFAULT : LWPROF_CTX_DFAULT);
	if (t->state == LWPROF_MS_USER)
		lwprof_ms_set(t, LWPROF_MS_SYSTEM, lwprof_now());
	lwprof_cur_write_end(t, flags);
}

/*
 * A kernel-mode fault on user memory (copy_to_user() and friends) is
 * KFAULT.  Faults on kernel addresses and those taken with page faults
 * disabled (nofault copies, ours included) are not faults of the thread.
 */
static void lwprof_tp_page_fault_kernel(void *data, unsigned long address,
					struct pt_regs *regs,
					unsigned long error_code)
{
	struct lwprof_thread *t;

	if (address >= TASK_SIZE_MAX || pagefault_disabled())
		return;
	t = lwprof_cur();
	if (t)
		lwprof_fault_push(t, LWPROF_CTX_KFAULT);
}

/*
 * Interrupts: time in the outermost hard or soft interrupt handler is TRAP
 * for the thread it interrupted.  The preempt count tells the outermost:
 * a hardirq not nested in another one nor in a softirq being served, or a
 * softirq outside any hardirq.
 */
static void lwprof_trap_enter(void)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = c->cur;
	unsigned long flags;

	if (!t || c->trapped)
		return;
	local_irq_save(flags);
	c->trapped = true;
	c->trap_resume = t->state;
	lwprof_ms_change(t, LWPROF_MS_TRAP);
	local_irq_restore(flags);
}

static void lwprof_trap_exit(void)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = c->cur;
	unsigned long flags;

	if (!c->trapped)
		return;
	local_irq_save(flags);
	c->trapped = false;
	if (t)
		lwprof_ms_change(t, c->trap_resume);
	local_irq_restore(flags);
}

static inline bool lwprof_outer_hardirq(void)
{
	return hardirq_count() == HARDIRQ_OFFSET && !in_serving_softirq();
}

static void lwprof_tp_irq_entry(void *data, int irq, struct irqaction *action)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_enter();
}

static void lwprof_tp_irq_exit(void *data, int irq, struct irqaction *action,
			       int ret)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_exit();
}

static void lwprof_tp_vector_entry(void *data, int vector)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_enter();
}

static void lwprof_tp_vector_exit(void *data, int vector)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_exit();
}

static void lwprof_tp_softirq_entry(void *data, unsigned int vec_nr)
{
	if (!hardirq_count())
		lwprof_trap_enter();
}

static void lwprof_tp_softirq_exit(void *data, unsigned int vec_nr)
{
	if (!hardirq_count())
		lwprof_trap_exit();
}

static void lwprof_tp_signal_deliver(void *data, int sig,
				     struct kernel_siginfo *info,
				     struct k_sigaction *ka)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->signals++;
	lwprof_cur_write_end(t, flags);
}

/* exec may give the thread its process's pid (de_thread()). */
static void lwprof_tp_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->pid = task_tgid_nr_ns(p, t->session->pid_ns);
	t->tid = task_pid_nr_ns(p, t->session->pid_ns);
	lwprof_cur_write_end(t, flags);
	lwprof_smp_exec(t, p);
}

/*
 * A new thread or process: it joins its creator's session (or the machine
 * session).  It is runnable from the start and begins in the kernel.
 * Called before the child is woken, so nothing else touches it yet.
 */
static void lwprof_tp_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct lwprof_thread *pt = lwprof_thread_find(parent);
	struct lwprof_session *s;
	struct lwprof_thread *t;
	unsigned long flags;

	s = pt ? pt->session : rcu_dereference_sched(lwprof_machine);
	if (!s || child->tgid == s->exclude_tgid)
		return;
	t = lwprof_thread_alloc(GFP_ATOMIC);
	if (!t) {
		atomic64_inc(&s->lost);
		return;
	}
	lwprof_thread_init(t, child, s, lwprof_now());
	if (child->tgid != parent->tgid)
		t->ppid = task_tgid_nr_ns(parent, s->pid_ns);
	else if (pt)
		t->ppid = pt->ppid;
	t->state = LWPROF_MS_WAIT_CPU;
	t->resume = LWPROF_MS_SYSTEM;

	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->closing || lwprof_thread_hash(t)) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		lwprof_thread_free(t);
		return;
	}
	list_add_tail(&t->snode, &s->threads);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	lwprof_smp_fork(t, child);
}

/*
 * The task is being freed (RCU callback): its entry leaves the table.  The
 * final record stays on the session's list until its owner has read it.
 */
static void lwprof_tp_free(void *data, struct task_struct *p)
{
	struct lwprof_thread *t = lwprof_thread_find(p);
	struct lwprof_session *s;
	unsigned long flags;
	bool gone = false;

	if (!t)
		return;
	s = t->session;
	raw_spin_lock_irqsave(&s->lock, flags);
	if (!s->closing) {
		lwprof_thread_unhash(t);
		if (!t->exited) {	/* never switched out dead: close now */
			write_seqcount_begin(&t->seq);
			t->end_ns = t->last_ns;
			lwprof_thread_final(t, p);
			t->exited = 1;
			write_seqcount_end(&t->seq);
		}
		t->flags |= LWPROF_T_FREED;
		if (t->flags & LWPROF_T_REPORTED) {
			list_del(&t->snode);
			gone = true;
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (gone)
		lwprof_thread_free(t);
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
	c->trapped = false;
}

#define TP(n, fn, opt)	{ .name = n, .probe = fn, .optional = opt }

struct lwprof_tp lwprof_mstate_tps[] = {
	TP("sched_switch", lwprof_tp_sched_switch, false),
	TP("sched_wakeup", lwprof_tp_sched_wakeup, false),
	TP("sched_wakeup_new", lwprof_tp_sched_wakeup, false),
	TP("sched_process_fork", lwprof_tp_fork, false),
	TP("sched_process_exec", lwprof_tp_exec, false),
	TP("sched_process_free", lwprof_tp_free, false),
	TP("sys_enter", lwprof_tp_sys_enter, false),
	TP("sys_exit", lwprof_tp_sys_exit, false),
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
LWPROF_CHECK_TP(sched_wakeup_new, lwprof_tp_sched_wakeup);
LWPROF_CHECK_TP(sched_process_fork, lwprof_tp_fork);
LWPROF_CHECK_TP(sched_process_exec, lwprof_tp_exec);
LWPROF_CHECK_TP(sched_process_free, lwprof_tp_free);
LWPROF_CHECK_TP(sys_enter, lwprof_tp_sys_enter);
LWPROF_CHECK_TP(sys_exit, lwprof_tp_sys_exit);
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

void lwprof_ms_urn_register(void)
{
	on_each_cpu(lwprof_urn_register, NULL, 1);
}

void lwprof_ms_urn_unregister(void)
{
	on_each_cpu(lwprof_urn_unregister, NULL, 1);
}
