// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling: a session's rings, its start and stop, and clock profiling
 * (docs/design/sampling.md).
 *
 * Clock packets follow Solaris: every nanosecond of a thread's accounted
 * life lands in exactly one clock packet of that thread.  A packet carries
 * the microstate times since the thread's previous packet (for the first,
 * since accounting began).  The intervals are a grid on the monotonic
 * clock (multiples of clock_ns) that every CPU's timer follows, while a
 * thread of the session runs there (armed at switch-in, it stops itself
 * when it finds another task).  A thread owes a packet once a grid point
 * has passed since its last one:
 *  - the timer of the CPU it runs on takes it at once if the thread is in
 *    user mode (the interrupted registers: where it was running);
 *  - if the thread was in the kernel (the tick says so) or off CPU
 *    (asleep, stopped, waiting for a CPU: its switch-in says so) the
 *    packet is taken when it next returns to user mode
 *    (LWPROF_RS_DEFERRED), with the user stack there: the call that took
 *    the time.  With -K, a kernel-mode tick takes the packet at once with
 *    the kernel stack (LWPROF_RS_KMODE) instead;
 *  - threads that never run user code (kernel threads, io_uring workers)
 *    are sampled at the tick, in kernel mode; so are exiting threads whose
 *    memory is gone, with -K, under the user pc where they entered the
 *    kernel (without -K, their EXIT packet takes the time);
 *  - the last packet comes at the thread's exit (LWPROF_RS_EXIT): from its
 *    final context switch, when its totals are final.
 * A packet that does not fit in the ring leaves the thread's baseline
 * alone, so the next packet carries its time.
 *
 * A thread's packet state (smp_base, smp_next, smp_due) is only touched
 * on the CPU the thread runs on, with interrupts off: the tick (hardirq),
 * its switch-in, its return to user mode and its final context switch.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/math64.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/irq_regs.h>

#include "sample.h"

/* Guards the creation of a session's lwprof_smp (RING_SETUP). */
static DEFINE_MUTEX(lwprof_smp_setup_mutex);

static struct lwprof_smp *lwprof_file_smp(struct file *file)
{
	struct lwprof_session *s = READ_ONCE(file->private_data);

	/* Acquire: pairs with the store-release in lwprof_smp_ring_setup(). */
	return s ? smp_load_acquire(&s->smp) : NULL;
}

/* The sampling of t's session, if it is running. */
struct lwprof_smp *lwprof_smp_of(struct lwprof_thread *t)
{
	struct lwprof_smp *smp = READ_ONCE(t->session->smp);

	return lwprof_smp_active(smp) ? smp : NULL;
}

/* The first grid point after ns. */
static u64 lwprof_grid_after(struct lwprof_smp *smp, u64 ns)
{
	return (div64_u64(ns, smp->clock_ns) + 1) * smp->clock_ns;
}

/*
 * ns as this CPU's timer sees the grid: it ticks for grid point g at
 * g + phase, so a grid point is reached on this CPU phase after it.
 */
static u64 lwprof_grid_local(struct lwprof_smp *smp, u64 ns)
{
	u64 phase = this_cpu_ptr(smp->timers)->phase;

	return ns > phase ? ns - phase : 0;
}

/*
 * Has a grid point been reached on this CPU, at ref, since *next was set
 * (0: since from)?  lwprof_grid_next() sets it after a packet.
 */
bool lwprof_grid_reached(struct lwprof_smp *smp, u64 *next, u64 from, u64 ref)
{
	if (!*next)
		*next = lwprof_grid_after(smp, from);
	return lwprof_grid_local(smp, ref) >= *next;
}

void lwprof_grid_next(struct lwprof_smp *smp, u64 *next, u64 ref)
{
	*next = lwprof_grid_after(smp, lwprof_grid_local(smp, ref));
}

