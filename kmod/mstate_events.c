// SPDX-License-Identifier: GPL-2.0
/*
 * Microstate events other than the scheduler's and system calls': page
 * faults, interrupts (TRAP), signals, and the life of a thread (fork,
 * exec, free).  The rules on who may write an entry are in mstate.c.
 */
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <asm/trap_pf.h>

#include "mstate.h"

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
void lwprof_tp_page_fault_user(void *data, unsigned long address,
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
void lwprof_tp_page_fault_kernel(void *data, unsigned long address,
				 struct pt_regs *regs,
				 unsigned long error_code)
{
	struct lwprof_thread *t;

	if (address >= TASK_SIZE_MAX || pagefault_disabled())
		return;
	t = lwprof_cur();
	if (!t)
		return;
	write_seqcount_begin(&t->seq);
	lwprof_ms_commit(t);	/* the system call the fault is in */
	lwprof_fault_push(t, LWPROF_CTX_KFAULT);
	write_seqcount_end(&t->seq);
}

/*
 * Interrupts: time in the outermost hard or soft interrupt handler is TRAP
 * for the thread it interrupted.  The preempt count tells the outermost:
 * a hardirq not nested in another one nor in a softirq being served, or a
 * softirq outside any hardirq.
 */
static void lwprof_trap_enter(unsigned int kind)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = c->cur;
	unsigned long flags;

	if (!t || c->trapped)
		return;
	local_irq_save(flags);
	write_seqcount_begin(&t->seq);
	lwprof_ms_commit(t);	/* a system call it interrupts */
	c->trapped = true;
	c->trap_kind = kind;
	c->trap_resume = t->state;
	lwprof_ms_set(t, LWPROF_MS_TRAP, lwprof_now());
	write_seqcount_end(&t->seq);
	local_irq_restore(flags);
}

/* fn: the handler that ran (irqaction, softirq action), or 0. */
static void lwprof_trap_exit(unsigned long fn)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = c->cur;
	unsigned long flags;
	u64 now, dur = 0;

	if (!c->trapped)
		return;
	local_irq_save(flags);
	c->trapped = false;
	if (t) {
		now = lwprof_now();
		/* This interrupt's time not yet in a packet (one may have come). */
		if (t->state == LWPROF_MS_TRAP && now > t->last_ns)
			dur = now - t->last_ns;
		write_seqcount_begin(&t->seq);
		lwprof_ms_set(t, c->trap_resume, now);
		write_seqcount_end(&t->seq);
		lwprof_smp_irq(t, c->trap_kind, dur, fn, now);
	}
	local_irq_restore(flags);
}

static inline bool lwprof_outer_hardirq(void)
{
	return hardirq_count() == HARDIRQ_OFFSET &&
	       !(LWPROF_SOFTIRQ_TRAP && in_serving_softirq());
}

void lwprof_tp_irq_entry(void *data, int irq, struct irqaction *action)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_enter(LWPROF_TRAP_HARD);
}

void lwprof_tp_irq_exit(void *data, int irq, struct irqaction *action,
			int ret)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_exit((unsigned long)action->handler);
}

void lwprof_tp_vector_entry(void *data, int vector)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_enter(LWPROF_TRAP_HARD);
}

void lwprof_tp_vector_exit(void *data, int vector)
{
	if (lwprof_outer_hardirq())
		lwprof_trap_exit(0);
}

void lwprof_tp_softirq_entry(void *data, unsigned int vec_nr)
{
	if (LWPROF_SOFTIRQ_TRAP && !hardirq_count())
		lwprof_trap_enter(LWPROF_TRAP_SOFT);
}

void lwprof_tp_softirq_exit(void *data, unsigned int vec_nr)
{
	if (LWPROF_SOFTIRQ_TRAP && !hardirq_count())
		lwprof_trap_exit(lwprof_softirq_fn(vec_nr));
}

void lwprof_tp_signal_deliver(void *data, int sig,
			      struct kernel_siginfo *info,
			      struct k_sigaction *ka)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->signals++;
	lwprof_cur_write_end(t, flags);
	lwprof_smp_signal(t);	/* before the handler's frame is built */
}

/*
 * ATTACH_EXEC: the thread's accounting begins now, in the exec system
 * call (its state stays what it is).  Its own CPU, interrupts off, inside
 * its seqcount write.
 */
