// SPDX-License-Identifier: GPL-2.0
/*
 * System calls: the entry into the kernel (USER -> SYSTEM) and whether the
 * call is a futex wait (USER_LOCK when it sleeps), for running threads and
 * for threads an attach finds asleep in a call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/sched/task_stack.h>
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

/* The running thread enters the kernel for system call nr. */
static __always_inline void lwprof_sys_enter(struct pt_regs *regs, long nr)
{
	unsigned long flags;
	struct lwprof_thread *t = lwprof_cur_write_begin(&flags);

	if (!t)
		return;
	t->depth = 1;
	t->ctx[0] = lwprof_futex_wait(current, regs, nr, in_ia32_syscall()) ?
		    LWPROF_CTX_LOCK : LWPROF_CTX_SYSCALL;
	t->syscalls++;
	lwprof_ms_set(t, LWPROF_MS_SYSTEM, lwprof_now());
	lwprof_cur_write_end(t, flags);
}

/* The fallback: the sys_enter tracepoint (slow system-call path for all). */
void lwprof_tp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (lwprof_cur_maybe())
		lwprof_sys_enter(regs, id);
}

/*
 * The hook: an ftrace callback at the entry of the system-call table's
 * dispatcher, x64_sys_call(regs, nr) (and its ia32/x32 twins, see
 * lwprof_compat_sys_filter()), called by the entry code only for a valid
 * system call number, with interrupts on, after seccomp and ptrace have
 * had their say.  Unlike the tracepoint, it puts no thread on the slow
 * system-call path; the trampoline saves only the argument registers
 * (DYNAMIC_FTRACE_WITH_ARGS, no FTRACE_OPS_FL_SAVE_REGS).
 *
 * Threads nobody accounts (most of the machine's) leave after one load,
 * lwprof_cur_maybe(): they pay the trampoline and that.
 *
 * Recursion: neither ftrace_test_recursion_trylock() nor
 * FTRACE_OPS_FL_RECURSION, because the callback cannot recurse: the ops
 * fires only in the three dispatchers, which nothing the callback calls
 * (nor an interrupt or NMI taken in it) can enter, as they are reached
 * only by a system call from user mode.  Other ftrace users tracing the
 * functions the callback calls have their own protection.  What the lock
 * would also give is had otherwise: the entry is read with interrupts off
 * (lwprof_cur_write_begin(): one CPU, an RCU-sched reader, so the entry
 * is not freed under us), and the unlocked first load is exact
 * (lwprof_cur_maybe()).  The lock costs 32 instructions per call, one
 * seventh of the whole accounting of a null system call
 * (docs/benchmarks.md, scripts/bench-syshook).
 */
static void notrace lwprof_ft_sys_call(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	if (lwprof_bench_empty(LWPROF_EMPTY_SYS))
		return;
	if (lwprof_cur_maybe())
		lwprof_sys_enter((struct pt_regs *)lwprof_fregs_arg(fregs, 0),
				 (unsigned int)lwprof_fregs_arg(fregs, 1));
}

/*
 * PERMANENT: registering fails while function tracing is switched off
 * (sysctl kernel.ftrace_enabled = 0), and it cannot be switched off while
 * we are registered; without it, system calls would silently go
 * unaccounted.
 */
static struct ftrace_ops lwprof_sys_ops = {
	.func = lwprof_ft_sys_call,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static bool lwprof_sys_filtered;

static bool sys_tracepoint;
module_param(sys_tracepoint, bool, 0444);
MODULE_PARM_DESC(sys_tracepoint,
		 "account system calls with the sys_enter tracepoint, not the ftrace hook");

/* At load: can the hook be used?  Else the tracepoint will be. */
void lwprof_ms_sys_init(void)
{
	int ret = lwprof_compat_sys_filter(&lwprof_sys_ops);

	lwprof_sys_filtered = !ret;
	if (ret)
		pr_info("no ftrace hook on the system-call table (%d): using the sys_enter tracepoint\n",
			ret);
}

/*
 * At load, attach the hook; false if the tracepoint must do instead (told
 * by the module parameter, or ftrace refused: e.g. function tracing is
 * off).  It stays until unload.
 */
bool lwprof_ms_sys_hook_on(void)
{
	int ret;

	if (!lwprof_sys_filtered || READ_ONCE(sys_tracepoint))
		return false;
	ret = register_ftrace_function(&lwprof_sys_ops);
	if (ret) {
		pr_warn_ratelimited("cannot hook the system-call table (%d): using the sys_enter tracepoint\n",
				    ret);
		return false;
	}
	return true;
}

/*
 * For an ops of a module (FTRACE_OPS_FL_DYNAMIC), unregistering waits for
 * every CPU to leave the trampoline and, the kernel being preemptible,
 * for an RCU-tasks grace period: when it returns no callback is running
 * or can start, and the module may go.
 */
void lwprof_ms_sys_hook_off(void)
{
	WARN_ON_ONCE(unregister_ftrace_function(&lwprof_sys_ops));
}

/* At unload, after the last lwprof_ms_sys_hook_off(). */
void lwprof_ms_sys_exit(void)
{
	if (lwprof_sys_filtered)
		ftrace_free_filter(&lwprof_sys_ops);
}