/* Has t owed a clock packet, at ref, since its last one (or its start)? */
bool lwprof_clock_due(struct lwprof_smp *smp, struct lwprof_thread *t, u64 ref)
{
	return lwprof_grid_reached(smp, &t->smp_next, t->start_ns, ref);
}

/*
 * A clock packet for t, running on this CPU with interrupts off: charge
 * its current state up to now (as a transition would), then send the
 * times since its last packet.  ref is the tick's nominal time, or now
 * for a packet at the return to user mode.  The packet pays for the last
 * grid point reached on this CPU at ref, and the next one is owed at the
 * next tick here.  Paying for one reached at now, or without the phase,
 * would leave that tick with nothing owed whenever a tick ran late or a
 * return to user mode came more than the phase after a grid point: on
 * CPU 1 of 2 in a guest stalled by a busy host, 8% fewer packets than
 * perf's cpu-clock took of the same thread.
 */
void lwprof_clock_packet(struct lwprof_smp *smp, struct lwprof_thread *t,
			 struct lwprof_pkt *pkt, u64 now, u64 ref)
{
	u64 delta[LWPROF_MS_COUNT], sum = 0;
	int i;

	write_seqcount_begin(&t->seq);
	if (now > t->last_ns) {
		t->acc[t->state] += now - t->last_ns;
		t->last_ns = now;
	}
	write_seqcount_end(&t->seq);
	/*
	 * Off-CPU time in this packet: where the thread blocked (offcpu.c);
	 * a tick in the kernel sends that time in a packet of its own.
	 */
	if (!pkt->ktask && t->kb && t->kb->nr) {
		if (pkt->kregs)
			lwprof_offcpu_tick(smp, t, pkt);
		else
			pkt->kb = t->kb;
	}
	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		delta[i] = t->acc[i] - t->smp_base[i];
		sum += delta[i];
	}
	pkt->kind = LWPROF_SK_CLOCK;
	pkt->value = sum;
	pkt->mstate = delta;
	pkt->time_ns = now;
	pkt->pid = t->pid;
	pkt->tid = t->tid;
	pkt->thr = t;
	if (lwprof_pkt_emit(smp, pkt)) {
		memcpy(t->smp_base, t->acc, sizeof(t->smp_base));
		memset(t->irq_pend, 0, sizeof(t->irq_pend));
		if (pkt->kb)
			t->kb->nr = 0;
	}
	lwprof_grid_next(smp, &t->smp_next, ref);
	t->smp_due = 0;
}

/*
 * The tick of this CPU's timer at ref (its phase after a grid point): the
 * running thread.  False if that is no thread of the session: the timer
 * may stop.
 */
static bool lwprof_clock_tick(struct lwprof_smp *smp, u64 ref)
{
	struct pt_regs *regs = get_irq_regs();
	struct lwprof_pkt pkt = { };
	struct lwprof_thread *t;

	t = lwprof_thread_find(current);
	if (!t || t->session != smp->session)
		return false;
	if (t->exited || t->pre_exec || !lwprof_clock_due(smp, t, ref))
		return true;
	if (!lwprof_guard(t))
		return false;	/* no longer recorded */
	/*
	 * Exiting, its memory gone (exit_mm()): without kernel stacks there is
	 * no stack to take.  Its EXIT packet carries the time, and is charged
	 * where its previous packet, with a user stack, went.
	 */
	if (!smp->kdepth && lwprof_user_gone(current))
		return true;
	if (lwprof_user_gone(current)) {
		/*
		 * With kernel stacks: the user pc where it entered the kernel
		 * (its saved registers outlive its memory) under the kernel
		 * stack, so that the USER time since its last packet, run
		 * before the exit began, lands on the user side.
		 */
		pkt.flags = LWPROF_RS_KMODE;
		pkt.uregs = task_pt_regs(current);
		pkt.upc = true;
		pkt.kregs = regs;
	} else if (!lwprof_user_task(current)) {
		pkt.flags = LWPROF_RS_KMODE;
		pkt.kregs = regs;
	} else if (regs && user_mode(regs)) {
		pkt.uregs = regs;
	} else if (regs && smp->kdepth) {
		pkt.flags = LWPROF_RS_KMODE;
		pkt.uregs = task_pt_regs(current);
		pkt.kregs = regs;
	} else {
		t->smp_due = 1;	/* at its return to user mode */
		return true;
	}
	lwprof_clock_packet(smp, t, &pkt, lwprof_now(), ref);
	return true;
}

