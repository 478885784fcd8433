/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel versions that lwprof cares about lives in
 * this one header (and compat.c, for what the kernel does not export).  The
 * rest of kmod/ is written against the names below and never tests
 * LINUX_VERSION_CODE itself.
 *
 * Supported: 6.1 (Debian 12's linux-image-amd64) and later 6.x, x86_64.
 */
#ifndef LWPROF_COMPAT_H
#define LWPROF_COMPAT_H

#include <linux/version.h>
#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/ftrace.h>
#include <asm/ptrace.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "lwprof needs Linux 6.1 or later"
#endif

/*
 * Tracepoint prototypes change between releases (sched_switch gained
 * prev_state in 5.18).  register_trace_<tp>() is an inline in the trace
 * header; a probe of the wrong type fails the build here without the
 * unexported __tracepoint_<tp> symbol being referenced.  Use after
 * including the tracepoint's trace/events header.
 */
#define LWPROF_CHECK_TP(tp, fn) \
	static_assert(sizeof(register_trace_##tp(fn, NULL)) == sizeof(int))

/* 32-bit tasks' futex system calls (arch/x86/entry/syscalls/syscall_32.tbl). */
#define LWPROF_NR_FUTEX_COMPAT		240
#define LWPROF_NR_FUTEX_WAITV_COMPAT	449

/*
 * Argument n of the function an ftrace callback was called for.
 * ftrace_regs_get_argument() came after 6.1; on 6.1's x86 with
 * DYNAMIC_FTRACE_WITH_ARGS, ftrace_regs wraps a pt_regs in which the
 * trampoline saved the argument registers.
 */
static __always_inline unsigned long
lwprof_fregs_arg(struct ftrace_regs *fregs, unsigned int n)
{
#ifdef ftrace_regs_get_argument
	return ftrace_regs_get_argument(fregs, n);
#else
	return regs_get_kernel_argument(&fregs->regs, n);
#endif
}

/* compat.c: aim an ftrace_ops at the system-call table's dispatchers. */
int lwprof_compat_sys_filter(struct ftrace_ops *ops);

/* vma->vm_flags became read-only (vm_flags_mod()) in 6.3. */
static inline void lwprof_vm_flags_mod(struct vm_area_struct *vma,
				       unsigned long set, unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Direct ftrace calls (mstate_sys.c, mstate_ret.c: the hot hooks).  6.1
 * has them as register_ftrace_direct_multi(ops, addr); 6.5 renamed that
 * register_ftrace_direct() (dropping the single-function API of the same
 * name), and its unregister_ftrace_direct() may free the ops' filter,
 * which lwprof keeps for the next attach.  Without direct calls: -ENODEV,
 * and the hooks fall back.  Direct trampolines account the call depth
 * where the kernel tracks it (CALL_DEPTH_ACCOUNT, since 6.2).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static inline int lwprof_direct_register(struct ftrace_ops *ops,
					 unsigned long addr)
{
	return register_ftrace_direct(ops, addr);
}

static inline int lwprof_direct_unregister(struct ftrace_ops *ops,
					   unsigned long addr)
{
	return unregister_ftrace_direct(ops, addr, false);
}
#else
static inline int lwprof_direct_register(struct ftrace_ops *ops,
					 unsigned long addr)
{
	return register_ftrace_direct_multi(ops, addr);
}

static inline int lwprof_direct_unregister(struct ftrace_ops *ops,
					   unsigned long addr)
{
	return unregister_ftrace_direct_multi(ops, addr);
}
#endif
#else
static inline int lwprof_direct_register(struct ftrace_ops *ops,
					 unsigned long addr)
{
	return -ENODEV;
}

static inline int lwprof_direct_unregister(struct ftrace_ops *ops,
					   unsigned long addr)
{
	return -ENODEV;
}
#endif

#include <asm/nospec-branch.h>
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/*
 * Is a thread that switches out still runnable (preempted, yielded, or
 * kept awake by a signal), or does it sleep?  EEVDF's delayed dequeue
 * (6.12) leaves a thread that goes to sleep with its lag unspent on its
 * run queue, on_rq set, until that lag is spent or it is woken
 * (se.sched_delayed); task_is_runnable() tells the two apart.  Kbuild
 * defines LWPROF_HAVE_TASK_IS_RUNNABLE where <linux/sched.h> has it.
 */
static __always_inline bool lwprof_task_runnable(struct task_struct *p)
{
#ifdef LWPROF_HAVE_TASK_IS_RUNNABLE
	return READ_ONCE(p->on_rq) && !READ_ONCE(p->se.sched_delayed);
#else
	return READ_ONCE(p->on_rq);
#endif
}

/*
 * PREEMPT_RT runs softirqs in threads (ksoftirqd, ktimers, or the thread
 * that enables bottom halves again), preemptible and able to sleep: that
 * time is the running thread's own SYSTEM time, not TRAP of a thread
 * they interrupted, and a hard interrupt inside one is outermost.
 */
#define LWPROF_SOFTIRQ_TRAP	(!IS_ENABLED(CONFIG_PREEMPT_RT))

/*
 * PREEMPT_RT: no memory allocation with preemption or interrupts off (the
 * slab allocator's locks sleep there), which is how every probe runs: the
 * fork probe takes its entries from a reserve (thread.c), the optional
 * buffers (off-CPU frames, stack-delta bases) are done without.
 */
#define LWPROF_ALLOC_ATOMIC	(!IS_ENABLED(CONFIG_PREEMPT_RT))

/*
 * Threads that copy_process() makes outside kernel_clone(), so without
 * the sched_process_fork tracepoint: io_uring's workers
 * (create_io_thread()) and, where the kernel has them, user workers
 * (vhost_task_create()).  lwprof takes them at task_newtask.
 */
#ifdef PF_USER_WORKER
#define LWPROF_PF_UNTRACED_FORK	(PF_IO_WORKER | PF_USER_WORKER)
#else
#define LWPROF_PF_UNTRACED_FORK	PF_IO_WORKER
#endif

/* compat.c: LWPROF_GAP_* of this kernel (lwprof version lists them). */
u64 lwprof_kernel_gaps(void);

#endif /* LWPROF_COMPAT_H */
