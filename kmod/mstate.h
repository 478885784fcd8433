/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the files of the microstate machine: mstate.c (the state core
 * and the scheduler probes), mstate_sys.c (system calls: the entry hook and
 * futex classification) and mstate_events.c (faults, interrupts and the
 * life of a thread).  Not for the rest of the module: it uses internal.h.
 */
#ifndef LWPROF_MSTATE_H
#define LWPROF_MSTATE_H

#include <linux/entry-common.h>
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "internal.h"

/*
 * Per CPU: the entry of the task running here, the time it entered a
 * system call not yet charged (mstate_sys.c), an open trap, and whether
 * the user-return notifier is armed (mstate_ret.c: while a thread here
 * needs it).  cur and sys_in are read by the hooks' assembly
 * (lwprof_asm_offsets()).
 */
struct lwprof_cpu {
	struct lwprof_thread *cur;
	u64 sys_in;		/* 0: none; else cur's, cleared at each switch */
	struct lwprof_thread *idle;	/* idle.c: idle packets of this CPU */
	bool trapped;		/* cur is in TRAP, trap_resume to restore */
	u8 trap_resume;
	u8 trap_kind;		/* LWPROF_TRAP_* of the open trap */
	u8 flags;		/* LWPROF_CPU_*: not 0, sched_switch's slow path */
};

#define LWPROF_CPU_URN		BIT(0)	/* the user-return notifier armed */
#define LWPROF_CPU_NO_FAST	BIT(1)	/* attached without the fast switch */

DECLARE_PER_CPU(struct lwprof_cpu, lwprof_cpu);

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

/*
 * Charge the time since the last change to old, t's state (which the
 * caller has read, the seqcount held), and enter state.
 */
static __always_inline void lwprof_ms_move(struct lwprof_thread *t,
					   unsigned int old,
					   unsigned int state, u64 now)
{
	u64 last = t->last_ns;

	if (now > last) {
		t->acc[old] += now - last;
		t->last_ns = now;
	}
	t->state = state;
}

/* Charge the time since the last change to the old state, enter the new. */
static __always_inline void lwprof_ms_set(struct lwprof_thread *t,
					  unsigned int state, u64 now)
{
	lwprof_ms_move(t, t->state, state, now);
}

/*
 * A system call's entry is only stamped (the CPU's sys_in, mstate_sys.c):
 * the change to SYSTEM is made by whatever comes next on the thread's
 * CPU (the return to user mode charges both at once, see mstate_ret.c),
 * or here, by the probes that need the state as it is: a switch, an
 * interrupt, a fault, an exec.  t is the running thread's entry (the
 * CPU's cur), its seqcount held, interrupts off.  The call's context
 * (SYSCALL, or LOCK for a futex wait) comes from its number and arguments
 * in the thread's saved registers.
 */
static __always_inline bool lwprof_futex_wait(struct task_struct *task,
					      struct pt_regs *regs, long nr,
					      bool compat);

/* Is the system call the running thread is in a futex wait? */
static __always_inline bool lwprof_cur_futex_wait(void)
{
	struct pt_regs *regs = task_pt_regs(current);
	bool compat = in_ia32_syscall();
	long nr = syscall_get_nr(current, regs);

	if (!compat)
		nr &= ~(long)__X32_SYSCALL_BIT;
	return lwprof_futex_wait(current, regs, nr, compat);
}

/*
 * An interrupt that came between the entry's clock reading and its store
 * has charged its own time already (last_ns past sys_in): the call's
 * SYSTEM time then starts there, lwprof_ms_set() charging nothing.
 */
static __always_inline void lwprof_ms_commit_at(struct lwprof_thread *t,
						u64 sys_in)
{
	this_cpu_write(lwprof_cpu.sys_in, 0);
	t->syscalls++;
	t->depth = 1;
	t->ctx[0] = lwprof_cur_futex_wait() ? LWPROF_CTX_LOCK :
					      LWPROF_CTX_SYSCALL;
	lwprof_ms_set(t, LWPROF_MS_SYSTEM, sys_in);
}

