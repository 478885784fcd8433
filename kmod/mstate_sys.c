// SPDX-License-Identifier: GPL-2.0
/*
 * System calls: the entry into the kernel (USER -> SYSTEM) and whether the
 * call is a futex wait (USER_LOCK when it sleeps), for running threads and
 * for threads an attach finds asleep in a call.
 *
 * The entry only stamps its CPU with the time (lwprof_cpu.sys_in): one
 * clock reading and one store, if the CPU runs an accounted thread.
 * Whatever comes next on that CPU makes the thread's change to SYSTEM as
 * of that time (__lwprof_ms_commit()): most often the return to user
 * mode, which then charges the call's USER and SYSTEM time at once
 * (mstate_ret.c); else a switch, an interrupt, a fault or an exec, which
 * need the state as it is.  So a call that neither sleeps nor is
 * interrupted costs two clock readings and one update of the thread's
 * totals, and whether it is a futex wait is decided only for calls that
 * sleep.  The stamp needs neither the entry nor preemption off: a thread
 * preempted between its look at the CPU's cur and its store stamps the
 * CPU it then runs on, where it is cur (or no one is); each switch clears
 * the stamp (mstate.c), and readers take the later of the stamp and the
 * thread's last change (an interrupt in between charged its own time).
 *
 * Where the entry is seen, chosen each time the probes attach
 * (lwprof_ms_sys_on()), cheapest first:
 *  - a direct ftrace call from the entry of the system-call table's
 *    dispatchers (x64_sys_call() and its ia32/x32 twins, see
 *    lwprof_compat_sys_filter()) into lwprof_sys_tramp below: a call
 *    patched into the dispatcher, a few instructions that keep its
 *    arguments, the stamp.  It needs the TSC clock (the stamp calls
 *    nothing);
 *  - an ftrace callback on the same functions (the ftrace trampoline
 *    saves the argument registers and calls it), where the clock is not
 *    the TSC or direct calls are refused;
 *  - the sys_enter tracepoint, where the kernel has no dispatcher to hook,
 *    ftrace refuses (function tracing switched off), or the module
 *    parameter sys_tracepoint says so.  It puts every thread of the
 *    machine on the slow system-call path while it is registered.
 * The dispatchers are called by the entry code only for a valid system
 * call number, with interrupts on, after seccomp and ptrace have had
 * their say.  Both ftrace ways are PERMANENT: kernel.ftrace_enabled
 * cannot be cleared while they are on, and with it cleared they are not
 * used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/sched/task_stack.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#include <asm/syscall.h>
#include <uapi/linux/futex.h>

#include "mstate.h"

/* Is this system call a futex wait (a user-level lock or condvar)? */
bool lwprof_futex_wait_slow(struct task_struct *task,
			    struct pt_regs *regs, long nr,
			    bool compat)
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
	/*
	 * Only a thread that runs user code may be in user mode; a kernel
	 * thread (or io_uring worker) found running or runnable resumes in
	 * the kernel.  Guessing USER for those showed a kernel thread
	 * runnable at the attach (rcuc/1 on PREEMPT_RT) with 11 ms of USER.
	 */
	unsigned int run = task->flags & (PF_KTHREAD | PF_IO_WORKER) ?
			   LWPROF_MS_SYSTEM : LWPROF_MS_USER;

	t->resume = LWPROF_MS_SYSTEM;
	if (task == current) {
		t->state = LWPROF_MS_SYSTEM;
		t->depth = 1;
		t->ctx[0] = LWPROF_CTX_SYSCALL;
		return;
	}
	if (READ_ONCE(task->on_cpu)) {
		t->state = run;
		t->guessed = 1;
		return;
	}
	if (lwprof_task_runnable(task)) {
		t->state = LWPROF_MS_WAIT_CPU;
		t->resume = run;
		return;
	}
	if (!(task->flags & PF_KTHREAD)) {
		regs = task_pt_regs(task);
		nr = syscall_get_nr(task, regs);
	}
	if (nr >= 0) {
		t->depth = 1;
		t->ctx[0] = lwprof_futex_wait(task, regs,
					      nr & ~(long)__X32_SYSCALL_BIT,
					      false) ?
			    LWPROF_CTX_LOCK : LWPROF_CTX_SYSCALL;
	}
	if (st & (__TASK_STOPPED | __TASK_TRACED))
		t->state = LWPROF_MS_STOPPED;
	else if (t->depth && t->ctx[0] == LWPROF_CTX_LOCK)
		t->state = LWPROF_MS_USER_LOCK;
	else
		t->state = LWPROF_MS_SLEEP;
}

