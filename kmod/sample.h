/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling: the per-CPU rings (ring.c), clock profiling and the session's
 * sampling state (sample.c), sample packets and their stacks (packet.c),
 * task and map records (records.c), counter overflows (counter.c).
 * docs/design/sampling.md describes what they do together.
 */
#ifndef LWPROF_SAMPLE_H
#define LWPROF_SAMPLE_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/wait.h>
#include <asm/local.h>

#include "internal.h"

/*
 * One CPU's ring.  Only code running on that CPU writes it (records are
 * built and copied with preemption off), so the reservation needs no lock,
 * only local atomics that are safe against the interrupts (and NMIs) that
 * may nest inside a writer; see ring.c.
 */
struct lwprof_ring {
	struct lwprof_ring_ctl *ctl;	/* the mapping's first page */
	u8 *data;			/* data_size bytes after it */
	u64 size;			/* data bytes, a power of two */
	local_t head;			/* reserved up to here (private) */
	local_t nest;			/* writers inside reserve..commit */
	local_t lost;			/* dropped since the last LOST record */
	local_t records;		/* written, in all */
	local_t dropped;		/* dropped, in all */
	u64 wake_at;			/* wake the reader when head passes it */
	u32 watermark;
	u32 cpu;
	struct irq_work work;		/* wakes the reader outside the writer */
	wait_queue_head_t *wq;
	struct page **pages;		/* ctl's, for lwprof_charge_vunmap() */
};

/* One counter of lwprof_sample_start.counters[]: the handler's context. */
struct lwprof_smp_counter {
	struct lwprof_smp *smp;
	u32 index;
	bool clock;			/* cpu-clock or task-clock: counter.c */
	struct perf_event_attr attr;
};

/*
 * A CPU's clock-profiling timer.  It runs while threads of the session run
 * on the CPU: armed when one is switched in, it stops itself when it finds
 * another task (idle, say).  armed is only touched on its CPU, with
 * interrupts off.
 */
struct lwprof_smp_timer {
	struct hrtimer timer;
	struct lwprof_smp *smp;
	u64 phase;			/* ticks this long after a grid point */
	bool armed;
	/* counter.c: a machine session's clock counts at their last overflow */
	u64 ctr_last[LWPROF_MAX_COUNTERS];
};

enum lwprof_smp_state {
	LWPROF_SMP_SETUP,		/* rings allocated, not started */
	LWPROF_SMP_RUNNING,
	LWPROF_SMP_STOPPED,		/* rings still readable */
};

/* A session's sampling: hangs off lwprof_session.smp from RING_SETUP on. */
struct lwprof_smp {
	struct lwprof_session *session;
	struct mutex mutex;		/* setup, start, stop */
	enum lwprof_smp_state state;	/* under mutex */
	bool active;			/* hooks write records (READ_ONCE) */
	bool clock_on;			/* clock packets (READ_ONCE) */
	bool clock_counted;		/* holds lwprof_clock_key; mutex */
	wait_queue_head_t wq;		/* poll() on the file */
	unsigned int nr_rings;
	u64 mmap_size;
	struct lwprof_ring *rings;

	/* What SAMPLE_START asked for; fixed while running. */
	u64 clock_ns;
	u32 max_depth;			/* user frames */
	u32 kdepth;			/* kernel frames, 0 without -K */
	u32 stack_bytes;
	bool sdelta;			/* LWPROF_SS_SDELTA */
	bool konly;			/* LWPROF_SS_KONLY */
	bool idle;			/* LWPROF_SS_IDLE */
	bool irq;			/* LWPROF_SS_IRQ */
	bool offcpu;			/* LWPROF_SS_OFFCPU (or KONLY) */
	u32 nr_counters;
	struct lwprof_smp_counter counters[LWPROF_MAX_COUNTERS];

	/* Per-CPU scratch space to build a record in: [cpu][nmi]. */
	u8 *scratch;
	size_t scratch_size;

	struct lwprof_smp_timer __percpu *timers;
	struct perf_event **events;
	unsigned int nr_events;

	/* charge.c: the rings' and the scratch space's locked memory */
	struct lwprof_locked rings_locked;
	struct lwprof_locked scratch_locked;

	/* LWPROF_SS_IDLE: each CPU's idle task as a pseudo-thread (idle.c). */
	struct lwprof_thread **idle_thr;
	bool idle_live;			/* a CPU coming online takes its own */
};

/*
 * Allocations in the sampling hooks (a context-switch counter, the
 * sched_switch probe: runqueue lock held) may not reclaim, nor even wake
 * kswapd; when they fail the hook does without.
 */
#define LWPROF_NORECLAIM_GFP	((GFP_NOWAIT & ~__GFP_KSWAPD_RECLAIM) | \
				 __GFP_NOWARN)

/*
 * lwprof_spare_alloc() (thread.c) gives the hooks' optional per-thread
 * buffers nothing while the available memory is under 1/32 of RAM.
 */
#define LWPROF_SPARE_FLOOR_SHIFT	5
void *lwprof_spare_alloc(struct lwprof_session *s, size_t size);

/* The largest kernel stack a sample carries (frames). */
#define LWPROF_KDEPTH_MAX	128

/* Ring sizes (data pages): the ABI's limit, and without CAP_IPC_LOCK. */
#define LWPROF_RING_MAX_PAGES	16384
#define LWPROF_RING_USER_PAGES	128

/* Threads of a session, with a reference, for work outside its lock. */
struct lwprof_task_ref {
	struct task_struct *task;
	u32 pid, tid;
};

