// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the state machine to the kernel: when the first session
 * starts, and away again when the last one ends.  With no session open,
 * nothing of lwprof's runs: no tracepoint probe, ftrace hook, kprobe or
 * user-return notifier is in the kernel and the clock-packet hooks are
 * out of the code (a static key), so a machine that has the module loaded
 * and profiles nothing pays nothing.  This is what perf, ftrace and BPF
 * do: attaching patches kernel text on every CPU (text_poke_bp(): an int3
 * on the live site, then an IPI to every CPU).  The module parameter
 * resident keeps everything attached from load to unload instead, the
 * probes then dormant between sessions (they test lwprof_live first, or
 * find the CPU's cached entry empty), for a machine that must not have
 * its text patched while it runs (docs/design/reliability.md: a
 * multi-threaded emulator can livelock on text patching).
 *
 * What attaches (lwprof_attach()):
 *  1. every CPU's cached state reset, CPU hotplug held off;
 *  2. the clock's anchor (no probe reads it yet);
 *  3. the return to user mode (mstate_ret.c: a direct ftrace call, or the
 *     user-return notifier that sched_switch will arm);
 *  4. the system-call entries (mstate_sys.c: a direct ftrace call, an
 *     ftrace callback, or the sys_enter tracepoint registered in 5);
 *  5. the tracepoints;
 *  6. the kprobe on perf_event_mmap (records.c).
 * Before it, the thread-entry reserve is filled (thread.c: where probes
 * cannot allocate, PREEMPT_RT, the fork probe takes its entries there).
 * Until lwprof_live is set, after all of it (release), the probes find no
 * thread: the table is empty until the session adds its threads, and
 * those that would look one up test the flag.  Should a step fail, the
 * ones before are undone and the session's attach fails.
 *
 * What detaches (lwprof_detach()), once the last session has taken its
 * threads out of the table and the CPUs' caches (session.c), in the
 * reverse order, each step waiting for the code it removes:
 *  1. the kprobe: unregister_kprobe() waits for running handlers;
 *  2. the tracepoints, then tracepoint_synchronize_unregister(): no probe
 *     is still running; nothing arms a notifier any more;
 *  3. the system-call hook and 4. the return hook: for ftrace ops of a
 *     module (FTRACE_OPS_FL_DYNAMIC) ftrace waits, after unpatching, for
 *     every CPU to have left the code it called and, the kernel being
 *     preemptible, for an RCU-tasks grace period (a thread preempted in a
 *     trampoline);
 *  5. every CPU's notifier disarmed and its state reset.
 * Resident, the probes stay and go dormant instead: a grace period for
 * those that saw the flag set, every CPU's state reset.  Either way the
 * reserve is drained last: no fork probe can take from it any more.
 * Then nothing of the module's can run any more: unloading needs nothing
 * else (main.c).  A session that starts while the last one ends waits
 * for the detaching to finish (the probes' mutex; session.c serializes
 * attaches and releases as well) and attaches again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "mstate.h"

static bool resident;
module_param(resident, bool, 0444);
MODULE_PARM_DESC(resident,
		 "attach the probes at load and keep them until unload, not only while a session is open");

static DEFINE_MUTEX(lwprof_probes_mutex);
static unsigned int lwprof_probe_users;	/* sessions; under the mutex */
static bool lwprof_attached;		/* under the mutex */
static bool lwprof_sys_tp;		/* sys_enter stands for the hook */

/* Read by the probes with lwprof_probes_live(); written under the mutex. */
bool lwprof_live __read_mostly;

/* On for resident probes, from load to unload (internal.h). */
DEFINE_STATIC_KEY_FALSE(lwprof_resident_key);

/* The clock-packet hooks (internal.h): on while a session takes them. */
DEFINE_STATIC_KEY_FALSE(lwprof_clock_key);

void lwprof_clock_hooks_get(void)
{
	static_branch_inc(&lwprof_clock_key);
}

void lwprof_clock_hooks_put(void)
{
	static_branch_dec(&lwprof_clock_key);
}

static void lwprof_tp_lookup(struct tracepoint *tp, void *priv)
{
	struct lwprof_tp *p;

	for (p = lwprof_mstate_tps; p->name; p++)
		if (!strcmp(p->name, tp->name))
			p->tp = tp;
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
		if (!p->tp || (p->syscall && !lwprof_sys_tp))
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

static void lwprof_detach(void)
{
	lwprof_mmap_hook_exit();
	lwprof_tps_unregister();
	lwprof_ms_sys_off();
	lwprof_ms_ret_off();
	lwprof_ms_cpus_reset();
	lwprof_attached = false;
}

static int lwprof_attach(void)
{
	int ret;

	lwprof_ms_cpus_reset();
	lwprof_clock_anchor();
	ret = lwprof_ms_ret_on();
	if (ret)
		return ret;
	ret = lwprof_ms_sys_on();
	if (ret < 0)
		goto err_ret;
	lwprof_sys_tp = ret;
	lwprof_ms_cpus_fast();
	ret = lwprof_tps_register();
	if (ret)
		goto err_sys;
	ret = lwprof_mmap_hook_init();
	if (ret)
		goto err_tps;
	lwprof_attached = true;
	return 0;

err_tps:
	lwprof_tps_unregister();
err_sys:
	lwprof_ms_sys_off();
err_ret:
	lwprof_ms_ret_off();
	lwprof_ms_cpus_reset();
	return ret;
}

/*
 * At load: every tracepoint we need must exist, or we refuse to load.
 * Resident, everything attaches now.
 */
int lwprof_probes_init(void)
{
	struct lwprof_tp *p;
	int ret;

	for_each_kernel_tracepoint(lwprof_tp_lookup, NULL);
	for (p = lwprof_mstate_tps; p->name; p++) {
		if (!p->tp && !p->optional) {
			pr_err("tracepoint %s not found\n", p->name);
			return -ENOENT;
		}
	}
	lwprof_ms_sys_init();
	lwprof_ms_ret_init();
	if (!resident)
		return 0;
	static_branch_enable(&lwprof_resident_key);
	mutex_lock(&lwprof_probes_mutex);
	ret = lwprof_attach();
	if (!ret)
		lwprof_clock_hooks_get();	/* no key flips per session */
	mutex_unlock(&lwprof_probes_mutex);
	if (ret) {
		static_branch_disable(&lwprof_resident_key);
		lwprof_ms_ret_exit();
		lwprof_ms_sys_exit();
	}
	return ret;
}

/* A session needs the probes: the first one attaches them. */
int lwprof_probes_get(void)
{
	int ret = 0;

	mutex_lock(&lwprof_probes_mutex);
	if (!lwprof_probe_users) {
		lwprof_thread_reserve_fill();	/* PREEMPT_RT: thread.c */
		if (!lwprof_attached)
			ret = lwprof_attach();
		else	/* resident: per-CPU state may be stale, see below */
			lwprof_ms_cpus_reset();
		if (ret)
			lwprof_thread_reserve_drain();	/* no probe ran */
		if (!ret) {
			/*
			 * Release: a probe that sees the flag (acquire, in
			 * lwprof_probes_live()) sees the reset and the anchor.
			 */
			smp_store_release(&lwprof_live, true);
		}
	}
	if (!ret)
		lwprof_probe_users++;
	mutex_unlock(&lwprof_probes_mutex);
	return ret;
}

/*
 * The last session has cleared its threads from the table and the CPUs'
 * caches: the probes detach (resident: go dormant).
 */
void lwprof_probes_put(void)
{
	mutex_lock(&lwprof_probes_mutex);
	if (!WARN_ON_ONCE(!lwprof_probe_users) && !--lwprof_probe_users) {
		WRITE_ONCE(lwprof_live, false);
		if (resident) {
			/* Probes that saw the flag set have returned. */
			synchronize_rcu();
			lwprof_ms_cpus_reset();
		} else {
			lwprof_detach();
		}
		/* No probe can take an entry any more (thread.c). */
		lwprof_thread_reserve_drain();
	}
	mutex_unlock(&lwprof_probes_mutex);
}

/* Module unload (or a failed load past lwprof_probes_init()). */
void lwprof_probes_exit(void)
{
	WARN_ON_ONCE(lwprof_probe_users);
	mutex_lock(&lwprof_probes_mutex);
	if (lwprof_attached) {
		lwprof_detach();
		lwprof_clock_hooks_put();	/* resident's reference */
	}
	mutex_unlock(&lwprof_probes_mutex);
	static_branch_disable(&lwprof_resident_key);
	lwprof_ms_ret_exit();
	lwprof_ms_sys_exit();
}
