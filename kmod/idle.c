// SPDX-License-Identifier: GPL-2.0
/*
 * Idle packets (LWPROF_SS_IDLE, machine sessions): every CPU's idle time,
 * er_kernel's <IDLE>, so that a run's packets add up to CPUs x elapsed.
 *
 * Each CPU's idle task is a pseudo-thread of the session (pid and tid 0,
 * not in the table of threads, not in READ_USAGE): an entry of its own
 * per CPU, made at SAMPLE_START, that the sched_switch probe makes the
 * CPU's current entry while the idle task runs.  So the interrupt probes
 * charge the interrupts it takes to TRAP, as for any thread, and the rest
 * of its running time is SYSTEM.  Unlike a thread it accumulates only
 * while it runs: its time off CPU is other threads' time.
 *
 * Its packets come when it leaves the CPU, if a grid point passed since
 * its last one, and from SAMPLE_STOP, which sends each CPU's remainder.
 * The clock's timer is never armed for it: an idle CPU is not woken to be
 * told that it is idle.
 *
 * CPU hotplug: a CPU offline at SAMPLE_START gets no IPI: it takes its
 * entry at its first switch to the idle task once online
 * (lwprof_idle_adopt()), its idle time counting from then.
 */
#include <linux/slab.h>

#include "mstate.h"
#include "sample.h"

int lwprof_idle_alloc(struct lwprof_smp *smp)
{
	struct lwprof_thread *t;
	int cpu;

	smp->idle_thr = kcalloc(nr_cpu_ids, sizeof(*smp->idle_thr),
				GFP_KERNEL);
	if (!smp->idle_thr)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		t = lwprof_thread_alloc(GFP_KERNEL);
		if (!t)
			return -ENOMEM;	/* lwprof_idle_free() undoes it */
		seqcount_init(&t->seq);
		INIT_HLIST_NODE(&t->hnode);
		INIT_LIST_HEAD(&t->snode);
		t->session = smp->session;
		t->idle = 1;
		t->state = LWPROF_MS_SYSTEM;
		strscpy(t->comm, "<IDLE>", sizeof(t->comm));
		smp->idle_thr[cpu] = t;
	}
	return 0;
}

/* After lwprof_idle_stop(), or if the start failed before it. */
void lwprof_idle_free(struct lwprof_smp *smp)
{
	int cpu;

	if (!smp->idle_thr)
		return;
	for_each_possible_cpu(cpu)
		if (smp->idle_thr[cpu])
			lwprof_thread_free(smp->idle_thr[cpu]);
	kfree(smp->idle_thr);
	smp->idle_thr = NULL;
}

/* Is t, the idle entry of this CPU, running (not in an interrupt of it)? */
static bool lwprof_idle_running(struct lwprof_cpu *c, struct lwprof_thread *t)
{
	return c->cur == t && t->task == current;
}

/* IPI: idle accounting of this CPU begins now. */
static void lwprof_idle_start_cpu(void *arg)
{
	struct lwprof_smp *smp = arg;
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_thread *t = smp->idle_thr[smp_processor_id()];
	u64 now = lwprof_now();

	write_seqcount_begin(&t->seq);
	t->start_ns = now;
	t->last_ns = now;
	write_seqcount_end(&t->seq);
	if (is_idle_task(current) && !c->cur) {
		/* Interrupted the idle task: it runs from now. */
		t->task = current;
		c->cur = t;
	}
	c->idle = t;
}

/* SAMPLE_START, clock running: every CPU's idle task is accounted. */
void lwprof_idle_start(struct lwprof_smp *smp)
{
	if (!smp->idle)
		return;
	cpus_read_lock();
	on_each_cpu(lwprof_idle_start_cpu, smp, 1);
	/*
	 * CPUs offline now adopt their entry when they come up: hotplug is
	 * held off until the unlock, which orders this store before it.
	 */
	WRITE_ONCE(smp->idle_live, true);
	cpus_read_unlock();
}

