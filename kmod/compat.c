// SPDX-License-Identifier: GPL-2.0
/*
 * What lwprof needs from the kernel but the kernel does not export.
 *
 * ptrace_may_access() is the check perf uses for "may this caller watch
 * that process" (credentials, dumpability, LSMs such as Yama).  It is not
 * exported to modules, so its address is found once at load through a
 * kprobe on it (registered and removed at once).  If that fails, only
 * CAP_SYS_PTRACE callers may attach to processes other than their own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <asm/ibt.h>

#include "internal.h"

static bool (*lwprof_ptrace_may_access)(struct task_struct *task,
					unsigned int mode);

int lwprof_compat_init(void)
{
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };
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