void __lwprof_ms_commit(struct lwprof_thread *t, u64 sys_in);

static __always_inline void lwprof_ms_commit(struct lwprof_thread *t)
{
	u64 sys_in = this_cpu_read(lwprof_cpu.sys_in);

	if (unlikely(sys_in))
		__lwprof_ms_commit(t, sys_in);
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
 * The running thread's entry, with interrupts off (an IRQ probe could
 * interleave) and its seqcount open for writing, a pending system-call
 * entry charged; NULL, with nothing held, if the thread is not accounted.
 * Close with lwprof_cur_write_end().
 */
static __always_inline struct lwprof_thread *
lwprof_cur_write_begin(unsigned long *flags)
{
	struct lwprof_thread *t;

	local_irq_save(*flags);
	t = lwprof_cur();
	if (t) {
		write_seqcount_begin(&t->seq);
		lwprof_ms_commit(t);
	} else {
		local_irq_restore(*flags);
	}
	return t;
}

static __always_inline void lwprof_cur_write_end(struct lwprof_thread *t,
						 unsigned long flags)
{
	write_seqcount_end(&t->seq);
	local_irq_restore(flags);
}

/* The direct hooks' entry points, written in assembly. */
void lwprof_sys_tramp(void);
void lwprof_ret_tramp(void);

/*
 * The direct hooks' assembly (mstate_sys.c, mstate_ret.c) names the
 * fields it reads through assembler symbols, which LWPROF_ASM_OFFSETS()
 * defines once in each file that uses them (a function never called, kept
 * for its asm), and reads the clock with LWPROF_ASM_TSC_NOW: rax = now,
 * rdx clobbered, as lwprof_tsc_now().
 */
#define LWPROF_ASM_OFFSETS()						\
static void __used notrace lwprof_asm_offsets(void)			\
{									\
	asm volatile(							\
	".set LWPROF_CPU_CUR, %c0\n"					\
	".set LWPROF_CPU_SYS_IN, %c1\n"					\
	".set LWPROF_CLOCK_MULT, %c2\n"					\
	".set LWPROF_CLOCK_OFFSET, %c3\n"				\
	".set LWPROF_T_TASK, %c4\n"					\
	".set LWPROF_T_SEQ, %c5\n"					\
	".set LWPROF_T_STATE, %c6\n"					\
	".set LWPROF_T_LAST, %c7\n"					\
	".set LWPROF_T_ACC_USER, %c8\n"					\
	".set LWPROF_T_ACC_SYSTEM, %c9\n"				\
	".set LWPROF_T_SYSCALLS, %c10\n"				\
	".set LWPROF_T_SMP_DUE, %c11\n"					\
	".set LWPROF_MS_USER_ASM, %c12\n"				\
	".set LWPROF_RET_WORK, %c13\n"					\
	".set LWPROF_TASK_FLAGS, %c14\n"				\
	".set LWPROF_TASK_WORKS, %c15\n"				\
	".set LWPROF_T_ACC, %c16\n"					\
	".set LWPROF_T_DEPTH, %c17\n"					\
	".set LWPROF_RET_TW_WORK, %c18\n"				\
	".set LWPROF_T_GUARDED, %c19\n"					\
	: : "i" (offsetof(struct lwprof_cpu, cur)),			\
	    "i" (offsetof(struct lwprof_cpu, sys_in)),			\
	    "i" (offsetof(struct lwprof_clock, mult)),			\
	    "i" (offsetof(struct lwprof_clock, offset)),		\
	    "i" (offsetof(struct lwprof_thread, task)),			\
	    "i" (offsetof(struct lwprof_thread, seq.sequence)),		\
	    "i" (offsetof(struct lwprof_thread, state)),		\
	    "i" (offsetof(struct lwprof_thread, last_ns)),		\
	    "i" (offsetof(struct lwprof_thread, acc[LWPROF_MS_USER])),	\
	    "i" (offsetof(struct lwprof_thread, acc[LWPROF_MS_SYSTEM])), \
	    "i" (offsetof(struct lwprof_thread, syscalls)),		\
	    "i" (offsetof(struct lwprof_thread, smp_due)),		\
	    "i" (LWPROF_MS_USER),					\
	    "i" (LWPROF_RET_WORK),					\
	    "i" (offsetof(struct task_struct, thread_info.flags)),	\
	    "i" (offsetof(struct task_struct, task_works)),		\
	    "i" (offsetof(struct lwprof_thread, acc)),			\
	    "i" (offsetof(struct lwprof_thread, depth)),		\
	    "i" (LWPROF_RET_WORK | _TIF_NOTIFY_RESUME),			\
	    "i" (offsetof(struct lwprof_thread, guarded)));		\
	/* One 16-bit test of both: a packet due, a slot to publish. */	\
	static_assert(offsetof(struct lwprof_thread, us_on) ==		\
		      offsetof(struct lwprof_thread, smp_due) + 1);	\
	static_assert(sizeof_field(struct lwprof_thread, guarded) == 1); \
}

