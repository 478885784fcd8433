/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the files of the microstate machine: mstate.c (the state core
 * and the scheduler probes), mstate_sys.c (system calls: the entry hook and
 * futex classification) and mstate_events.c (faults, interrupts and the
 * life of a thread).  Not for the rest of the module: it uses internal.h.
 */
#ifndef LWPROF_MSTATE_H
#define LWPROF_MSTATE_H

#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/unistd.h>

#include "internal.h"

/*
 * Per CPU: the entry of the task running here, an open trap, and whether
 * the user-return notifier is armed (while an accounted thread runs here).
 */
struct lwprof_cpu {
	struct lwprof_thread *cur;
	struct lwprof_thread *idle;	/* idle.c: idle packets of this CPU */
	bool trapped;		/* cur is in TRAP, trap_resume to restore */
	u8 trap_resume;
	u8 trap_kind;		/* LWPROF_TRAP_* of the open trap */
	bool urn_armed;
};

DECLARE_PER_CPU(struct lwprof_cpu, lwprof_cpu);

/*
 * scripts/bench-probes builds variant modules with -DLWPROF_BENCH_EMPTY=
 * MASK, each bit emptying one probe body, to measure what each costs.
 * A normal build empties nothing (the tests compiled out).
 */
#ifndef LWPROF_BENCH_EMPTY
#define LWPROF_BENCH_EMPTY	0
#endif
#define LWPROF_EMPTY_SYS	BIT(0)	/* system-call entry: return at once */
#define LWPROF_EMPTY_URN	BIT(1)	/* user-return notifier: return */
#define LWPROF_EMPTY_WAKE	BIT(2)	/* sched_wakeup: return */
#define LWPROF_EMPTY_SWITCH	BIT(3)	/* sched_switch: arm the notifier, return */
#define LWPROF_EMPTY_SWSTATE	BIT(4)	/* sched_switch: track cur, no states */
#define lwprof_bench_empty(bit)	((LWPROF_BENCH_EMPTY) & (bit))

static inline bool lwprof_ms_asleep(unsigned int state)
{
	return state >= LWPROF_MS_TFAULT && state <= LWPROF_MS_STOPPED;
}

/* Fault contexts, and the count of faults completed (mstate_events.c). */
static inline u64 lwprof_fault_count(struct task_struct *task)
{
	return READ_ONCE(task->min_flt) + READ_ONCE(task->maj_flt);
}

static inline bool lwprof_ctx_is_fault(u8 ctx)
{
	return ctx >= LWPROF_CTX_TFAULT;
}

/* Charge the time since the last change to the old state, enter the new. */
static __always_inline void lwprof_ms_set(struct lwprof_thread *t,
					  unsigned int state, u64 now)
{
	if (now > t->last_ns) {
		t->acc[t->state] += now - t->last_ns;
		t->last_ns = now;
	}
	t->state = state;
}

static __always_inline void lwprof_ms_change(struct lwprof_thread *t,
					     unsigned int state)
{
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, state, lwprof_now());
	write_seqcount_end(&t->seq);
}

/* The running thread's entry, if it is accounted. */
static __always_inline struct lwprof_thread *lwprof_cur(void)
{
	struct lwprof_thread *t = this_cpu_read(lwprof_cpu.cur);

	return t && t->task == current ? t : NULL;
}

/*
 * Could the running thread be accounted?  One load, for the hooks that
 * every thread of the machine runs: safe with preemption on, because the
 * cached entry of whichever CPU current runs on at the load is current's
 * if current is accounted (sched_switch or an attach's IPI set it).  So
 * false means "not accounted"; true means "look, with interrupts off".
 */
static __always_inline bool lwprof_cur_maybe(void)
{
	return raw_cpu_read(lwprof_cpu.cur);
}

/*
 * The running thread's entry, with interrupts off (an IRQ probe could
 * interleave) and its seqcount open for writing; NULL, with nothing held,
 * if the thread is not accounted.  Close with lwprof_cur_write_end().
 */
static __always_inline struct lwprof_thread *
lwprof_cur_write_begin(unsigned long *flags)
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

static __always_inline void lwprof_cur_write_end(struct lwprof_thread *t,
						 unsigned long flags)
{
	write_seqcount_end(&t->seq);
	local_irq_restore(flags);
}

/* idle.c: sched_switch to and from the idle task of a CPU with c->idle */
struct lwprof_thread *lwprof_idle_adopt(struct lwprof_cpu *c, u64 now);
struct lwprof_thread *lwprof_idle_in(struct lwprof_cpu *c,
				     struct task_struct *next, u64 now);
void lwprof_idle_out(struct lwprof_thread *t, u64 now);

/* mstate_sys.c */
bool lwprof_futex_wait_slow(struct task_struct *task, struct pt_regs *regs,
			    long nr, bool compat);

/* The common case, a 64-bit call that is no futex, decided inline. */
static __always_inline bool lwprof_futex_wait(struct task_struct *task,
					      struct pt_regs *regs, long nr,
					      bool compat)
{
	if (!compat && nr != __NR_futex && nr != __NR_futex_waitv)
		return false;
	return lwprof_futex_wait_slow(task, regs, nr, compat);
}

void lwprof_tp_sys_enter(void *data, struct pt_regs *regs, long id);

/* mstate_events.c: probes, for the table in mstate.c */
struct k_sigaction;
struct kernel_siginfo;
struct linux_binprm;

void lwprof_tp_page_fault_user(void *data, unsigned long address,
			       struct pt_regs *regs, unsigned long error_code);
void lwprof_tp_page_fault_kernel(void *data, unsigned long address,
				 struct pt_regs *regs,
				 unsigned long error_code);
void lwprof_tp_irq_entry(void *data, int irq, struct irqaction *action);
void lwprof_tp_irq_exit(void *data, int irq, struct irqaction *action,
			int ret);
void lwprof_tp_vector_entry(void *data, int vector);
void lwprof_tp_vector_exit(void *data, int vector);
void lwprof_tp_softirq_entry(void *data, unsigned int vec_nr);
void lwprof_tp_softirq_exit(void *data, unsigned int vec_nr);
void lwprof_tp_signal_deliver(void *data, int sig,
			      struct kernel_siginfo *info,
			      struct k_sigaction *ka);
void lwprof_tp_exec(void *data, struct task_struct *p, pid_t old_pid,
		    struct linux_binprm *bprm);
void lwprof_tp_fork(void *data, struct task_struct *parent,
		    struct task_struct *child);
void lwprof_tp_newtask(void *data, struct task_struct *task,
		       unsigned long clone_flags);
void lwprof_tp_free(void *data, struct task_struct *p);

#endif /* LWPROF_MSTATE_H */
