// SPDX-License-Identifier: GPL-2.0
/*
 * Counter-overflow profiling: in-kernel perf events, one per counter and
 * per thread of the session (inherited by the threads and processes they
 * create, as `perf record` does), or per CPU for a machine session.  Each
 * overflow writes a packet: the counter's index, the events counted since
 * the previous overflow, the stacks.
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

/*
 * The events counted since the previous overflow of the event.  A counter
 * of events overflows at its period (a hardware counter, page faults).  A
 * clock (cpu-clock, task-clock) overflows from a timer, which fires late
 * when its CPU was held up (interrupts off, a vCPU its host did not run)
 * and then starts its next period from the late fire: its time since the
 * previous overflow is not the period, and periods would add up to less
 * than a run's CPU time.  So a clock's value is its count,
 * which the timer read just before calling the handler, less the count at
 * its previous overflow.  That is kept per thread for a thread's event
 * (only the thread's own events write it, on its CPU, from their timers),
 * per CPU for a CPU's (a machine session); both start at zero with the
 * events (lwprof_counters_start()).
 */
static u64 lwprof_counter_value(struct perf_event *event,
				struct perf_sample_data *data,
				struct lwprof_smp_counter *c,
				struct lwprof_thread *t)
{
	u64 now, *last;

	if (!c->clock)
		return data->period;
	if (c->smp->session->machine)
		last = &this_cpu_ptr(c->smp->timers)->ctr_last[c->index];
	else if (t)
		last = &t->ctr_last[c->index];
	else
		return data->period;
	now = local64_read(&event->count);
	swap(now, *last);
	return *last - now;
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
	u64 value;

	rcu_read_lock();
	t = lwprof_thread_find(current);
	if (t && t->session != smp->session)
		t = NULL;
	/*
	 * Counted whether or not a packet is written: a machine's CPU runs
	 * other threads, and a paused run's next packet is not its pause.
	 */
	value = lwprof_counter_value(event, data, c, t);
	if (lwprof_smp_active(smp) && t && !t->exited &&
	    !READ_ONCE(t->pre_exec) && lwprof_guard(t)) {
		pkt.value = value;
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

/*
 * The session's threads' clock counts start at zero with the events: those
 * of a start that failed are released (their timers cancelled), those
 * about to be made count from zero, and threads made later get entries of
 * zeros.
 */
static void lwprof_counters_zero(struct lwprof_session *s)
{
	struct lwprof_thread *t;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(t, &s->threads, snode)
		memset(t->ctr_last, 0, sizeof(t->ctr_last));
	raw_spin_unlock_irqrestore(&s->lock, flags);
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
		c->clock = c->attr.type == PERF_TYPE_SOFTWARE &&
			   (c->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			    c->attr.config == PERF_COUNT_SW_TASK_CLOCK);
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
		lwprof_counters_zero(smp->session);
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
