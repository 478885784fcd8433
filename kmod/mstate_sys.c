// SPDX-License-Identifier: GPL-2.0
/*
 * System calls: the entry into the kernel (USER -> SYSTEM) and whether the
 * call is a futex wait (USER_LOCK when it sleeps), for running threads and
 * for threads an attach finds asleep in a call.
 */
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

void lwprof_tp_sys_enter(void *data, struct pt_regs *regs, long id)
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