/* ring.c */
int lwprof_rings_alloc(struct lwprof_smp *smp, u32 data_pages, u32 watermark);
void lwprof_rings_free(struct lwprof_smp *smp);
bool lwprof_ring_write(struct lwprof_smp *smp, const void *rec, u32 size);
bool lwprof_rings_ready(struct lwprof_smp *smp, bool stopped);
void lwprof_rings_totals(struct lwprof_smp *smp, u64 *records, u64 *lost);
int lwprof_rings_mmap(struct lwprof_smp *smp, struct vm_area_struct *vma);

/* packet.c */
struct lwprof_pkt {
	u16 kind;			/* LWPROF_SK_* */
	u16 counter;
	u16 flags;			/* LWPROF_RS_* known beforehand */
	u64 value;
	u64 time_ns;
	u32 pid, tid;
	const u64 *mstate;		/* clock deltas, or NULL */
	struct pt_regs *uregs;		/* user registers, or NULL */
	bool upc;			/* of uregs the pc alone: no user memory */
	struct pt_regs *kregs;		/* kernel stack from here, or NULL */
	struct lwprof_thread *thr;	/* for delta stack copies, or NULL */
	struct lwprof_sdelta_state *sd;	/* set by lwprof_sd_stack() */
	/* Off-CPU time (LWPROF_RS_KBLOCK): kernel frames saved, or a task's */
	const struct lwprof_kblock *kb;
	struct task_struct *ktask;	/* not running: unwind its stack */
	bool khere;			/* unwind from here (interrupt) ... */
	unsigned long kfn;		/* ... below this handler, if any */
};

void *lwprof_scratch(struct lwprof_smp *smp);
u32 lwprof_pkt_build(struct lwprof_smp *smp, struct lwprof_pkt *pkt,
		     void *buf);
bool lwprof_pkt_emit(struct lwprof_smp *smp, struct lwprof_pkt *pkt);
struct pt_regs *lwprof_user_regs(struct pt_regs *regs);
bool lwprof_user_task(struct task_struct *task);
bool lwprof_user_gone(struct task_struct *task);
size_t lwprof_pkt_max(u32 max_depth, u32 kdepth, u32 stack_bytes);
u32 lwprof_user_stack(struct pt_regs *regs, u8 *dst, u32 want);

u32 lwprof_task_kframes(struct task_struct *task, u64 *ips, u32 max,
			u16 *flags);
u32 lwprof_here_kframes(unsigned long fn, u64 *ips, u32 max, u16 *flags);

/* offcpu.c: where threads left the CPU, and packets before signals */
struct lwprof_kblock {
	u16 nr;				/* frames in ips[], 0: none saved */
	u16 flags;			/* LWPROF_RS_KTRUNC */
	u32 cap;
	u64 time_ns;			/* when the thread came back on CPU */
	u64 acc[LWPROF_MS_COUNT];	/* its lwprof_thread.acc[] then */
	u64 ips[];
};

void lwprof_kb_free(struct lwprof_kblock *kb);
bool lwprof_offcpu_switch_in(struct lwprof_smp *smp, struct lwprof_thread *t,
			     u64 now);
void lwprof_offcpu_tick(struct lwprof_smp *smp, struct lwprof_thread *t,
			const struct lwprof_pkt *tick);

/* sdelta.c */
u32 lwprof_sd_stack(struct lwprof_smp *smp, struct lwprof_pkt *pkt, u8 *dst,
		    u16 *flags);
void lwprof_sd_done(struct lwprof_pkt *pkt, bool ok);

/* records.c */
void lwprof_rec_task(struct lwprof_smp *smp, struct lwprof_thread *t,
		     u32 event, const char *comm);
void lwprof_rec_stop(struct lwprof_smp *smp, struct lwprof_thread *t,
		     u32 reason);
void lwprof_rec_initial(struct lwprof_smp *smp);
size_t lwprof_rec_mmap_max(void);

/* counter.c */
int lwprof_counters_check(const struct lwprof_sample_start *req);
int lwprof_counters_start(struct lwprof_smp *smp,
			  const struct lwprof_sample_start *req, bool kernel_ok);
void lwprof_counters_stop(struct lwprof_smp *smp);

/* idle.c */
int lwprof_idle_alloc(struct lwprof_smp *smp);
void lwprof_idle_start(struct lwprof_smp *smp);
void lwprof_idle_stop(struct lwprof_smp *smp);
void lwprof_idle_free(struct lwprof_smp *smp);

/* sample.c */
struct lwprof_smp *lwprof_smp_of(struct lwprof_thread *t);
bool lwprof_grid_reached(struct lwprof_smp *smp, u64 *next, u64 from, u64 ref);
void lwprof_grid_next(struct lwprof_smp *smp, u64 *next, u64 ref);
bool lwprof_clock_due(struct lwprof_smp *smp, struct lwprof_thread *t, u64 ref);
void lwprof_clock_packet(struct lwprof_smp *smp, struct lwprof_thread *t,
			 struct lwprof_pkt *pkt, u64 now, u64 ref);
int lwprof_smp_tasks(struct lwprof_session *s, struct lwprof_task_ref **refs);
void lwprof_smp_tasks_put(struct lwprof_task_ref *refs, int n);
static inline bool lwprof_smp_active(struct lwprof_smp *smp)
{
	return smp && READ_ONCE(smp->active);
}

#endif /* LWPROF_SAMPLE_H */