static enum hrtimer_restart lwprof_clock_timer(struct hrtimer *timer)
{
	struct lwprof_smp_timer *st =
		container_of(timer, struct lwprof_smp_timer, timer);
	struct lwprof_smp *smp = st->smp;
	bool ours;

	rcu_read_lock();
	ours = READ_ONCE(smp->clock_on) &&
	       lwprof_clock_tick(smp, ktime_to_ns(hrtimer_get_expires(timer)));
	rcu_read_unlock();
	if (!ours) {
		st->armed = false;	/* until one of ours comes back */
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(smp->clock_ns));
	return HRTIMER_RESTART;
}

/*
 * Arm this CPU's timer; interrupts off.  CPUs tick at their own phase
 * after each grid point (CPU c at c / nr_cpu_ids of the interval), so
 * that they do not all take their interrupts at once; a tick stands for
 * the grid point its phase before it.
 */
static void lwprof_clock_arm(struct lwprof_smp *smp)
{
	struct lwprof_smp_timer *st = this_cpu_ptr(smp->timers);
	u64 next;

	if (st->armed)
		return;
	st->armed = true;
	next = lwprof_grid_after(smp, lwprof_grid_local(smp, lwprof_now()));
	hrtimer_start(&st->timer, ns_to_ktime(next + st->phase),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void lwprof_clock_start_cpu(void *arg)
{
	lwprof_clock_arm(arg);
}

/*
 * Hook: t is switched in on this CPU at now (sched_switch: runqueue lock
 * held, interrupts off; the scheduler's own hrtick timer starts there
 * too).  A grid point passed while it was off CPU: its packet is due at
 * its return to user mode, with -K the kernel stack where it blocked
 * (offcpu.c), which also sends it at once when no user stack is wanted.
 */
void __lwprof_smp_switch_in(struct lwprof_thread *t, u64 now)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);

	if (!smp || !READ_ONCE(smp->clock_on))
		return;
	if (!t->pre_exec && (t->smp_due || lwprof_clock_due(smp, t, now))) {
		if (!lwprof_guard(t))
			return;	/* no longer recorded */
		if (!lwprof_offcpu_switch_in(smp, t, now))
			t->smp_due = 1;
	}
	lwprof_clock_arm(smp);	/* also before an exec: it may not switch */
}

/*
 * Hook: t returns to user mode (interrupts off) with t->smp_due set (the
 * test is inline, lwprof_smp_user_return()): the tick or the switch-in
 * found the packet due.
 */
void __lwprof_smp_user_return(struct lwprof_thread *t)
{
	struct lwprof_pkt pkt = { .flags = LWPROF_RS_DEFERRED };
	struct lwprof_smp *smp;
	u64 now;

	smp = lwprof_smp_of(t);
	if (!smp || !READ_ONCE(smp->clock_on) || !lwprof_guard(t))
		return;
	now = lwprof_now();
	pkt.uregs = task_pt_regs(current);
	lwprof_clock_packet(smp, t, &pkt, now, now);
}

/* t's totals are final: its last clock packet, without a stack. */
static void lwprof_smp_last(struct lwprof_smp *smp, struct lwprof_thread *t)
{
	struct lwprof_pkt pkt = {
		.kind = LWPROF_SK_CLOCK,
		.flags = LWPROF_RS_EXIT,
	};
	u64 delta[LWPROF_MS_COUNT];
	int i;

	if (!READ_ONCE(smp->clock_on) || t->pre_exec)
		return;
	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		delta[i] = t->acc[i] - t->smp_base[i];
		pkt.value += delta[i];
	}
	pkt.mstate = delta;
	pkt.time_ns = t->end_ns;
	pkt.pid = t->pid;
	pkt.tid = t->tid;
	if (lwprof_pkt_emit(smp, &pkt))
		memcpy(t->smp_base, t->acc, sizeof(t->smp_base));
}

