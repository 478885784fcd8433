// SPDX-License-Identifier: GPL-2.0
/*
 * What lwprof needs from the kernel but the kernel does not export.
 *
 * ptrace_may_access() is the check perf uses for "may this caller watch
 * that process" (credentials, dumpability, LSMs such as Yama).  It is not
 * exported to modules, so its address is found once at load through a
 * kprobe on it, registered disabled (never armed: no code is patched) and
 * removed at once.  If that fails, only
 * CAP_SYS_PTRACE callers may attach to processes other than their own.
 *
 * sysctl_perf_event_paranoid is not exported either (perf_allow_kernel()
 * reads it inline).  Its address comes from kallsyms_lookup_name(), found
 * the same way, and we read the variable itself as perf does.  Never a
 * path such as /proc/sys/kernel/perf_event_paranoid: the caller may have
 * bound a file of its own over it in a private mount namespace (unshare
 * -rm is open to every user).  Without the address the value is taken as
 * the strictest one.
 *
 * System calls enter through x64_sys_call(regs, nr), ia32_sys_call() for
 * 32-bit tasks and x32_sys_call() for x32 ones (since 6.9, and in stable
 * kernels from the 2024 branch-history-injection fixes, Debian's 6.1.0-2x
 * on).  Older kernels index the table directly: no function to hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ftrace.h>
#include <linux/interrupt.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <asm/ibt.h>

#include "internal.h"

static bool (*lwprof_ptrace_may_access)(struct task_struct *task,
					unsigned int mode);
static const int *lwprof_paranoid_var;
static const struct softirq_action *lwprof_softirq_vec;
static struct static_key *lwprof_irqthreads_key;

/*
 * The address of an unexported function, from a kprobe registered
 * disabled (never armed: no code is patched) and removed at once; 0 if
 * there is none.  An address to be called indirectly must keep its ENDBR.
 */
static unsigned long lwprof_fn_addr(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_warn("cannot find %s (%d)\n", name, ret);
		return 0;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* With IBT, kprobes sit after the ENDBR an indirect call needs. */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && is_endbr(*(u32 *)(addr - 4)))
		addr -= 4;
	return addr;
}

int lwprof_compat_init(void)
{
	unsigned long (*lookup)(const char *name);

	lwprof_ptrace_may_access = (void *)lwprof_fn_addr("ptrace_may_access");
	if (!lwprof_ptrace_may_access)
		pr_warn("only CAP_SYS_PTRACE may attach to other processes\n");
	lookup = (void *)lwprof_fn_addr("kallsyms_lookup_name");
	if (lookup)
		lwprof_paranoid_var =
			(const int *)lookup("sysctl_perf_event_paranoid");
	if (!lwprof_paranoid_var)
		pr_warn("cannot read perf_event_paranoid: kernel stacks need CAP_PERFMON\n");
	if (lookup) {
		lwprof_softirq_vec = (const void *)lookup("softirq_vec");
		/* The threadirqs boot option (not exported). */
		lwprof_irqthreads_key = (void *)lookup("force_irqthreads_key");
	}
	return lwprof_compat_sec_init(lookup);
}

/*
 * Where this kernel keeps lwprof from doing all it does elsewhere, as
 * LWPROF_GAP_* bits: lwprof version lists them, so that a difference is
 * said, never a silent wrong number (docs/design/mstate.md,
 * docs/guide/install.md).
 */
u64 lwprof_kernel_gaps(void)
{
	u64 gaps = 0;

	if (!lwprof_ptrace_may_access)
		gaps |= LWPROF_GAP_PTRACE;
	if (!lwprof_paranoid_var)
		gaps |= LWPROF_GAP_PARANOID;
	if (!lwprof_softirq_vec)
		gaps |= LWPROF_GAP_SOFTIRQ_NAMES;
	if (!LWPROF_SOFTIRQ_TRAP)
		gaps |= LWPROF_GAP_SOFTIRQ_THREADS;
	if (IS_ENABLED(CONFIG_PREEMPT_RT) ||
	    (lwprof_irqthreads_key && static_key_enabled(lwprof_irqthreads_key)))
		gaps |= LWPROF_GAP_IRQ_THREADS;
	if (!LWPROF_ALLOC_ATOMIC)
		gaps |= LWPROF_GAP_ATOMIC_ALLOC;
	return gaps | lwprof_compat_sec_gaps();
}

/* The action of softirq nr (its handler, for interrupt packets), or 0. */
unsigned long lwprof_softirq_fn(unsigned int nr)
{
	if (!lwprof_softirq_vec || nr >= NR_SOFTIRQS)
		return 0;
	return (unsigned long)READ_ONCE(lwprof_softirq_vec[nr].action);
}

