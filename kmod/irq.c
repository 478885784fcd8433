// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt packets (LWPROF_SS_IRQ): hard and soft interrupt time apart.
 *
 * Solaris has one microstate for both, TRAP, and lwprof keeps it: a
 * thread's ten totals do not change.  What changes is where its TRAP time
 * goes: as it accrues, per kind (hard: device IRQs and x86 system vectors;
 * soft: softirqs run on the way out of an interrupt or by local_bh_enable),
 * into packets of the thread's own flagged LWPROF_RS_HARDIRQ or
 * LWPROF_RS_SOFTIRQ, with the kernel stack of an interrupt of that kind.
 * So the analyzer can show <HARDIRQ> and <SOFTIRQ> under the interrupted
 * thread, with the handler and its entry path below them, while the
 * thread's own stacks keep only its own time.  Pseudo-states would have
 * needed an eleventh and twelfth microstate, which neither Solaris nor the
 * record has room for.
 *
 * Like clock packets these are sampled on the grid: the end of the first
 * interrupt of a kind after a grid point sends that kind's time since the
 * thread's last packet of that kind (or clock packet, which takes any
 * left), so most of it is charged to the stack of one interrupt, as clock
 * time is charged to the stack at the tick.  A tick cannot find a CPU in
 * a hard interrupt (interrupts are off there, and there is no NMI profiling
 * here), so exact time per kind with a stack sampled at the exit is what
 * can be had.
 *
 * Called from the interrupt probes with interrupts off, on t's CPU: the
 * same rules as the rest of a thread's packet state (sample.c).
 */
#include "sample.h"

void __lwprof_smp_irq(struct lwprof_thread *t, unsigned int kind, u64 dur,
		      unsigned long fn, u64 now)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);
	u64 delta[LWPROF_MS_COUNT] = { };
	struct lwprof_pkt pkt = {
		.kind = LWPROF_SK_CLOCK,
		.khere = true,
		.kfn = fn,
	};

	if (!smp || !smp->irq || !READ_ONCE(smp->clock_on) || t->pre_exec)
		return;
	t->irq_pend[kind] += dur;
	if (!lwprof_grid_reached(smp, &t->irq_next[kind], t->start_ns, now))
		return;
	if (!lwprof_guard(t))
		return;	/* no longer recorded */
	pkt.flags = kind == LWPROF_TRAP_SOFT ? LWPROF_RS_SOFTIRQ :
					       LWPROF_RS_HARDIRQ;
	if (t->idle)
		pkt.flags |= LWPROF_RS_IDLE;
	delta[LWPROF_MS_TRAP] = t->irq_pend[kind];
	pkt.value = t->irq_pend[kind];
	pkt.mstate = delta;
	pkt.time_ns = now;
	pkt.pid = t->pid;
	pkt.tid = t->tid;
	if (lwprof_pkt_emit(smp, &pkt)) {
		t->smp_base[LWPROF_MS_TRAP] += t->irq_pend[kind];
		t->irq_pend[kind] = 0;
	}
	lwprof_grid_next(smp, &t->irq_next[kind], now);
}