/*
 * The work on the way back to user mode (mstate_ret.c) that the return
 * waits for: a signal to deliver (a handler's frame to build), a uprobe,
 * a live patch, and task work (with _TIF_NOTIFY_RESUME, when
 * task_works is set).  Not the rest of the kernel's loop: a reschedule
 * (the wait is WAIT_CPU, and a preemption after an interrupt from user
 * mode has always counted as USER), the rseq fix-up, a memory cgroup's
 * or block cgroup's throttling (a sleep, then SLEEP).
 */
#ifdef _TIF_NEED_RESCHED_LAZY
#define LWPROF_RET_CHEAP_WORK	(_TIF_NEED_RESCHED | _TIF_NEED_RESCHED_LAZY | \
				 _TIF_NOTIFY_RESUME)
#else
#define LWPROF_RET_CHEAP_WORK	(_TIF_NEED_RESCHED | _TIF_NOTIFY_RESUME)
#endif
#define LWPROF_RET_WORK		(EXIT_TO_USER_MODE_WORK & ~LWPROF_RET_CHEAP_WORK)
static_assert((LWPROF_RET_WORK | _TIF_NOTIFY_RESUME) <= 0x7fffffff); /* testl */

#define LWPROF_ASM_TSC_NOW						\
"	rdtsc\n"							\
"	shlq $32, %rdx\n"						\
"	orq %rdx, %rax\n"						\
"	mulq lwprof_clock+LWPROF_CLOCK_MULT(%rip)\n"			\
"	shrdq $" __stringify(LWPROF_CLOCK_SHIFT) ", %rdx, %rax\n"		\
"	addq lwprof_clock+LWPROF_CLOCK_OFFSET(%rip), %rax\n"

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
struct ftrace_ops;
int lwprof_direct_on(struct ftrace_ops *ops, void (*tramp)(void));
void lwprof_direct_off(struct ftrace_ops *ops, void (*tramp)(void));

/*
 * mstate_ret.c: the return to user mode.  lwprof_ms_user_return() is its
 * change to USER (interrupts off, t the running thread's entry).  The
 * user-return notifier is armed on a CPU while the thread running there
 * needs it: every accounted thread where the kernel has no cheaper hook
 * (lwprof_urn_always), else a thread whose return has work to do first
 * (t->want_urn).  sched_switch keeps it so.
 */
void lwprof_ms_user_return(struct lwprof_thread *t);
DECLARE_STATIC_KEY_FALSE(lwprof_urn_always);
void lwprof_urn_arm(struct lwprof_cpu *c);
void lwprof_urn_disarm(struct lwprof_cpu *c);

/* sched_switch, next's entry in (or NULL): arm or disarm the notifier. */
static __always_inline void lwprof_urn_switch(struct lwprof_cpu *c,
					      struct lwprof_thread *in)
{
	bool want = in && (static_branch_unlikely(&lwprof_urn_always) ||
			   unlikely(in->want_urn));

	if (unlikely(want != !!(c->flags & LWPROF_CPU_URN))) {
		if (want)
			lwprof_urn_arm(c);
		else
			lwprof_urn_disarm(c);
	}
}

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