/*
 * May the caller account for task's process?  (perf's rule.)  The caller
 * holds task's exec_update_lock: no setuid exec slips in during the
 * check, nor before the session has the threads (session.c).
 */
bool lwprof_may_trace(struct task_struct *task)
{
	if (same_thread_group(task, current))
		return true;
	if (!lwprof_ptrace_may_access)
		return capable(CAP_SYS_PTRACE);
	return lwprof_ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS);
}

/*
 * kernel.perf_event_paranoid, the kernel's own variable (see above); the
 * strictest level (3, Debian's "no perf for users") when it was not found.
 */
int lwprof_perf_paranoid(void)
{
	return lwprof_paranoid_var ? READ_ONCE(*lwprof_paranoid_var) : 3;
}

/*
 * Filter ops to the system-call dispatchers, all of those the kernel
 * needs: a 32-bit task's calls must not go unseen.  Returns -ENOENT (or
 * another negative errno) when the kernel has no such function, ftrace
 * cannot hook it, or ftrace_regs do not carry arguments without
 * FTRACE_OPS_FL_SAVE_REGS: then the sys_enter tracepoint is used.
 */
int lwprof_compat_sys_filter(struct ftrace_ops *ops)
{
	static const char * const fns[] = {
		"x64_sys_call",
#ifdef CONFIG_IA32_EMULATION
		"ia32_sys_call",
#endif
#ifdef CONFIG_X86_X32_ABI
		"x32_sys_call",
#endif
	};
	char buf[16];
	unsigned int i;
	int ret;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		/* ftrace_set_filter() may write into its buffer. */
		strscpy(buf, fns[i], sizeof(buf));
		ret = ftrace_set_filter(ops, buf, strlen(buf), !i);
		if (ret) {
			ftrace_free_filter(ops);
			return ret == -EINVAL ? -ENOENT : ret;
		}
	}
	return 0;
}

/*
 * Security: what perf_event_open() applies that a module's in-kernel
 * counters and buffers would otherwise escape (guard.c, charge.c).
 *
 * kernel.perf_event_mlock_kb (sysctl_perf_event_mlock, not exported) is
 * read from the kernel's variable, as the paranoid level is; without it,
 * perf's default of 512 KiB and a page.
 *
 * security_perf_event_open(), the LSM hook perf_event_open() asks, is not
 * exported: its address comes from a disabled kprobe like
 * ptrace_may_access()'s.  Its prototype lost the attr argument after 6.1;
 * the kernel's own declaration says which one this kernel has.  Without
 * the address only CAP_PERFMON callers get counters.
 */
#include <linux/perf_event.h>
#include <linux/security.h>

static const int *lwprof_mlock_var;
static unsigned long lwprof_lsm_perf_open;

int lwprof_compat_sec_init(unsigned long (*lookup)(const char *name))
{
	if (lookup)
		lwprof_mlock_var = (const int *)lookup("sysctl_perf_event_mlock");
	if (!lwprof_mlock_var)
		pr_warn("cannot read perf_event_mlock_kb: taking 516 KiB\n");
	if (!IS_ENABLED(CONFIG_SECURITY))
		return 0;
	lwprof_lsm_perf_open = lwprof_fn_addr("security_perf_event_open");
	if (!lwprof_lsm_perf_open)
		pr_warn("cannot find security_perf_event_open: counters need CAP_PERFMON\n");
	return 0;
}

/* The security block's LWPROF_GAP_* bits. */
u64 lwprof_compat_sec_gaps(void)
{
	u64 gaps = 0;

	if (!lwprof_mlock_var)
		gaps |= LWPROF_GAP_MLOCK;
	if (IS_ENABLED(CONFIG_SECURITY) && !lwprof_lsm_perf_open)
		gaps |= LWPROF_GAP_PERF_LSM;
	return gaps;
}

int lwprof_perf_mlock_kb(void)
{
	return lwprof_mlock_var ? READ_ONCE(*lwprof_mlock_var) :
				  512 + (PAGE_SIZE >> 10);
}

typedef int lwprof_lsm_attr_fn(struct perf_event_attr *attr, int type);
typedef int lwprof_lsm_type_fn(int type);

/* The LSM's word on a perf event of type PERF_SECURITY_*: 0 or -errno. */
int lwprof_perf_lsm(struct perf_event_attr *attr, int type)
{
	if (!IS_ENABLED(CONFIG_SECURITY))
		return 0;
	if (!lwprof_lsm_perf_open)
		return perfmon_capable() ? 0 : -EACCES;
	if (__builtin_types_compatible_p(typeof(security_perf_event_open),
					 lwprof_lsm_attr_fn))
		return ((lwprof_lsm_attr_fn *)lwprof_lsm_perf_open)(attr, type);
	return ((lwprof_lsm_type_fn *)lwprof_lsm_perf_open)(type);
}