static void lwprof_exec_restart(struct lwprof_thread *t, struct task_struct *p)
{
	memset(t->acc, 0, sizeof(t->acc));
	memset(t->smp_base, 0, sizeof(t->smp_base));
	lwprof_thread_begin(t, p, lwprof_now());
	t->vcsw = 0;
	t->ivcsw = 0;
	t->syscalls = 0;
	t->signals = 0;
	t->smp_next = 0;
	t->smp_due = 0;
	memset(t->irq_pend, 0, sizeof(t->irq_pend));
	memset(t->irq_next, 0, sizeof(t->irq_next));
	t->pre_exec = 0;
}

/* exec may give the thread its process's pid (de_thread()). */
void lwprof_tp_exec(void *data, struct task_struct *p, pid_t old_pid,
		    struct linux_binprm *bprm)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->pid = task_tgid_nr_ns(p, t->session->pid_ns);
	t->tid = task_pid_nr_ns(p, t->session->pid_ns);
	if (t->pre_exec)
		lwprof_exec_restart(t, p);
	lwprof_cur_write_end(t, flags);
	/* New credentials the session's owner may not trace: guard.c. */
	if (!lwprof_guard_exec(t, bprm))
		return;
	lwprof_smp_exec(t, p);
}

/*
 * A new thread or process: it joins its creator's session (or the machine
 * session).  Called before the child is woken, so nothing else touches it
 * yet.  Its accounting begins at its first wakeup (sched_wakeup_new), in
 * WAIT_CPU and then SYSTEM: until wake_up_new_task() queues it, it is on
 * no run queue, and its creator may still be delayed (an interrupt, or a
 * vCPU the host stalls: 4.5 ms once in the test guest).
 */
void lwprof_tp_fork(void *data, struct task_struct *parent,
		    struct task_struct *child)
{
	struct lwprof_thread *pt;
	struct lwprof_session *s;
	struct lwprof_thread *t;
	unsigned long flags;

	if (lwprof_probes_dormant())
		return;
	pt = lwprof_thread_find(parent);
	s = pt ? pt->session : rcu_dereference_sched(lwprof_machine);
	if (!s || child->tgid == s->exclude_tgid)
		return;
	/* Not followed where the session's owner may not trace: guard.c. */
	if (!lwprof_guard_fork(pt, child))
		return;
	t = lwprof_thread_new(s);	/* charged to the owner: thread.c */
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
	t->newborn = 1;
	t->pre_exec = pt && pt->pre_exec;

	raw_spin_lock_irqsave(&s->lock, flags);
	/* Not into a session that ends, or that another took (session.c). */
	if (s->closing || s->stopped || lwprof_thread_hash(t)) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		lwprof_thread_free(t);
		return;
	}
	lwprof_thread_listed(s, t);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	lwprof_smp_fork(t, child);
}

/*
 * task_newtask of a thread that copy_process() makes outside
 * kernel_clone(), so without sched_process_fork (LWPROF_PF_UNTRACED_FORK:
 * io_uring's workers): made by current, it joins current's session as at
 * a fork.  No lock is held here, and the thread is not woken yet.
 */
void lwprof_tp_newtask(void *data, struct task_struct *task,
		       unsigned long clone_flags)
{
	if (task->flags & LWPROF_PF_UNTRACED_FORK)
		lwprof_tp_fork(data, current, task);
}

/*
 * The task is being freed (RCU callback): its entry leaves the table.  The
 * final record stays on the session's list until its owner has read it.
 */
void lwprof_tp_free(void *data, struct task_struct *p)
{
	struct lwprof_thread *t;
	struct lwprof_session *s;
	unsigned long flags;
	bool gone = false, spares = false;

	if (lwprof_probes_dormant())
		return;
	t = lwprof_thread_find(p);
	if (!t)
		return;
	s = t->session;
	raw_spin_lock_irqsave(&s->lock, flags);
	if (t->flags & LWPROF_T_TAKEN) {
		/* lwprof_guard_take() holds it, and p: it makes it final */
		lwprof_thread_unhash(t);
	} else if (!s->closing) {
		spares = true;
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
			lwprof_thread_unlisted(s, t);
			gone = true;
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (gone)
		lwprof_thread_free(t);
	else if (spares)
		lwprof_thread_spares_free(t);	/* only its totals wait */
}