/* The change to SYSTEM of a system call entered at sys_in (mstate.h). */
void __lwprof_ms_commit(struct lwprof_thread *t, u64 sys_in)
{
	lwprof_ms_commit_at(t, sys_in);
}

/*
 * The running thread enters the kernel for a system call: preemption
 * and interrupts on.  An interrupt probe that comes before the store sees
 * the thread in user mode, one that comes after commits the entry.
 */
static __always_inline void lwprof_sys_stamp(void)
{
	if (raw_cpu_read(lwprof_cpu.cur))
		raw_cpu_write(lwprof_cpu.sys_in, lwprof_now());
}

/* The sys_enter tracepoint. */
void lwprof_tp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	lwprof_sys_stamp();
}

/*
 * Both ftrace ways.  Threads nobody accounts (most of the machine's) leave
 * after the lookup of the CPU's cached entry.
 *
 * Recursion: neither ftrace_test_recursion_trylock() nor
 * FTRACE_OPS_FL_RECURSION, because the hooks cannot recurse: they fire
 * only in the three dispatchers, which nothing they call (nor an
 * interrupt or NMI taken in them) can enter, as they are reached only by
 * a system call from user mode.  Other ftrace users tracing the functions
 * the hooks call have their own protection.  The lock would cost 32
 * instructions per call (docs/results/benchmarks.md).
 */
static void notrace lwprof_ft_sys_call(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	lwprof_sys_stamp();
}

/*
 * The direct call's target, lwprof_sys_stamp() with the TSC clock: it is
 * attached only while the TSC is the clock.  Entered as if the dispatcher
 * had called it before its first instruction, with the dispatcher's
 * arguments (regs, nr) in rdi and rsi; rax and rdx, which it uses, are
 * free at a function's entry.  Ten instructions for an accounted thread,
 * five for the others.
 */
LWPROF_ASM_OFFSETS();

asm("	.pushsection .text, \"ax\", @progbits\n"
"	.type lwprof_sys_tramp, @function\n"
"lwprof_sys_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
"	cmpq $0, %gs:lwprof_cpu+LWPROF_CPU_CUR(%rip)\n"
"	je 1f\n"
	LWPROF_ASM_TSC_NOW
"	movq %rax, %gs:lwprof_cpu+LWPROF_CPU_SYS_IN(%rip)\n"
"1:\n"
	ASM_RET
"	.size lwprof_sys_tramp, .-lwprof_sys_tramp\n"
"	.popsection\n"
);