/*
 * Hook: t's final context switch (interrupts off); its totals are final.
 * The last clock packet (no stack) and the EXIT record.
 */
void lwprof_smp_exit(struct lwprof_thread *t)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);

	if (!smp)
		return;
	lwprof_smp_last(smp, t);
	lwprof_rec_task(smp, t, LWPROF_TASK_EXIT, t->comm);
}

/*
 * guard.c stopped recording t, its totals final (on its CPU with
 * interrupts off, or where no hook can reach it): its last clock packet
 * and the STOP record, which stands for its EXIT.
 */
void lwprof_smp_stopped(struct lwprof_thread *t)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);

	if (!smp)
		return;
	lwprof_smp_last(smp, t);
	lwprof_rec_stop(smp, t, t->stopped);
}

long lwprof_smp_ring_setup(struct file *file, struct lwprof_ring_setup *req)
{
	struct lwprof_session *s = file->private_data;
	u32 pages = req->data_pages ? : LWPROF_RING_DEFAULT_PAGES;
	u64 size = (u64)pages << PAGE_SHIFT;
	u32 watermark = req->watermark ? : size / 4;
	struct lwprof_smp *smp;
	int ret;

	if (!s || req->flags || !is_power_of_2(pages) ||
	    pages > LWPROF_RING_MAX_PAGES || watermark > size)
		return -EINVAL;
	/* perf's default locked-memory budget per CPU, unless privileged. */
	if (pages > LWPROF_RING_USER_PAGES && !capable(CAP_IPC_LOCK) &&
	    !perfmon_capable())
		return -EPERM;
	if (READ_ONCE(s->stopped))
		return -ESRCH;	/* revoked: nothing left to record */

	mutex_lock(&lwprof_smp_setup_mutex);
	ret = -EBUSY;
	if (s->smp)
		goto out;
	ret = -ENOMEM;
	smp = kzalloc(sizeof(*smp), GFP_KERNEL_ACCOUNT);
	if (!smp)
		goto out;
	smp->session = s;
	mutex_init(&smp->mutex);
	init_waitqueue_head(&smp->wq);
	/* The rings are locked memory of the owner's (charge.c). */
	ret = lwprof_charge_lock(s, &smp->rings_locked,
				 (unsigned long)nr_cpu_ids * (pages + 1));
	if (!ret) {
		ret = lwprof_rings_alloc(smp, pages, watermark);
		if (ret)
			lwprof_charge_unlock(s, &smp->rings_locked);
	}
	if (ret) {
		kfree(smp);
		goto out;
	}
	req->nr_rings = smp->nr_rings;
	req->mmap_size = smp->mmap_size;
	req->data_size = size;
	/* Release: the rings are whole before mmap() or poll() find them. */
	smp_store_release(&s->smp, smp);
out:
	mutex_unlock(&lwprof_smp_setup_mutex);
	return ret;
}

