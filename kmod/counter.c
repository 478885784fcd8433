// SPDX-License-Identifier: GPL-2.0
/*
 * Counter-overflow profiling: in-kernel perf events, one per counter and
 * per thread of the session (inherited by the threads and processes they
 * create, as `perf record` does), or per CPU for a machine session.  Each
 * overflow writes a packet: the counter's index, the events counted since
 * the previous overflow (the period), the stacks.
 *
 * The handler runs where the event overflowed: in the timer interrupt
 * (cpu-clock, task-clock), in the page-fault or scheduler path (the other
 * software events), in an NMI (hardware counters).  It only writes into
 * the current CPU's ring, which is safe in all of them (ring.c).
 *
 * perf_event_create_kernel_counter() applies none of perf_event_open()'s
 * rules; we do (guard.c): at perf_event_paranoid 3 only CAP_SYS_ADMIN gets
 * counters, as perf_event_open() refuses everyone else; the LSM hook is
 * asked for the open, the kernel and the CPUs as perf_event_open() asks
 * it; and a caller who may not profile the kernel (perf_allow_kernel():
 * CAP_PERFMON, or paranoid <= 1) counts user-mode events only.
 */
#include <linux/slab.h>

#include "sample.h"

static bool lwprof_sw_event_ok(u64 config)
{
	switch (config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
	case PERF_COUNT_SW_CPU_MIGRATIONS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
	case PERF_COUNT_SW_ALIGNMENT_FAULTS:
	case PERF_COUNT_SW_EMULATION_FAULTS:
		return true;
	default:
		return false;
	}
}

int lwprof_counters_check(const struct lwprof_sample_start *req)
{
	const struct lwprof_counter *c;
	unsigned int i;

	if (req->nr_counters > LWPROF_MAX_COUNTERS)
		return -EINVAL;
	for (i = 0; i < LWPROF_MAX_COUNTERS; i++) {
		c = &req->counters[i];
		if (i >= req->nr_counters) {
			if (memchr_inv(c, 0, sizeof(*c)))
				return -EINVAL;
			continue;
		}
		if (c->flags || c->reserved || !c->period ||
		    c->period > (u64)S64_MAX)
			return -EINVAL;
		switch (c->type) {
		case PERF_TYPE_SOFTWARE:
			if (!lwprof_sw_event_ok(c->config))
				return -EINVAL;
			break;
		case PERF_TYPE_HARDWARE:
		case PERF_TYPE_HW_CACHE:
		case PERF_TYPE_RAW:
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

static void lwprof_counter_overflow(struct perf_event *event,
				    struct perf_sample_data *data,
				    struct pt_regs *regs)
{
	struct lwprof_smp_counter *c = event->overflow_handler_context;
	struct lwprof_smp *smp = c->smp;
	struct lwprof_pkt pkt = {
		.kind = LWPROF_SK_COUNTER,
		.counter = c->index,
	};
	struct lwprof_thread *t;

	if (!lwprof_smp_active(smp))
		return;
	rcu_read_lock();
	t = lwprof_thread_find(current);
	if (t && t->session == smp->session && !t->exited &&
	    !READ_ONCE(t->pre_exec) && lwprof_guard(t)) {
		pkt.value = data->period;
		pkt.time_ns = lwprof_now();
		pkt.pid = t->pid;
		pkt.tid = t->tid;
		pkt.uregs = lwprof_user_regs(regs);
		pkt.thr = t;
		if (!user_mode(regs)) {
			pkt.flags = LWPROF_RS_KMODE;
			pkt.kregs = regs;
		}
		lwprof_pkt_emit(smp, &pkt);
	}
	rcu_read_unlock();
}

static int lwprof_counter_add(struct lwprof_smp *smp,
			      struct lwprof_smp_counter *c, int cpu,
			      struct task_struct *task)
{
	struct perf_event *e;

	e = perf_event_create_kernel_counter(&c->attr, cpu, task,
					     lwprof_counter_overflow, c);
	if (IS_ERR(e)) {
		/* A thread that exited meanwhile has nothing to count. */
		if (task && PTR_ERR(e) == -ESRCH)
			return 0;
		return PTR_ERR(e);
	}
	smp->events[smp->nr_events++] = e;
	return 0;
}

int lwprof_counters_start(struct lwprof_smp *smp,
			  const struct lwprof_sample_start *req, bool kernel_ok)
{
	struct lwprof_task_ref *refs = NULL;
	unsigned int i, max;
	int n = 0, j, cpu, ret = 0;

	smp->nr_counters = req->nr_counters;
	if (!smp->nr_counters)
		return 0;
	for (i = 0; i < smp->nr_counters; i++) {
		struct lwprof_smp_counter *c = &smp->counters[i];

		memset(c, 0, sizeof(*c));
		c->smp = smp;
		c->index = i;
		c->attr.size = sizeof(c->attr);
		c->attr.type = req->counters[i].type;
		c->attr.config = req->counters[i].config;
		c->attr.sample_period = req->counters[i].period;
		c->attr.exclude_kernel = !kernel_ok;
		c->attr.exclude_hv = 1;
		c->attr.inherit = !smp->session->machine;
		ret = lwprof_guard_counter(&c->attr, smp->session->machine);
		if (ret)
			return ret;
	}
	if (smp->session->machine) {
		max = nr_cpu_ids;
	} else {
		n = lwprof_smp_tasks(smp->session, &refs);
		if (n < 0)
			return n;
		max = n;
	}
	smp->events = kvcalloc(max * smp->nr_counters, sizeof(*smp->events),
			       GFP_KERNEL_ACCOUNT);
	if (!smp->events) {
		ret = -ENOMEM;
		goto out;
	}
	if (smp->session->machine) {
		cpus_read_lock();
		for_each_online_cpu(cpu)
			for (i = 0; i < smp->nr_counters && !ret; i++)
				ret = lwprof_counter_add(smp, &smp->counters[i],
							 cpu, NULL);
		cpus_read_unlock();
	} else {
		for (j = 0; j < n; j++)
			for (i = 0; i < smp->nr_counters && !ret; i++)
				ret = lwprof_counter_add(smp, &smp->counters[i],
							 -1, refs[j].task);
	}
out:
	if (refs)
		lwprof_smp_tasks_put(refs, n);
	return ret;
}

/* Release the events (and the copies their threads' children inherited). */
void lwprof_counters_stop(struct lwprof_smp *smp)
{
	unsigned int i;

	for (i = 0; i < smp->nr_events; i++)
		perf_event_release_kernel(smp->events[i]);
	smp->nr_events = 0;
	kvfree(smp->events);
	smp->events = NULL;
}
