// SPDX-License-Identifier: GPL-2.0
/*
 * The return to user mode, from a system call, a fault or an interrupt:
 * the thread's change to USER, which also ends a system call (no sys_exit
 * probe is needed).  For a call entered since the last change (its entry
 * only stamped, see mstate_sys.c) it charges the call's USER and SYSTEM
 * time at once, on one clock reading.
 *
 * Where it is seen, chosen each time the probes attach (lwprof_ms_ret_on()):
 *  - where the kernel has exit_to_user_mode_prepare() as a function of its
 *    own (6.1: every return to user mode calls it, with interrupts off,
 *    before the work on the way out: signals, rescheduling, task work), a
 *    direct ftrace call at its entry into lwprof_ret_tramp below.  If
 *    that work is pending (the thread's flags say so), the change waits
 *    for the user-return notifier, armed for that one return: the thread
 *    is in SYSTEM until it really leaves (a signal's handler set up, a
 *    preemption's wait for a CPU, task work), as with the notifier alone.
 *    A flag set by another CPU after the look (a wakeup's resched, a
 *    signal) leaves that work to USER; a sleep in it is a sleep all the
 *    same, and a thread that slept from USER resumes in USER (mstate.c);
 *  - elsewhere, the user-return notifier on every return of an accounted
 *    thread: armed on a CPU while one runs there (sched_switch arms and
 *    disarms it), its flag set on the task running when it is armed and
 *    handed on by each switch to the next one (the flag follows the CPU).
 *
 * Both run with interrupts off, on the thread's CPU: the last step before
 * it runs user code again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/entry-common.h>
#include <linux/ftrace.h>
#include <linux/user-return-notifier.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>

#include "mstate.h"

static DEFINE_PER_CPU(struct user_return_notifier, lwprof_urn);

/* On while the notifier stands for every return (no direct hook). */
DEFINE_STATIC_KEY_FALSE(lwprof_urn_always);

/*
 * t returns to user mode (interrupts off, t the running thread's entry).
 * A system call whose entry is pending is charged here whole; the direct
 * hook's assembly does the same for the common case (below).
 */
static __always_inline void lwprof_ret_tail(struct lwprof_thread *t)
{
	lwprof_us_publish(t);
	lwprof_smp_user_return(t);
}

void lwprof_ms_user_return(struct lwprof_thread *t)
{
	u64 sys_in = this_cpu_read(lwprof_cpu.sys_in);

	/*
	 * guard.c: where a setuid() or a PR_SET_DUMPABLE shows first; a
	 * thread its session may no longer record is stopped (and is not
	 * the CPU's cur any more: its stamp goes too).
	 */
	if (unlikely(!lwprof_guard_current(t))) {
		this_cpu_write(lwprof_cpu.sys_in, 0);
		return;
	}
	t->depth = 0;
	if (sys_in || t->state != LWPROF_MS_USER) {
		write_seqcount_begin(&t->seq);
		if (sys_in)
			__lwprof_ms_commit(t, sys_in);
		lwprof_ms_set(t, LWPROF_MS_USER, lwprof_now());
		t->depth = 0;
		write_seqcount_end(&t->seq);
	}
	lwprof_ret_tail(t);
}

/* Preemption or interrupts off, on c's own CPU. */
static void lwprof_on_user_return(struct user_return_notifier *urn);

void lwprof_urn_arm(struct lwprof_cpu *c)
{
	struct user_return_notifier *urn;

	if (c->flags & LWPROF_CPU_URN)
		return;
	urn = this_cpu_ptr(&lwprof_urn);
	urn->on_user_return = lwprof_on_user_return;
	user_return_notifier_register(urn);
	c->flags |= LWPROF_CPU_URN;
}

void lwprof_urn_disarm(struct lwprof_cpu *c)
{
	if (!(c->flags & LWPROF_CPU_URN))
		return;
	user_return_notifier_unregister(this_cpu_ptr(&lwprof_urn));
	c->flags &= ~LWPROF_CPU_URN;
}

static void lwprof_on_user_return(struct user_return_notifier *urn)
{
	struct lwprof_thread *t = lwprof_cur();

	if (t) {
		t->want_urn = 0;
		lwprof_ms_user_return(t);
	}
	/* Armed for one return: disarmed from inside (the list allows it). */
	if (!static_branch_unlikely(&lwprof_urn_always))
		lwprof_urn_disarm(this_cpu_ptr(&lwprof_cpu));
}

/*
 * exit_to_user_mode_prepare()'s entry, interrupts off, while the TSC is
 * the clock: what lwprof_ret_tramp leaves to C.  With work to do before
 * the return, a pending entry is charged to SYSTEM and the notifier takes
 * the rest.
 */