/* The configuration of a run; undone by lwprof_smp_unconfig(). */
static int lwprof_smp_config(struct lwprof_smp *smp,
			     const struct lwprof_sample_start *req)
{
	size_t size;
	int cpu, ret;

	smp->clock_ns = req->clock_ns;
	smp->max_depth = req->max_depth ? : LWPROF_DEPTH_DEFAULT;
	smp->kdepth = req->flags & LWPROF_SS_KSTACK ?
		      min_t(u32, smp->max_depth, LWPROF_KDEPTH_MAX) : 0;
	smp->stack_bytes = req->stack_bytes;
	smp->sdelta = req->flags & LWPROF_SS_SDELTA;
	smp->konly = req->flags & LWPROF_SS_KONLY;
	smp->idle = req->flags & LWPROF_SS_IDLE;
	smp->irq = req->flags & LWPROF_SS_IRQ;
	smp->offcpu = req->flags & (LWPROF_SS_OFFCPU | LWPROF_SS_KONLY);
	size = lwprof_pkt_max(smp->max_depth, smp->kdepth, smp->stack_bytes);
	smp->scratch_size = ALIGN(max(size, lwprof_rec_mmap_max()),
				  SMP_CACHE_BYTES);
	size = array_size(nr_cpu_ids * 2, smp->scratch_size);
	/* Pinned for the run, as the rings: locked memory (charge.c). */
	ret = lwprof_charge_lock(smp->session, &smp->scratch_locked,
				 DIV_ROUND_UP(size, PAGE_SIZE));
	if (ret)
		return ret;
	smp->scratch = __vmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!smp->scratch)
		return -ENOMEM;
	smp->timers = alloc_percpu_gfp(struct lwprof_smp_timer,
				       GFP_KERNEL_ACCOUNT);
	if (!smp->timers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct lwprof_smp_timer *st = per_cpu_ptr(smp->timers, cpu);

		hrtimer_init(&st->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_HARD);
		st->timer.function = lwprof_clock_timer;
		st->smp = smp;
		st->phase = div_u64(smp->clock_ns * cpu, nr_cpu_ids);
	}
	return smp->idle ? lwprof_idle_alloc(smp) : 0;
}

static void lwprof_smp_unconfig(struct lwprof_smp *smp)
{
	lwprof_idle_free(smp);
	free_percpu(smp->timers);
	smp->timers = NULL;
	vfree(smp->scratch);
	smp->scratch = NULL;
	lwprof_charge_unlock(smp->session, &smp->scratch_locked);
}

static int lwprof_smp_check(struct lwprof_smp *smp,
			    const struct lwprof_sample_start *req,
			    bool kernel_ok)
{
	u32 depth = req->max_depth ? : LWPROF_DEPTH_DEFAULT;
	u32 kdepth = req->flags & LWPROF_SS_KSTACK ? LWPROF_KDEPTH_MAX : 0;

	if (req->flags & ~(LWPROF_SS_KSTACK | LWPROF_SS_SDELTA |
			   LWPROF_SS_IDLE | LWPROF_SS_KONLY | LWPROF_SS_IRQ |
			   LWPROF_SS_OFFCPU))
		return -EINVAL;
	/* Interrupt packets: with their kernel stacks, by the clock. */
	if ((req->flags & LWPROF_SS_IRQ) &&
	    (!(req->flags & LWPROF_SS_KSTACK) || !req->clock_ns))
		return -EINVAL;
	/* Idle packets: the machine's CPUs, by the clock. */
	if ((req->flags & LWPROF_SS_IDLE) &&
	    (!smp->session->machine || !req->clock_ns))
		return -EINVAL;
	/* Kernel stacks only: nothing of user memory. */
	if ((req->flags & LWPROF_SS_KONLY) &&
	    (!(req->flags & LWPROF_SS_KSTACK) || req->stack_bytes ||
	     (req->flags & LWPROF_SS_SDELTA)))
		return -EINVAL;
	if (req->clock_ns && (req->clock_ns < LWPROF_CLOCK_MIN_NS ||
			      req->clock_ns > LWPROF_CLOCK_MAX_NS))
		return -EINVAL;
	if (req->max_depth > LWPROF_DEPTH_MAX ||
	    req->stack_bytes > LWPROF_STACK_MAX || req->stack_bytes % 64)
		return -EINVAL;
	/* The largest sample must fit in a ring. */
	if (lwprof_pkt_max(depth, kdepth, req->stack_bytes) > smp->rings[0].size)
		return -EINVAL;
	if ((req->flags & LWPROF_SS_KSTACK) && !kernel_ok)
		return -EPERM;
	return lwprof_counters_check(req);
}

