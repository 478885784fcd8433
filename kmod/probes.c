// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the state machine to the kernel, only while a session needs
 * it.  lwprof_probes_get()/put() count the users; the caller holds
 * lwprof_sessions_mutex.
 *
 * System-call entries come from an ftrace hook on the system-call
 * table's dispatchers (mstate_sys.c), or, where the kernel has none or
 * the module parameter sys_tracepoint says so, from the sys_enter
 * tracepoint, which puts every thread of the machine on the slow
 * system-call path while it is registered.
 *
 * Order on the way in: per-CPU state reset, the clock's anchor, the
 * ftrace hook, tracepoints (sched_switch then arms each CPU's user-return
 * notifier while an accounted thread runs there).  The hook does nothing
 * before sched_switch has cached an accounted thread on some CPU.
 *
 * On the way out:
 *  1. the ftrace hook: unregister_ftrace_function() returns only when no
 *     CPU is in its trampoline or callback (our ops is a module's, hence
 *     FTRACE_OPS_FL_DYNAMIC: ftrace waits for an RCU-tasks grace period,
 *     the kernel being preemptible, and frees the trampoline);
 *  2. tracepoints, then tracepoint_synchronize_unregister(): no probe is
 *     still running when sessions free their threads or the module goes;
 *  3. the user-return notifiers still armed (no probe can arm one again).
 * At unload, lwprof_probes_exit() also frees the hook's filter.
 *
 * Registering a tracepoint flips its static key, which patches kernel text
 * on every CPU (so does the hook).  So that back-to-back sessions (ptime
 * in a loop) do not patch and unpatch each time, the probes stay for
 * linger_ms after the last session ends; with no session and nothing
 * lingering, no probe is registered and lwprof costs nothing.  The state
 * machine uses only tracepoints, the ftrace hook and the user-return
 * notifier: no kprobes (fault ends come from the fault counters, see
 * mstate_events.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "internal.h"

static unsigned int linger_ms = 1000;
module_param(linger_ms, uint, 0644);
MODULE_PARM_DESC(linger_ms, "keep probes this long after the last session (ms)");

static unsigned int lwprof_probe_users;
static bool lwprof_probes_on;
static bool lwprof_sys_hooked;	/* the ftrace hook stands for sys_enter */
static DEFINE_MUTEX(lwprof_probes_mutex);

static void lwprof_probes_linger_end(struct work_struct *work);
static DECLARE_DELAYED_WORK(lwprof_probes_linger, lwprof_probes_linger_end);

static void lwprof_tp_lookup(struct tracepoint *tp, void *priv)
{
	struct lwprof_tp *p;

	for (p = lwprof_mstate_tps; p->name; p++)
		if (!strcmp(p->name, tp->name))
			p->tp = tp;
}

/* At load: every tracepoint we need must exist, or we refuse to load. */
int lwprof_probes_init(void)
{
	struct lwprof_tp *p;

	for_each_kernel_tracepoint(lwprof_tp_lookup, NULL);
	for (p = lwprof_mstate_tps; p->name; p++) {
		if (!p->tp && !p->optional) {
			pr_err("tracepoint %s not found\n", p->name);
			return -ENOENT;
		}
	}
	lwprof_ms_sys_init();
	return 0;
}

static void lwprof_tps_unregister(void)
{
	struct lwprof_tp *p;

	for (p = lwprof_mstate_tps; p->name; p++) {
		if (!p->registered)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->probe, NULL));
		p->registered = false;
	}
	tracepoint_synchronize_unregister();
}

static int lwprof_tps_register(void)
{
	struct lwprof_tp *p;
	int ret;

	for (p = lwprof_mstate_tps; p->name; p++) {
		if (!p->tp || (p->syscall && lwprof_sys_hooked))
			continue;
		ret = tracepoint_probe_register(p->tp, p->probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", p->name, ret);
			lwprof_tps_unregister();
			return ret;
		}
		p->registered = true;
	}
	return 0;
}

static int lwprof_probes_on_locked(void)
{
	int ret;

	if (lwprof_probes_on)
		return 0;
	/* Per-CPU state may be stale from probes of an earlier round. */
	on_each_cpu(lwprof_ms_cpu_reset, NULL, 1);
	lwprof_clock_anchor();	/* no probe, no session: nobody reads it */
	lwprof_sys_hooked = lwprof_ms_sys_hook_on();
	ret = lwprof_tps_register();
	if (ret) {
		if (lwprof_sys_hooked)
			lwprof_ms_sys_hook_off();
		lwprof_ms_urn_disarm();
		return ret;
	}
	lwprof_probes_on = true;
	return 0;
}

static void lwprof_probes_off_locked(void)
{
	if (!lwprof_probes_on)
		return;
	if (lwprof_sys_hooked)
		lwprof_ms_sys_hook_off();	/* waits for running callbacks */
	lwprof_tps_unregister();
	lwprof_ms_urn_disarm();	/* no probe can arm one again */
	lwprof_probes_on = false;
}

static void lwprof_probes_linger_end(struct work_struct *work)
{
	mutex_lock(&lwprof_probes_mutex);
	if (!lwprof_probe_users)
		lwprof_probes_off_locked();
	mutex_unlock(&lwprof_probes_mutex);
}

int lwprof_probes_get(void)
{
	int ret;

	mutex_lock(&lwprof_probes_mutex);
	ret = lwprof_probes_on_locked();
	if (!ret)
		lwprof_probe_users++;
	mutex_unlock(&lwprof_probes_mutex);
	return ret;
}

void lwprof_probes_put(void)
{
	mutex_lock(&lwprof_probes_mutex);
	if (!WARN_ON_ONCE(!lwprof_probe_users) && !--lwprof_probe_users)
		mod_delayed_work(system_wq, &lwprof_probes_linger,
				 msecs_to_jiffies(linger_ms));
	mutex_unlock(&lwprof_probes_mutex);
}

/* Module unload: no session is left; drop lingering probes now. */
void lwprof_probes_exit(void)
{
	cancel_delayed_work_sync(&lwprof_probes_linger);
	mutex_lock(&lwprof_probes_mutex);
	lwprof_probes_off_locked();
	mutex_unlock(&lwprof_probes_mutex);
	lwprof_ms_sys_exit();
}