void notrace lwprof_ret_direct(void);
void notrace lwprof_ret_direct(void)
{
	struct lwprof_thread *t = lwprof_cur();

	if (!t)
		return;
	if (likely(!(read_thread_flags() & LWPROF_RET_WORK) &&
		   !READ_ONCE(current->task_works))) {
		lwprof_ms_user_return(t);
		return;
	}
	write_seqcount_begin(&t->seq);
	lwprof_ms_commit(t);
	write_seqcount_end(&t->seq);
	t->want_urn = 1;
	lwprof_urn_arm(this_cpu_ptr(&lwprof_cpu));
}

/* The fast path's end, for a thread with a slot or a clock packet due. */
void notrace lwprof_ret_direct_tail(struct lwprof_thread *t);
void notrace lwprof_ret_direct_tail(struct lwprof_thread *t)
{
	lwprof_ret_tail(t);
}

/*
 * The direct call's target, entered as if exit_to_user_mode_prepare(regs)
 * had called it first thing; it keeps regs (rdi) and uses rax, rcx, rdx
 * and r8-r10, free at a function's entry.  lwprof_ms_user_return() for
 * the common cases, with nothing on the way out to wait for:
 *  - back from a system call that nothing interrupted, in USER before it:
 *    the stamp, one clock reading, the call's USER time up to the stamp
 *    (or to the last change, if later) and its SYSTEM time from there,
 *    under the seqcount;
 *  - back from an interrupt of user mode: nothing to charge;
 *  - back from anything else (a sleep, a preemption, a fault): the time
 *    since the last change to the state left.
 * The rest goes to lwprof_ret_direct(); the tail (the thread's slot, a
 * clock packet due) to lwprof_ret_direct_tail().  Threads nobody accounts
 * leave after one load.
 */
LWPROF_ASM_OFFSETS();

asm("	.pushsection .text, \"ax\", @progbits\n"
"	.type lwprof_ret_tramp, @function\n"
"lwprof_ret_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
"	movq %gs:lwprof_cpu+LWPROF_CPU_CUR(%rip), %r8\n"
"	testq %r8, %r8\n"
"	je 9f\n"
	/* A session that must guard its threads (guard.c): in C. */
"	cmpb $0, LWPROF_T_GUARDED(%r8)\n"
"	jne 8f\n"
"	movq LWPROF_T_TASK(%r8), %rax\n"
	/* Task work comes with _TIF_NOTIFY_RESUME (or NOTIFY_SIGNAL). */
"	testl $LWPROF_RET_TW_WORK, LWPROF_TASK_FLAGS(%rax)\n"
"	jne 10f\n"
"11:	movq %gs:lwprof_cpu+LWPROF_CPU_SYS_IN(%rip), %rcx\n"
"	testq %rcx, %rcx\n"
"	je 4f\n"
"	cmpb $LWPROF_MS_USER_ASM, LWPROF_T_STATE(%r8)\n"
"	jne 8f\n"
	/* A system call: USER to the stamp, SYSTEM from there to now. */
	LWPROF_ASM_TSC_NOW
"	incl LWPROF_T_SEQ(%r8)\n"
"	movq LWPROF_T_LAST(%r8), %r9\n"
"	cmpq %r9, %rcx\n"
"	cmovbq %r9, %rcx\n"
"	movq %rax, LWPROF_T_LAST(%r8)\n"
"	subq %rcx, %rax\n"
"	addq %rax, LWPROF_T_ACC_SYSTEM(%r8)\n"
"	subq %r9, %rcx\n"
"	addq %rcx, LWPROF_T_ACC_USER(%r8)\n"
"	incq LWPROF_T_SYSCALLS(%r8)\n"
"	incl LWPROF_T_SEQ(%r8)\n"
"	movq $0, %gs:lwprof_cpu+LWPROF_CPU_SYS_IN(%rip)\n"
"	cmpw $0, LWPROF_T_SMP_DUE(%r8)\n"
"	jne 7f\n"
	ASM_RET
	/* No system call: the state left since the last change, if not USER. */
"4:	cmpb $LWPROF_MS_USER_ASM, LWPROF_T_STATE(%r8)\n"
"	je 5f\n"
	LWPROF_ASM_TSC_NOW
"	incl LWPROF_T_SEQ(%r8)\n"
"	movq LWPROF_T_LAST(%r8), %r9\n"
"	cmpq %r9, %rax\n"
"	jbe 6f\n"
"	movzbl LWPROF_T_STATE(%r8), %ecx\n"
"	movq %rax, LWPROF_T_LAST(%r8)\n"
"	subq %r9, %rax\n"
"	addq %rax, LWPROF_T_ACC(%r8,%rcx,8)\n"
"6:	movb $LWPROF_MS_USER_ASM, LWPROF_T_STATE(%r8)\n"
"	movb $0, LWPROF_T_DEPTH(%r8)\n"
"	incl LWPROF_T_SEQ(%r8)\n"
"5:	cmpw $0, LWPROF_T_SMP_DUE(%r8)\n"	/* and us_on */
"	jne 7f\n"
	ASM_RET
"7:	pushq %rdi\n"
"	movq %r8, %rdi\n"
"	call lwprof_ret_direct_tail\n"
"	popq %rdi\n"
	ASM_RET
"10:	testl $LWPROF_RET_WORK, LWPROF_TASK_FLAGS(%rax)\n"
"	jne 8f\n"
"	cmpq $0, LWPROF_TASK_WORKS(%rax)\n"
"	je 11b\n"
"8:	pushq %rdi\n"
"	call lwprof_ret_direct\n"
"	popq %rdi\n"
"9:\n"
	ASM_RET
"	.size lwprof_ret_tramp, .-lwprof_ret_tramp\n"
"	.popsection\n"
);