/*
 * Kernel stacks and kernel-mode counting: perf_allow_kernel()'s rule
 * (CAP_PERFMON, or perf_event_paranoid at most 1) and the LSM hook.
 */
static bool lwprof_smp_kernel_ok(void)
{
	return !lwprof_guard_kernel();
}

/* Stop everything that writes records; the mutex is held. */
static void lwprof_smp_halt(struct lwprof_smp *smp)
{
	int cpu;

	lwprof_idle_stop(smp);	/* each CPU's last idle packet */
	WRITE_ONCE(smp->clock_on, false);
	WRITE_ONCE(smp->active, false);
	lwprof_counters_stop(smp);
	/*
	 * Hooks that saw the session active have returned: counts are final,
	 * and no switch-in can arm a timer any more: cancel them now.
	 */
	synchronize_rcu();
	if (smp->clock_counted)
		lwprof_clock_hooks_put();
	smp->clock_counted = false;
	if (smp->timers)
		for_each_possible_cpu(cpu)
			hrtimer_cancel(&per_cpu_ptr(smp->timers, cpu)->timer);
	smp->state = LWPROF_SMP_STOPPED;
	wake_up_interruptible_poll(&smp->wq, EPOLLIN | EPOLLRDNORM);
}

long lwprof_smp_start(struct file *file, struct lwprof_sample_start *req)
{
	struct lwprof_smp *smp = lwprof_file_smp(file);
	struct lwprof_session *s;
	bool kernel_ok;
	int ret;

	if (!smp)
		return -EINVAL;		/* no RING_SETUP yet */
	/* The LSM is asked only for what would use the kernel, as by perf. */
	kernel_ok = ((req->flags & LWPROF_SS_KSTACK) || req->nr_counters) &&
		    lwprof_smp_kernel_ok();
	ret = lwprof_smp_check(smp, req, kernel_ok);
	if (ret)
		return ret;
	s = smp->session;
	/* Threads changed since the attach are not recorded at all. */
	mutex_lock(&s->read_mutex);
	lwprof_guard_sweep(s);
	mutex_unlock(&s->read_mutex);
	mutex_lock(&smp->mutex);
	ret = -EINVAL;
	if (smp->state != LWPROF_SMP_SETUP)
		goto out;		/* started already: one run per session */
	ret = -ESRCH;
	if (READ_ONCE(s->stopped))
		goto out;		/* revoked: nothing left to record */
	ret = lwprof_smp_config(smp, req);
	if (!ret)
		ret = lwprof_counters_start(smp, req, kernel_ok);
	if (ret) {
		/* Nothing ran: the caller may try again (without a counter). */
		lwprof_counters_stop(smp);
		lwprof_smp_unconfig(smp);
		goto out;
	}
	smp->state = LWPROF_SMP_RUNNING;
	/* Release: hooks that see active see the configuration above. */
	smp_store_release(&smp->active, true);
	/* The CPUs' idle time counts from here, with the threads' own. */
	lwprof_idle_start(smp);
	lwprof_rec_initial(smp);
	if (smp->clock_ns) {
		/* The hooks are in the code before they can see clock_on. */
		lwprof_clock_hooks_get();
		smp->clock_counted = true;
		WRITE_ONCE(smp->clock_on, true);
		cpus_read_lock();
		on_each_cpu(lwprof_clock_start_cpu, smp, 1);
		cpus_read_unlock();
	}
out:
	mutex_unlock(&smp->mutex);
	return ret;
}

long lwprof_smp_stop(struct file *file, struct lwprof_sample_stop *req)
{
	struct lwprof_smp *smp = lwprof_file_smp(file);
	long ret = 0;

	if (!smp)
		return -EINVAL;
	mutex_lock(&smp->mutex);
	if (smp->state == LWPROF_SMP_SETUP)
		ret = -EINVAL;
	else if (smp->state == LWPROF_SMP_RUNNING)
		lwprof_smp_halt(smp);
	if (!ret)
		lwprof_rings_totals(smp, &req->records, &req->lost);
	mutex_unlock(&smp->mutex);
	return ret;
}

