// SPDX-License-Identifier: GPL-2.0
/*
 * What log.txt says of a perf-backend recording (docs/design/perf-backend.md):
 * the backend, its setting and, metric by metric, what it gives exactly,
 * approximately or not at all (print -header shows them; an absent one is
 * shown as absent, never 0).
 */
#include "userspace/backend/perf/perf.h"

/* Metric by metric: what this recording gives exactly, approximately, not. */
static int metric_notes(struct psrc *p, struct exp_writer *e)
{
	const char *split = p->kernel ?
		(p->sched_switch ?
		 "approximate: on-CPU time exact (sched:sched_switch), user vs system by the mode each clock sample landed in" :
		 "approximate: on-CPU time from switch records, short of the switches' own work (in Wait CPU), user vs system by the mode each clock sample landed in") :
		"approximate: on-CPU time from switch records, short of the switches' own work (in Wait CPU), system CPU included (no kernel samples at this perf_event_paranoid)";
	const char *lock = !p->futex ?
		"absent: no kernel stack at switch-out to tell a futex wait; in Sleep" :
		p->wake ?
		"approximate: blocked in a futex system call (kernel stack at switch-out), switch-out to wake-up (sched:sched_wakeup)" :
		"approximate: blocked in a futex system call (kernel stack at switch-out), switch-out to switch-in: the run-queue wait after the wake-up is in it";
	const char *sleep = p->wake ?
		(p->futex ? "approximate: blocked elsewhere (stopped too), switch-out to wake-up (sched:sched_wakeup)" :
		 "approximate: blocked (User Lock and stopped too), switch-out to wake-up (sched:sched_wakeup)") :
		p->futex ?
		"approximate: blocked elsewhere, switch-out to switch-in: the run-queue wait after the wake-up is in it" :
		"approximate: blocked (User Lock included), switch-out to switch-in: the run-queue wait after the wake-up is in it";
	const char *wait = p->wake ?
		"exact: preempted threads from their switch-out (switch records' preempt flag), woken ones from their wake-up (sched:sched_wakeup), to their switch-in" :
		"approximate: exact for preempted threads (switch records' preempt flag); a woken thread's wait is in Sleep or User Lock";
	const struct { const char *m, *how; } notes[] = {
		{ "user", split },
		{ "system", p->kernel ? split :
		  "absent: no kernel samples at this perf_event_paranoid; in User CPU" },
		{ "trap", "absent: interrupt time is in the CPU time it interrupted" },
		{ "tflt", "absent: page-fault time is in User or System CPU (Sleep for disk waits)" },
		{ "dflt", "absent: page-fault time is in User or System CPU (Sleep for disk waits)" },
		{ "kflt", "absent: page-fault time is in System CPU" },
		{ "lock", lock },
		{ "sleep", sleep },
		{ "stop", "absent: a stopped thread's time is in Sleep" },
		{ "wait", wait },
	};
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < sizeof(notes) / sizeof(notes[0]); i++)
		err = exp_note(e, EXP_K_METRIC, "%s %s", notes[i].m, notes[i].how);
	return err;
}

int perf_notes(struct psrc *p, struct exp_writer *e)
{
	int err;

	err = exp_note(e, EXP_K_BACKEND, "perf");
	if (!err)
		err = exp_note(e, EXP_K_ABI, "%u.%u", LWPROF_ABI_MAJOR,
			       LWPROF_ABI_MINOR);
	if (!err)
		err = exp_note(e, EXP_K_PERF_EVENT_PARANOID, "%d", p->paranoid);
	if (!err)
		err = exp_note(e, EXP_K_STACK_DELTA, "%d", !p->o->no_sdelta);
	if (!err)
		err = exp_note(e, EXP_K_RING_PAGES, "%u", p->ring_pages);
	if (!err)
		err = exp_note(e, EXP_K_OFFCPU_STACKS, "%s", p->switch_stacks ?
			       "switch-out (context-switch samples)" :
			       "none (no kernel sampling): off-CPU time lands on the thread's next sample");
	if (!err && p->o->clock_ns)
		err = exp_note(e, EXP_K_OFFCPU_WAKEUPS, "%s", p->wake ?
			       (p->sched_switch ?
				(p->wake_new ?
				 "sched:sched_wakeup, sched:sched_wakeup_new and sched:sched_switch on every CPU" :
				 "sched:sched_wakeup and sched:sched_switch on every CPU") :
				"sched:sched_wakeup on every CPU") : p->wake_why);
	if (!err)
		err = metric_notes(p, e);
	if (!err && p->depth < p->o->depth)	/* kernel.perf_event_max_stack */
		err = exp_note(e, EXP_K_PERF_MAX_STACK, "%u", p->depth);
	if (!err && !p->kernel)
		exp_warn(e, "kernel.perf_event_paranoid is %d: no kernel samples, so System CPU, User Lock and the stacks where off-CPU time began are absent (CAP_PERFMON or paranoid 1 gives them)",
			 p->paranoid);
	return err;
}
