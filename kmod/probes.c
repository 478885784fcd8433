// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the state machine to the kernel, only while a session needs
 * it: with no session open, no probe is registered and lwprof costs
 * nothing.  lwprof_probes_get()/put() count the users; the caller holds
 * lwprof_sessions_mutex.
 *
 * Order on the way in: per-CPU state reset, kretprobe, user-return
 * notifiers, tracepoints.  On the way out the reverse, then
 * tracepoint_synchronize_unregister() so that no probe is still running
 * when sessions free their threads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "internal.h"

static unsigned int lwprof_probe_users;
static struct kretprobe lwprof_mm_fault_probe;

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
		if (!p->tp)
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

int lwprof_probes_get(void)
{
	int ret;

	if (lwprof_probe_users++)
		return 0;

	on_each_cpu(lwprof_ms_cpu_reset, NULL, 1);
	lwprof_ms_fault_probe_init(&lwprof_mm_fault_probe);
	ret = register_kretprobe(&lwprof_mm_fault_probe);
	if (ret) {
		pr_err("cannot probe handle_mm_fault: %d\n", ret);
		goto err_users;
	}
	ret = lwprof_ms_urn_register();
	if (ret)
		goto err_kretprobe;
	ret = lwprof_tps_register();
	if (ret)
		goto err_urn;
	return 0;

err_urn:
	lwprof_ms_urn_unregister();
err_kretprobe:
	unregister_kretprobe(&lwprof_mm_fault_probe);
err_users:
	lwprof_probe_users--;
	return ret;
}

void lwprof_probes_put(void)
{
	if (WARN_ON_ONCE(!lwprof_probe_users) || --lwprof_probe_users)
		return;
	lwprof_tps_unregister();
	lwprof_ms_urn_unregister();
	unregister_kretprobe(&lwprof_mm_fault_probe);
	if (lwprof_mm_fault_probe.nmissed)
		pr_info("%d page faults not classified (kretprobe instances exhausted)\n",
			lwprof_mm_fault_probe.nmissed);
	on_each_cpu(lwprof_ms_cpu_reset, NULL, 1);
}