int lwprof_smp_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct lwprof_smp *smp = lwprof_file_smp(file);

	return smp ? lwprof_rings_mmap(smp, vma) : -EINVAL;
}

__poll_t lwprof_smp_poll(struct file *file, struct poll_table_struct *pt)
{
	struct lwprof_smp *smp = lwprof_file_smp(file);

	__poll_t hup;

	if (!smp)
		return EPOLLERR;
	poll_wait(file, &smp->wq, pt);
	/* Revoked: sampling ended for good (the rings may still hold data). */
	hup = READ_ONCE(smp->session->stopped) ? EPOLLHUP : 0;
	if (lwprof_rings_ready(smp, READ_ONCE(smp->state) ==
			       LWPROF_SMP_STOPPED))
		return hup | EPOLLIN | EPOLLRDNORM;
	return hup;
}

/*
 * Another session took s's threads (session.c, s->stopped set): sampling
 * stops, and its rings end with a STOP record of pid 0 saying why.
 */
void lwprof_smp_revoke(struct lwprof_session *s)
{
	struct lwprof_smp *smp = s->smp;

	if (!smp)
		return;
	mutex_lock(&smp->mutex);
	if (smp->state == LWPROF_SMP_RUNNING) {
		lwprof_smp_halt(smp);
		lwprof_rec_stop(smp, NULL, LWPROF_STOP_REVOKED);
		wake_up_interruptible_poll(&smp->wq, EPOLLIN | EPOLLHUP);
	}
	mutex_unlock(&smp->mutex);
}

/* The session ends: stop sampling (its threads are still in the table). */
void lwprof_smp_release(struct lwprof_session *s)
{
	struct lwprof_smp *smp = s->smp;

	if (!smp)
		return;
	mutex_lock(&smp->mutex);
	if (smp->state == LWPROF_SMP_RUNNING)
		lwprof_smp_halt(smp);
	mutex_unlock(&smp->mutex);
}

/*
 * Live threads of the session, each with a task reference (to work on
 * outside the session's lock); returns how many, or -ENOMEM.
 */
int lwprof_smp_tasks(struct lwprof_session *s, struct lwprof_task_ref **refs)
{
	struct lwprof_task_ref *r = NULL;
	struct lwprof_thread *t;
	unsigned long flags;
	int n, max = 0;

	for (;;) {
		n = 0;
		raw_spin_lock_irqsave(&s->lock, flags);
		list_for_each_entry(t, &s->threads, snode) {
			if (t->exited)
				continue;
			if (n < max) {
				get_task_struct(t->task);
				r[n].task = t->task;
				r[n].pid = t->pid;
				r[n].tid = t->tid;
			}
			n++;
		}
		raw_spin_unlock_irqrestore(&s->lock, flags);
		if (n <= max)
			break;
		lwprof_smp_tasks_put(r, max);
		max = n + 16;	/* threads come and go meanwhile */
		r = kvmalloc_array(max, sizeof(*r), GFP_KERNEL);
		if (!r)
			return -ENOMEM;
	}
	*refs = r;
	return n;
}

void lwprof_smp_tasks_put(struct lwprof_task_ref *refs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		put_task_struct(refs[i].task);
	kvfree(refs);
}

/* Last: no probe can reach the session any more; free what it had. */
void lwprof_smp_free(struct lwprof_session *s)
{
	struct lwprof_smp *smp = s->smp;

	if (!smp)
		return;
	lwprof_rings_free(smp);
	lwprof_charge_unlock(s, &smp->rings_locked);
	lwprof_smp_unconfig(smp);
	kfree(smp);
	s->smp = NULL;
}