static struct ftrace_ops lwprof_ret_ops;
static bool lwprof_ret_filtered;
static bool lwprof_ret_hooked;

static bool ret_notifier;
module_param(ret_notifier, bool, 0644);
MODULE_PARM_DESC(ret_notifier,
		 "see every return to user mode with the user-return notifier, not a direct hook (read when the probes attach)");

/* At load: the direct hook's function, if the kernel has it. */
int lwprof_ms_ret_init(void)
{
	char name[] = "exit_to_user_mode_prepare";

	lwprof_ret_filtered = !ftrace_set_filter(&lwprof_ret_ops, name,
						 strlen(name), 1);
	return 0;
}

/*
 * When the probes attach, before the tracepoints (sched_switch arms the
 * notifier as lwprof_urn_always says).
 */
int lwprof_ms_ret_on(void)
{
	int ret;

	if (lwprof_ret_filtered && lwprof_clock.tsc && !READ_ONCE(ret_notifier)) {
		ret = lwprof_direct_on(&lwprof_ret_ops, lwprof_ret_tramp);
		if (!ret) {
			lwprof_ret_hooked = true;
			return 0;
		}
		pr_info("no direct call at the return to user mode (%d): using the user-return notifier\n",
			ret);
	}
	static_branch_enable(&lwprof_urn_always);
	return 0;
}

/*
 * When the probes detach, after the tracepoints (nothing arms the notifier
 * any more): ftrace waits for the hook's callers (lwprof_direct_off());
 * then every CPU's notifier is disarmed (lwprof_ms_cpus_reset()).
 */
void lwprof_ms_ret_off(void)
{
	if (lwprof_ret_hooked) {
		lwprof_direct_off(&lwprof_ret_ops, lwprof_ret_tramp);
		lwprof_ret_hooked = false;
	}
	static_branch_disable(&lwprof_urn_always);
}

/* At unload, after the last lwprof_ms_ret_off(). */
void lwprof_ms_ret_exit(void)
{
	if (lwprof_ret_filtered)
		ftrace_free_filter(&lwprof_ret_ops);
}

/*
 * With no probe attached (before they attach, after they detach): every
 * CPU's state as at load, its notifier disarmed.  CPU hotplug is held off:
 * an online CPU does it itself (an IPI), an offline one runs nothing.
 */
static void lwprof_cpu_reset(struct lwprof_cpu *c)
{
	c->cur = NULL;
	c->idle = NULL;
	c->trapped = false;
}

static void lwprof_cpu_reset_ipi(void *unused)
{
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);

	lwprof_urn_disarm(c);
	lwprof_cpu_reset(c);
}

void lwprof_ms_cpus_reset(void)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(lwprof_cpu_reset_ipi, NULL, 1);
	for_each_possible_cpu(cpu) {
		struct lwprof_cpu *c = per_cpu_ptr(&lwprof_cpu, cpu);

		if (cpu_online(cpu))
			continue;
		/* Its last switch disarmed it; should it not have: unlink. */
		if (c->flags & LWPROF_CPU_URN)
			hlist_del(&per_cpu_ptr(&lwprof_urn, cpu)->link);
		c->flags &= ~LWPROF_CPU_URN;
		lwprof_cpu_reset(c);
	}
	cpus_read_unlock();
}

/*
 * When the probes attach, before sched_switch's: may it take its fast
 * path (mstate.c)?  Only on the TSC clock, and not with the notifier
 * standing for every return to user mode.  Set before the tracepoints
 * attach and while no CPU caches a thread (nothing arms a notifier, the
 * other flag, yet); read only by that probe.
 */
void lwprof_ms_cpus_fast(void)
{
	bool fast = lwprof_clock.tsc &&
		    !static_key_enabled(&lwprof_urn_always);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct lwprof_cpu *c = per_cpu_ptr(&lwprof_cpu, cpu);

		if (fast)
			c->flags &= ~LWPROF_CPU_NO_FAST;
		else
			c->flags |= LWPROF_CPU_NO_FAST;
	}
}
