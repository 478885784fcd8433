// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the state machine to the kernel: once, at load, and removed
 * at unload.  Sessions come and go by a flag, never by patching text.
 *
 * Every hook lwprof uses (the tracepoints, the ftrace hook on the
 * system-call dispatchers, the kprobe on perf_event_mmap) is switched on
 * by rewriting kernel text on every CPU: a static key or static call
 * through text_poke_bp(), which puts an int3 on the live site and waits
 * for every CPU in an IPI.  lwprof did that for each session until issue
 * 10, and the guests that hung under session churn showed a CPU that had
 * taken the int3 in __schedule, interrupts off, never answering the
 * patching CPU's IPI (docs/reliability.md).  So the patching is done once
 * per load, and a session costs no text change.
 *
 * With no session the probes are registered but dormant:
 *  - those that look a thread up in the table (sched_switch, sched_wakeup,
 *    fork, free, task_rename, the mmap kprobe) test lwprof_probes_live()
 *    first, one load of a read-mostly flag;
 *  - the others (system calls, faults, interrupts, signals, exec) work on
 *    the CPU's cached entry, which is NULL when no session exists (the
 *    sched_switch probe alone sets it, and sessions clear theirs when they
 *    end): they leave after that one load.
 * docs/benchmarks.md has what this costs a machine with no session.
 *
 * System-call entries come from the ftrace hook, or, where the kernel has
 * none or the module parameter sys_tracepoint says so at load, from the
 * sys_enter tracepoint, which puts every thread of the machine on the
 * slow system-call path for as long as the module is loaded.
 *
 * Order at load: tracepoints found, per-CPU state clear (static), then
 * the ftrace hook, the tracepoints and the kprobe; all dormant.
 * lwprof_probes_get() for the first session: per-CPU state reset, the
 * clock's anchor, then the flag (release).  lwprof_probes_put() for the
 * last: the flag off, a grace period (every probe runs with preemption or
 * interrupts off, and the hook reads the cached entry with interrupts
 * off), then the user-return notifiers still armed are disarmed.
 *
 * At unload:
 *  1. the ftrace hook: unregister_ftrace_function() returns only when no
 *     CPU is in its trampoline or callback (our ops is a module's, hence
 *     FTRACE_OPS_FL_DYNAMIC: ftrace waits for an RCU-tasks grace period,
 *     the kernel being preemptible, and frees the trampoline);
 *  2. the kprobe (unregister_kprobe() waits for its handlers);
 *  3. tracepoints, then tracepoint_synchronize_unregister(): no probe is
 *     still running when the module goes.
 * The state machine uses only tracepoints, the ftrace hook and the
 * user-return notifier: no kprobes (fault ends come from the fault
 * counters, see mstate_events.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <linux/tracepoint.h>

#include "internal.h"

static unsigned int lwprof_probe_users;	/* sessions; under the mutex */
static bool lwprof_sys_hooked;	/* the ftrace hook stands for sys_enter */
static DEFINE_MUTEX(lwprof_probes_mutex);

/* Read by the probes with lwprof_probes_live(); written under the mutex. */
bool lwprof_live __read_mostly;

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

/*
 * At load: every tracepoint we need must exist, or we refuse to load.
 * Then every hook is registered, dormant until the first session.
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
	lwprof_sys_hooked = lwprof_ms_sys_hook_on();
	ret = lwprof_mmap_hook_init();
	if (ret)
		goto err_sys;
	ret = lwprof_tps_register();
	if (ret)
		goto err_mmap;
	return 0;

err_mmap:
	lwprof_mmap_hook_exit();
err_sys:
	if (lwprof_sys_hooked)
		lwprof_ms_sys_hook_off();
	lwprof_ms_sys_exit();
	return ret;
}

/* A session needs the probes: the first one wakes them. */
void lwprof_probes_get(void)
{
	mutex_lock(&lwprof_probes_mutex);
	if (!lwprof_probe_users++) {
		lwprof_thread_reserve_fill();	/* PREEMPT_RT: thread.c */
		/* Per-CPU state may be stale from probes of an earlier round. */
		on_each_cpu(lwprof_ms_cpu_reset, NULL, 1);
		lwprof_clock_anchor();	/* no live probe: nobody reads it */
		/*
		 * Release: a probe that sees the flag (acquire, in
		 * lwprof_probes_live()) sees the reset and the anchor.
		 */
		smp_store_release(&lwprof_live, true);
	}
	mutex_unlock(&lwprof_probes_mutex);
}

/*
 * The last session has cleared its threads from the table and the CPUs'
 * caches: the probes go dormant.
 */
void lwprof_probes_put(void)
{
	mutex_lock(&lwprof_probes_mutex);
	if (!WARN_ON_ONCE(!lwprof_probe_users) && !--lwprof_probe_users) {
		WRITE_ONCE(lwprof_live, false);
		/* Probes that saw the flag set have returned. */
		synchronize_rcu();
		lwprof_ms_urn_disarm();	/* no probe can arm one again */
		lwprof_thread_reserve_drain();
	}
	mutex_unlock(&lwprof_probes_mutex);
}

/* Module unload (or a failed load past lwprof_probes_init()). */
void lwprof_probes_exit(void)
{
	WARN_ON_ONCE(lwprof_probe_users);
	if (lwprof_sys_hooked)
		lwprof_ms_sys_hook_off();	/* waits for running callbacks */
	lwprof_mmap_hook_exit();
	lwprof_tps_unregister();
	lwprof_ms_urn_disarm();
	lwprof_ms_sys_exit();
}