/*
 * sched_switch (rq lock, interrupts off), this CPU switching to its idle
 * task without an idle entry: if the machine session counts idle time,
 * this CPU was offline at its start and takes its entry now.  Reached
 * only through lwprof_machine, under the probe's RCU read side, so the
 * session and its entries outlive the call.
 */
struct lwprof_thread *lwprof_idle_adopt(struct lwprof_cpu *c, u64 now)
{
	struct lwprof_session *s = rcu_dereference_sched(lwprof_machine);
	struct lwprof_smp *smp;
	struct lwprof_thread *t;

	if (!s)
		return NULL;
	/* Acquire: pairs with the store-release in lwprof_smp_ring_setup(). */
	smp = smp_load_acquire(&s->smp);
	/*
	 * idle_live is cleared before lwprof_idle_stop()'s IPIs: one that
	 * comes after this (interrupts are off here) finds c->idle set, and
	 * a switch after it sees idle_live false.
	 */
	if (!smp || !READ_ONCE(smp->idle_live))
		return NULL;
	t = smp->idle_thr[smp_processor_id()];
	write_seqcount_begin(&t->seq);
	if (!t->start_ns)
		t->start_ns = now;
	t->last_ns = max(t->last_ns, now);
	write_seqcount_end(&t->seq);
	c->idle = t;
	return t;
}

/* IPI: the last idle packet of this CPU, then no more. */
static void lwprof_idle_stop_cpu(void *arg)
{
	struct lwprof_pkt pkt = { .flags = LWPROF_RS_IDLE };
	struct lwprof_cpu *c = this_cpu_ptr(&lwprof_cpu);
	struct lwprof_smp *smp = arg;
	struct lwprof_thread *t = c->idle;
	u64 now = lwprof_now();

	if (!t)
		return;
	if (!lwprof_idle_running(c, t)) {
		/* Off CPU since its last change: nothing more to charge. */
		write_seqcount_begin(&t->seq);
		t->last_ns = max(t->last_ns, now);
		write_seqcount_end(&t->seq);
	}
	lwprof_clock_packet(smp, t, &pkt, now, now);
	c->idle = NULL;
}

/*
 * SAMPLE_STOP, before the clock stops: each CPU's remainder.  A CPU
 * offline now (the idle time it had before it went is not sent) must not
 * keep a pointer to an entry freed at the session's end: with hotplug
 * held off, no CPU is coming up to use it meanwhile.
 */
void lwprof_idle_stop(struct lwprof_smp *smp)
{
	int cpu;

	if (!smp->idle || !smp->idle_thr || smp->state != LWPROF_SMP_RUNNING)
		return;
	cpus_read_lock();
	/* Before the IPIs: see lwprof_idle_adopt(). */
	WRITE_ONCE(smp->idle_live, false);
	on_each_cpu(lwprof_idle_stop_cpu, smp, 1);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&lwprof_cpu, cpu)->idle, NULL);
	cpus_read_unlock();
}

/*
 * sched_switch (rq lock, interrupts off): the idle task next is switched
 * in at now.  Its time off CPU was not its own: it counts from now.
 */
struct lwprof_thread *lwprof_idle_in(struct lwprof_cpu *c,
				     struct task_struct *next, u64 now)
{
	struct lwprof_thread *t = c->idle;

	write_seqcount_begin(&t->seq);
	t->task = next;
	t->state = LWPROF_MS_SYSTEM;
	t->last_ns = max(t->last_ns, now);
	write_seqcount_end(&t->seq);
	return t;
}

/*
 * sched_switch: the idle task leaves the CPU at now.  Its time so far is
 * charged, and sent if a grid point passed since its last packet.
 */
void lwprof_idle_out(struct lwprof_thread *t, u64 now)
{
	struct lwprof_pkt pkt = { .flags = LWPROF_RS_IDLE };
	struct lwprof_smp *smp = lwprof_smp_of(t);

	if (smp && READ_ONCE(smp->clock_on) && lwprof_clock_due(smp, t, now)) {
		lwprof_clock_packet(smp, t, &pkt, now, now);
		return;
	}
	write_seqcount_begin(&t->seq);
	lwprof_ms_set(t, t->state, now);
	write_seqcount_end(&t->seq);
}