static struct ftrace_ops lwprof_sys_ops = {
	.func = lwprof_ft_sys_call,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static struct ftrace_ops lwprof_sys_direct_ops;

static bool lwprof_sys_filtered;	/* both ops aimed at the dispatchers */
static enum {
	LWPROF_SYS_OFF,
	LWPROF_SYS_DIRECT,
	LWPROF_SYS_FTRACE,
	LWPROF_SYS_TP,
} lwprof_sys_way;

static bool sys_tracepoint;
module_param(sys_tracepoint, bool, 0644);
MODULE_PARM_DESC(sys_tracepoint,
		 "account system calls with the sys_enter tracepoint, not an ftrace hook (read when the probes attach)");

/*
 * Direct calls and kernel.ftrace_enabled: a direct ops cannot be
 * FTRACE_OPS_FL_PERMANENT (registering sets its flags), and with function
 * tracing switched off it registers but is never called, so system calls
 * would go unaccounted without a word.  So while lwprof has direct calls
 * in the kernel, it also holds a PERMANENT ops on lwprof_ftrace_guard(), a
 * function of its own that nothing calls: registering that fails while
 * function tracing is off (the callers then fall back), and while it
 * stands the sysctl cannot switch function tracing off.  Callers hold the
 * probes' mutex.
 */
static noinline void lwprof_ftrace_guard(void)
{
	barrier();
}

static void notrace lwprof_ftrace_guard_cb(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
}

static struct ftrace_ops lwprof_guard_ops = {
	.func = lwprof_ftrace_guard_cb,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static unsigned int lwprof_guard_users;
static bool lwprof_guard_filtered;

static int lwprof_ftrace_hold(void)
{
	int ret;

	if (lwprof_guard_users) {
		lwprof_guard_users++;
		return 0;
	}
	if (!lwprof_guard_filtered)
		return -ENOENT;
	ret = register_ftrace_function(&lwprof_guard_ops);
	if (!ret)
		lwprof_guard_users = 1;
	return ret;
}

static void lwprof_ftrace_release(void)
{
	if (WARN_ON_ONCE(!lwprof_guard_users) || --lwprof_guard_users)
		return;
	WARN_ON_ONCE(unregister_ftrace_function(&lwprof_guard_ops));
}

/* Attach a direct call of ours from ops's functions to tramp. */
int lwprof_direct_on(struct ftrace_ops *ops, void (*tramp)(void))
{
	int ret = lwprof_ftrace_hold();

	if (ret)
		return ret;
	ret = lwprof_direct_register(ops, (unsigned long)tramp);
	if (ret)
		lwprof_ftrace_release();
	return ret;
}

/*
 * For ops of a module (FTRACE_OPS_FL_DYNAMIC) ftrace waits, after
 * unpatching, for every CPU to leave the code it called and, the kernel
 * being preemptible, for an RCU-tasks grace period: when this returns no
 * thread is in tramp, and the module may go.
 */
void lwprof_direct_off(struct ftrace_ops *ops, void (*tramp)(void))
{
	WARN_ON_ONCE(lwprof_direct_unregister(ops, (unsigned long)tramp));
	lwprof_ftrace_release();
}

/* At load: aim both ops at the dispatchers, if the kernel has them. */
int lwprof_ms_sys_init(void)
{
	int ret;

	lwprof_guard_filtered = !ftrace_set_filter_ip(&lwprof_guard_ops,
				(unsigned long)lwprof_ftrace_guard, 0, 0);
	ret = lwprof_compat_sys_filter(&lwprof_sys_ops);

	if (!ret) {
		ret = lwprof_compat_sys_filter(&lwprof_sys_direct_ops);
		if (ret)
			ftrace_free_filter(&lwprof_sys_ops);
	}
	lwprof_sys_filtered = !ret;
	if (ret)
		pr_info("no ftrace hook on the system-call table (%d): using the sys_enter tracepoint\n",
			ret);
	return 0;
}

/*
 * When the probes attach: hook the entries, the cheapest way the kernel
 * allows.  Returns 1 if the sys_enter tracepoint must do (probes.c
 * registers it with the others), 0 if hooked.
 */
int lwprof_ms_sys_on(void)
{
	int ret;

	if (!lwprof_sys_filtered || READ_ONCE(sys_tracepoint))
		goto tp;
	if (lwprof_clock.tsc) {
		ret = lwprof_direct_on(&lwprof_sys_direct_ops, lwprof_sys_tramp);
		if (!ret) {
			lwprof_sys_way = LWPROF_SYS_DIRECT;
			return 0;
		}
		pr_info("no direct call to the system-call table (%d): using an ftrace callback\n",
			ret);
	}
	ret = register_ftrace_function(&lwprof_sys_ops);
	if (!ret) {
		lwprof_sys_way = LWPROF_SYS_FTRACE;
		return 0;
	}
	pr_warn_ratelimited("cannot hook the system-call table (%d): using the sys_enter tracepoint\n",
			    ret);
tp:
	lwprof_sys_way = LWPROF_SYS_TP;
	return 1;
}

/*
 * When the probes detach: as for lwprof_direct_off(), ftrace has waited
 * for every thread to leave the callback when this returns.
 */
void lwprof_ms_sys_off(void)
{
	switch (lwprof_sys_way) {
	case LWPROF_SYS_DIRECT:
		lwprof_direct_off(&lwprof_sys_direct_ops, lwprof_sys_tramp);
		break;
	case LWPROF_SYS_FTRACE:
		WARN_ON_ONCE(unregister_ftrace_function(&lwprof_sys_ops));
		break;
	default:
		break;
	}
	lwprof_sys_way = LWPROF_SYS_OFF;
}

/* At unload, after the last lwprof_ms_sys_off(). */
void lwprof_ms_sys_exit(void)
{
	if (lwprof_guard_filtered)
		ftrace_free_filter(&lwprof_guard_ops);
	if (!lwprof_sys_filtered)
		return;
	ftrace_free_filter(&lwprof_sys_ops);
	ftrace_free_filter(&lwprof_sys_direct_ops);
}
