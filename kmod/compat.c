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
 * reads it inline); we read it as any process can, from /proc.
 *
 * System calls enter through x64_sys_call(regs, nr), ia32_sys_call() for
 * 32-bit tasks and x32_sys_call() for x32 ones (since 6.9, and in stable
 * kernels from the 2024 branch-history-injection fixes, Debian's 6.1.0-2x
 * on).  Older kernels index the table directly: no function to hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <asm/ibt.h>

#include "internal.h"

static bool (*lwprof_ptrace_may_access)(struct task_struct *task,
					unsigned int mode);

int lwprof_compat_init(void)
{
	struct kprobe kp = {
		.symbol_name = "ptrace_may_access",
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_warn("cannot find ptrace_may_access (%d): only CAP_SYS_PTRACE may attach to other processes\n",
			ret);
		return 0;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* With IBT, kprobes sit after the ENDBR an indirect call needs. */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && is_endbr(*(u32 *)(addr - 4)))
		addr -= 4;
	lwprof_ptrace_may_access = (void *)addr;
	return 0;
}

/* May the caller account for task's process?  (perf's rule.) */
bool lwprof_may_trace(struct task_struct *task)
{
	bool ok;

	if (same_thread_group(task, current))
		return true;
	if (!lwprof_ptrace_may_access)
		return capable(CAP_SYS_PTRACE);
	/* exec_update_lock: no setuid exec may slip in during the check. */
	if (down_read_killable(&task->signal->exec_update_lock))
		return false;
	ok = lwprof_ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS);
	up_read(&task->signal->exec_update_lock);
	return ok;
}

/*
 * kernel.perf_event_paranoid as the caller sees it; the strictest level (3,
 * Debian's "no perf for users") if it cannot be read.
 */
int lwprof_perf_paranoid(void)
{
	char buf[16] = "";
	struct file *f;
	loff_t pos = 0;
	int val = 3;
	ssize_t n;

	f = filp_open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY, 0);
	if (IS_ERR(f))
		return val;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &val))
		return 3;
	return val;
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
