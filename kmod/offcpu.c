// SPDX-License-Identifier: GPL-2.0
/*
 * Where off-CPU time goes (docs/design/kernel-profiling.md).
 *
 * A thread off CPU (asleep, stopped, waiting for a CPU) across a grid
 * point owes a packet for that time.  With -K and LWPROF_SS_OFFCPU (or
 * LWPROF_SS_KONLY: readers of ABI 1.4 ask, since older ones refuse flags
 * they do not know) the packet carries the
 * kernel stack at which the thread left the CPU, its caller chain of
 * schedule() (do_nanosleep, futex_wait_queue, pipe_read, io_schedule...),
 * flagged LWPROF_RS_KBLOCK.  That stack is read when the thread is switched
 * back in, from the sched_switch probe, before it runs: its stack is then
 * still as __schedule() left it, and this costs one walk per packet, not
 * one per context switch.
 *
 *  - Threads that run user code get the packet at their return to user
 *    mode (the user stack of the call that blocked), so the kernel frames
 *    wait in a per-thread buffer, allocated at the first such packet:
 *    threads that never block across a grid point never pay for it.  It
 *    is allocated under the runqueue lock, without any reclaim and so
 *    without waking kswapd or anything else, and not when memory is low
 *    (lwprof_spare_alloc(), as sdelta.c does from a context-switch
 *    counter); if that fails the packet has no frames.
 *  - Kernel threads, and every thread under LWPROF_SS_KONLY (no user
 *    stack to wait for), get the packet at once, from the switch-in.
 *
 * The user side: a wait that a signal ends returns to user mode through
 * the signal's handler, whose frame is built before the return, so a
 * packet taken at that return would land on the handler.  The
 * signal_deliver tracepoint comes before the frame is built: a packet owed
 * then is taken there, with the registers of the call, for every session
 * (flagged LWPROF_RS_SIGNAL when LWPROF_SS_OFFCPU asked for 1.4's flags).
 *
 * Like the rest of a thread's packet state, this is touched only on the
 * thread's CPU with interrupts off (sample.c).
 */
#include <linux/sched/task_stack.h>
#include <linux/slab.h>

#include "sample.h"

/* 96 + 116 * 8 bytes: a kmalloc-1k object. */
#define LWPROF_KB_FRAMES	116

void lwprof_kb_free(struct lwprof_kblock *kb)
{
	kfree(kb);
}

/* t's buffer for the frames, allocated at its first use; NULL if none. */
static struct lwprof_kblock *lwprof_kb_get(struct lwprof_smp *smp,
					   struct lwprof_thread *t)
{
	u32 cap = min_t(u32, smp->kdepth, LWPROF_KB_FRAMES);
	struct lwprof_kblock *kb = t->kb;

	if (kb)
		return kb->cap >= cap ? kb : NULL;
	kb = lwprof_spare_alloc(smp->session, struct_size(kb, ips, cap));
	if (!kb)
		return NULL;
	kb->nr = 0;
	kb->flags = 0;
	kb->cap = cap;
	t->kb = kb;
	return kb;
}

/*
 * sched_switch: t, owing a packet, is switched in at now and has not run
 * yet.  Send the packet now if nothing waits for its user stack; else
 * keep its kernel stack for the packet at its return to user mode.
 * Returns true if the packet was taken (nothing is owed any more).
 */
bool lwprof_offcpu_switch_in(struct lwprof_smp *smp, struct lwprof_thread *t,
			     u64 now)
{
	struct task_struct *task = t->task;
	struct lwprof_pkt pkt = { .ktask = task };
	struct lwprof_kblock *kb;
	u16 flags = 0;

	if (!smp->kdepth || !smp->offcpu)
		return false;
	if (lwprof_user_gone(task)) {
		/* Exiting, its memory gone: the user pc alone (sample.c). */
		pkt.flags = LWPROF_RS_KMODE;
		pkt.uregs = task_pt_regs(task);
		pkt.upc = true;
	} else if (!lwprof_user_task(task)) {
		pkt.flags = LWPROF_RS_KMODE;
	} else if (smp->konly) {
		pkt.uregs = task_pt_regs(task);
	} else {
		kb = lwprof_kb_get(smp, t);
		if (kb) {
			kb->nr = lwprof_task_kframes(task, kb->ips, kb->cap,
						     &flags);
			kb->flags = flags;
			/* Where its off-CPU time ends (lwprof_offcpu_tick()). */
			kb->time_ns = now;
			memcpy(kb->acc, t->acc, sizeof(kb->acc));
			if (now > t->last_ns)
				kb->acc[t->state] += now - t->last_ns;
		}
		return false;
	}
	lwprof_clock_packet(smp, t, &pkt, now, now);
	return true;
}

/*
 * A tick found t in the kernel (tick->kregs) with the frames of where it
 * blocked still saved: it came back on CPU and has not returned to user
 * mode since (a syscall that slept, or was preempted, and then went on in
 * the kernel).  One packet cannot hold both stacks, so the time up to its
 * switch-in goes first, in a packet of its own with the saved frames
 * (KBLOCK, and the tick's flags and user registers: the same system
 * call), and the tick's packet keeps only the time since, on the tick's
 * own stack.  TRAP time stays for the tick's packet, which settles the
 * interrupt packets' share (irq.c).  If the ring is full, the tick's
 * packet takes all the time.  Same context as lwprof_clock_packet().
 */
void lwprof_offcpu_tick(struct lwprof_smp *smp, struct lwprof_thread *t,
			const struct lwprof_pkt *tick)
{
	struct lwprof_kblock *kb = t->kb;
	struct lwprof_pkt pkt = {
		.kind = LWPROF_SK_CLOCK, .flags = tick->flags,
		.uregs = tick->uregs, .upc = tick->upc, .kb = kb,
		.time_ns = kb->time_ns,
		.pid = t->pid, .tid = t->tid, .thr = t,
	};
	u64 delta[LWPROF_MS_COUNT] = { }, sum = 0;
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		if (i == LWPROF_MS_TRAP || kb->acc[i] <= t->smp_base[i])
			continue;
		delta[i] = kb->acc[i] - t->smp_base[i];
		sum += delta[i];
	}
	pkt.value = sum;
	pkt.mstate = delta;
	if (lwprof_pkt_emit(smp, &pkt)) {
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			t->smp_base[i] += delta[i];
	}
	kb->nr = 0;
}

/*
 * Hook, signal_deliver (siglock held, interrupts off): current is about to
 * get a signal's handler frame.  A packet it owes is taken now, with the
 * user registers of the call the signal interrupted.
 */
void __lwprof_smp_signal(struct lwprof_thread *t)
{
	struct lwprof_pkt pkt = { .flags = LWPROF_RS_DEFERRED };
	struct lwprof_smp *smp = lwprof_smp_of(t);
	unsigned long flags;
	u64 now;

	if (!smp || !READ_ONCE(smp->clock_on) || !lwprof_user_task(current))
		return;
	if (smp->offcpu)
		pkt.flags |= LWPROF_RS_SIGNAL;	/* a reader of 1.4 asked */
	local_irq_save(flags);
	if (t->smp_due && lwprof_guard(t)) {
		now = lwprof_now();
		pkt.uregs = task_pt_regs(current);
		lwprof_clock_packet(smp, t, &pkt, now, now);
	}
	local_irq_restore(flags);
}
