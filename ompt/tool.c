// SPDX-License-Identifier: GPL-2.0
/*
 * The OMPT tool (ompt.h): ompt_start_tool(), which an OMPT runtime
 * (LLVM's libomp) calls at its start and finds here first, as the
 * library is preloaded; the callbacks, which time each thread's parallel
 * regions, implicit tasks and waits and write each as a record when it
 * ends.  A thread's state is its own (thread-local): no lock.  Regions
 * are numbered per process; a wait carries the region the thread worked
 * in, so the analyzer finds the stack that encountered it.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "libexp/omp.h"
#include "ompt/ompt.h"
#include "trace.h"

#define NEST	8		/* regions, tasks and waits open at once on a thread */

struct open_ev {
	uint64_t t0, region, obj, codeptr;
	uint32_t stack;
	uint32_t base;		/* an explicit task's: the waits open below it */
	uint16_t event;
	bool msok;		/* a wait's: its ms0 is this thread's */
	bool cont;		/* a wait's: it went on after tasks it ran */
};

/*
 * A thread's open spans.  Waits do not overlap: a wait that begins in
 * another (a reduction's barrier) and an explicit task run in one (at a
 * taskwait, at a barrier) pause it, which ends its segment; it goes on
 * when they end.  The top wait runs when no explicit task began above it.
 */
struct othread {
	struct open_ev region[NEST], task[NEST], wait[NEST], xtask[NEST];
	uint64_t wait_ms0[NEST][LWPROF_MS_COUNT];	/* a wait's microstates at t0 */
	unsigned int nregion, ntask, nwait, nxtask;
	uint64_t idle_since;	/* a worker's: 0 while it works */
	/*
	 * When the thread's last callback ended an implicit barrier's wait,
	 * its end (bar_end, 0: it did not); set by the callback (bar_now).
	 */
	uint64_t bar_end, bar_now;
	uint32_t pid, tid;	/* the ids its records carry, of process pid */
	bool worker;
	/*
	 * The events of its part in the last region held back, to be
	 * written as one folded record (EXP_REC_OMP_FOLD) when they are
	 * what an empty region makes: the idle time before an implicit
	 * task, the task's implicit barrier, the task ending with it and
	 * the region it encountered.  Any other record writes them first,
	 * as they are, so that the records keep their order.
	 */
	struct {
		unsigned int have;	/* HELD_* */
		uint64_t idle0, idle1, bar_end;
		struct open_ev bar, task;
	} held;
};

#define HELD_IDLE	0x1
#define HELD_BAR	0x2
#define HELD_TASK	0x4

/*
 * An explicit task's ompt_data_t, set at its creation: this bit, the id
 * of the stack that created it (16 bits, 0: not kept) and the return
 * address of its construct (47 bits, a user-space address).
 */
#define XTASK		(1ULL << 63)
#define XTASK_SHIFT	47
#define XTASK_PC	((1ULL << XTASK_SHIFT) - 1)

static __thread struct othread ot TR_TLS;
/*
 * The process's region count, alone in its cache line: the encountering
 * thread adds to it at each region, and beside the globals every
 * callback of every thread reads (tr_conf, get_task_info) the line went
 * back and forth between the team's CPUs twice a region.
 */
static struct {
	uint64_t n;
} __attribute__((aligned(64))) region_seq;
static ompt_get_task_info_t get_task_info;
static char rt_version[256];
static unsigned int rt_omp_version;

/* The ids of the thread's records, asked once per process. */
static void ids(void)
{
	if (ot.pid != (uint32_t)tr.pid) {
		ot.pid = tr.pid;
		ot.tid = tr_thread_tid();
	}
}

/*
 * The record of o, ended at t1 (ms: its microstates, or NULL).  Every
 * field is written (the struct has no padding): the hot path of every
 * region, no memset.  The thread's id is asked once per process (a
 * forked child's thread has another).
 */
static void put(uint16_t event, const struct open_ev *o, uint64_t t1,
		const uint64_t *ms)
{
	size_t n = sizeof(struct exp_rec_omp_event) +
		   (ms ? 8 * LWPROF_MS_COUNT : 0);
	struct exp_rec_omp_event *e = (struct exp_rec_omp_event *)tr_reserve(n);
	int cpu = sched_getcpu();

	if (!e)
		return;
	ids();
	e->hdr.type = EXP_REC_OMP_EVENT;
	e->hdr.flags = (ms ? EXP_OMPF_MS : 0) | (o->cont ? EXP_OMPF_CONT : 0);
	e->hdr.size = n;
	e->event = event;
	e->cpu = cpu < 0 ? 0 : cpu;
	e->pid = ot.pid;
	e->tid = ot.tid;
	e->stack = o->stack;
	e->start_ns = o->t0;
	e->end_ns = t1 < o->t0 ? o->t0 : t1;
	e->region = o->region;
	e->obj = o->obj;
	e->codeptr = o->codeptr;
	if (ms)
		memcpy(e->ms, ms, 8 * LWPROF_MS_COUNT);
	tr_commit(n);
}

/*
 * The held events as one folded record, the region's end at t1 (reg:
 * the region, or NULL), if they are an implicit task and its barrier
 * and their times fit; false: not written.
 */
static bool fold(const struct open_ev *reg, uint64_t t1)
{
	const struct open_ev *b = &ot.held.bar, *k = &ot.held.task;
	uint64_t t0 = k->t0, bt = b->t0 < t0 ? t0 : b->t0;
	uint64_t end = ot.held.bar_end < bt ? bt : ot.held.bar_end;
	struct exp_omp_fold_region *g;
	struct exp_rec_omp_fold *f;
	uint16_t flags;
	size_t n;
	int cpu;

	if ((ot.held.have & (HELD_BAR | HELD_TASK)) != (HELD_BAR | HELD_TASK) ||
	    end - t0 > UINT32_MAX ||
	    (reg && (t0 - (reg->t0 < t0 ? reg->t0 : t0) > UINT32_MAX ||
		     (t1 > end ? t1 - end : 0) > UINT32_MAX)))
		return false;
	flags = (ot.held.have & HELD_IDLE ? EXP_OMPF_FOLD_IDLE : 0) |
		(reg ? EXP_OMPF_FOLD_REGION : 0);
	n = exp_omp_fold_size(flags);
	f = (struct exp_rec_omp_fold *)tr_reserve(n);
	if (!f)
		return true;	/* no buffer: no record */
	ids();
	cpu = sched_getcpu();
	f->hdr.type = EXP_REC_OMP_FOLD;
	f->hdr.flags = flags;
	f->hdr.size = n;
	f->pid = ot.pid;
	f->tid = ot.tid;
	f->cpu = cpu < 0 ? 0 : cpu;
	f->pad0 = 0;
	f->bar_stack = b->stack;
	f->index = (uint32_t)k->obj;
	f->team = k->obj >> 32;
	f->region = k->region;
	f->start_ns = t0;
	f->bar_start = bt - t0;
	f->end = end - t0;
	f->bar_codeptr = b->codeptr;
	if (flags & EXP_OMPF_FOLD_IDLE)
		f->tail[0] = ot.held.idle0;
	if (reg) {
		g = (struct exp_omp_fold_region *)
			(f->tail + !!(flags & EXP_OMPF_FOLD_IDLE));
		g->before = t0 - (reg->t0 < t0 ? reg->t0 : t0);
		g->after = t1 > end ? t1 - end : 0;
		g->stack = reg->stack;
		g->asked = reg->obj;
		g->codeptr = reg->codeptr;
	}
	tr_commit(n);
	return true;
}

/* The held events out: folded if they can be, else each as it is. */
static void held_out(void)
{
	unsigned int have = ot.held.have;
	struct open_ev idle = { .t0 = ot.held.idle0 };

	if (!have || fold(NULL, 0)) {
		ot.held.have = 0;
		return;
	}
	ot.held.have = 0;
	if (have & HELD_IDLE)
		put(EXP_OMP_IDLE, &idle, ot.held.idle1, NULL);
	if (have & HELD_BAR)
		put(ot.held.bar.event, &ot.held.bar, ot.held.bar_end, NULL);
	if (have & HELD_TASK)
		put(EXP_OMP_ITASK, &ot.held.task, ot.held.bar_end, NULL);
}

/* The record of o, after the held ones. */
static void emit(uint16_t event, const struct open_ev *o, uint64_t t1,
		 const uint64_t *ms)
{
	held_out();
	put(event, o, t1, ms);
}

static bool enter(void)
{
	if (!tr_enter(TR_OMP))
		return false;
	ot.bar_end = ot.bar_now;
	ot.bar_now = 0;
	return true;
}

/* The region the thread works in now (0: none). */
static uint64_t cur_region(void)
{
	return ot.ntask && ot.ntask <= NEST ? ot.task[ot.ntask - 1].region : 0;
}

/* The calling task's frames: with the return address, a place's key. */
static uint32_t here(uint64_t codeptr)
{
	ompt_frame_t *f = NULL;
	ompt_data_t *td = NULL, *pd = NULL;
	int flags = 0, tn = 0;

	if (get_task_info)
		get_task_info(0, &flags, &td, &f, &pd, &tn);
	return omp_stack(codeptr, f ? f->enter_frame.value : 0,
			 f ? f->exit_frame.value : 0);
}

/* A worker's idle time ends at t: held (for a folded record) or written. */
static void idle_end(uint64_t t, bool hold)
{
	struct open_ev o = { .t0 = ot.idle_since };

	if (ot.worker && ot.idle_since && t > ot.idle_since) {
		if (hold) {
			held_out();
			ot.held.have = HELD_IDLE;
			ot.held.idle0 = ot.idle_since;
			ot.held.idle1 = t;
		} else {
			emit(EXP_OMP_IDLE, &o, t, NULL);
		}
	}
	ot.idle_since = 0;
}

/* Is region id the one the thread encountered last, still open? */
static bool region_open(uint64_t id)
{
	return ot.nregion && ot.nregion <= NEST &&
	       ot.region[ot.nregion - 1].region == id;
}

static void on_thread_begin(int type, ompt_data_t *data)
{
	if (!enter())
		return;
	ot.worker = type == ompt_thread_worker;
	ot.idle_since = ot.worker ? omp_now() : 0;
	tr_leave();
}

static void on_thread_end(ompt_data_t *data)
{
	if (!enter())
		return;
	held_out();
	idle_end(omp_now(), false);
	tr_leave();
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
			      ompt_data_t *parallel, unsigned int asked,
			      int flags, const void *codeptr)
{
	struct open_ev *o;
	uint64_t id = __atomic_add_fetch(&region_seq.n, 1, __ATOMIC_RELAXED);

	parallel->value = id;
	if (!enter())
		return;
	if (ot.nregion < NEST) {
		o = &ot.region[ot.nregion];
		*o = (struct open_ev){ .t0 = omp_now(), .region = id, .obj = asked,
				       .codeptr = (uintptr_t)codeptr };
		o->stack = omp_stack((uintptr_t)codeptr,
				     frame ? frame->enter_frame.value : 0,
				     frame ? frame->exit_frame.value : 0);
	}
	ot.nregion++;
	tr_leave();
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task,
			    int flags, const void *codeptr)
{
	struct open_ev *o;
	uint64_t t;

	if (!enter())
		return;
	if (ot.nregion && --ot.nregion < NEST) {
		o = &ot.region[ot.nregion];
		t = omp_now();
		/* its encountering thread's part held: one record with it */
		if ((ot.held.have & HELD_TASK) && ot.held.task.region == o->region &&
		    fold(o, t))
			ot.held.have = 0;
		else
			emit(EXP_OMP_REGION, o, t, NULL);
	}
	tr_leave();
}

static void on_implicit_task(int endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int team,
			     unsigned int index, int flags)
{
	struct open_ev *k;
	uint64_t t;

	if ((flags & ompt_task_initial) || !enter())
		return;
	/*
	 * An implicit task ends with its region's implicit barrier: when
	 * the runtime says so at once (libomp does, on each thread), at
	 * that wait's end, read then; a clock read less on every thread of
	 * every region.
	 */
	t = endpoint == ompt_scope_end && ot.bar_end ? ot.bar_end : omp_now();
	if (endpoint == ompt_scope_begin) {
		idle_end(t, true);
		if (ot.ntask < NEST)
			ot.task[ot.ntask] = (struct open_ev){
				.t0 = t, .region = parallel ? parallel->value : 0,
				.obj = (uint64_t)team << 32 | index };
		ot.ntask++;
	} else if (ot.ntask && --ot.ntask < NEST) {
		k = &ot.task[ot.ntask];
		/*
		 * Ended with its implicit barrier, held: held too, until its
		 * region ends if the thread encountered it, else written.
		 */
		if (ot.bar_end && t == ot.held.bar_end &&
		    (ot.held.have & (HELD_BAR | HELD_TASK)) == HELD_BAR &&
		    k->region == ot.held.bar.region) {
			ot.held.have |= HELD_TASK;
			ot.held.task = *k;
			if (!region_open(k->region))
				held_out();
		} else {
			emit(EXP_OMP_ITASK, k, t, NULL);
		}
		if (ot.worker && !ot.ntask)
			ot.idle_since = t;
	}
	tr_leave();
}

/* The waits below the innermost explicit task running on the thread. */
static unsigned int wait_base(void)
{
	return ot.nxtask && ot.nxtask <= NEST ? ot.xtask[ot.nxtask - 1].base : 0;
}

/* The running wait, if any: the top one, when no task runs above it. */
static struct open_ev *wait_running(void)
{
	if (!ot.nwait || ot.nwait <= wait_base() || ot.nwait > NEST)
		return NULL;
	return &ot.wait[ot.nwait - 1];
}

/* o's segment up to t (microstates v, if ok) as a record. */
static void wait_emit(struct open_ev *o, uint64_t t, const uint64_t *v, bool ok)
{
	uint64_t ms[LWPROF_MS_COUNT];

	if (o->msok && ok)
		tr_ms_sub(ot.wait_ms0[o - ot.wait], v, t - o->t0, ms);
	emit(o->event, o, t, o->msok && ok ? ms : NULL);
}

/* The running wait, paused at t: its segment ends. */
static void wait_pause(uint64_t t, const uint64_t *v, bool ok)
{
	struct open_ev *o = wait_running();

	if (o)
		wait_emit(o, t, v, ok);
}

/* ... and goes on at t. */
static void wait_resume(uint64_t t, const uint64_t *v, bool ok)
{
	struct open_ev *o = wait_running();

	if (!o)
		return;
	o->cont = o->t0 != 0;	/* not its start: after a pause */
	o->t0 = t;
	o->msok = ok;
	if (ok)
		memcpy(ot.wait_ms0[o - ot.wait], v, sizeof(ot.wait_ms0[0]));
}

static void wait_begin(uint16_t event, uint64_t obj, const void *codeptr)
{
	uint64_t t, v[LWPROF_MS_COUNT];
	struct open_ev *o = NULL;
	uint32_t stack = here((uintptr_t)codeptr);
	bool ok;

	ok = omp_clock_ms(&t, v);	/* the wait starts here */
	wait_pause(t, v, ok);
	if (ot.nwait < NEST) {
		o = &ot.wait[ot.nwait];
		*o = (struct open_ev){ .event = event, .region = cur_region(),
				       .obj = obj, .codeptr = (uintptr_t)codeptr,
				       .stack = stack };
	}
	ot.nwait++;
	wait_resume(t, v, ok);
}

/*
 * The top wait ends: when (0: none was open).  An implicit barrier
 * alone in its implicit task, not paused, no microstates: held, for a
 * folded record.
 */
static uint64_t wait_end(void)
{
	uint64_t t, v[LWPROF_MS_COUNT];
	struct open_ev *o;
	bool ok;

	if (!ot.nwait)
		return 0;
	ok = omp_clock_ms(&t, v);
	o = wait_running();
	if (o && o->event == EXP_OMP_BARRIER_IMPLICIT && !o->cont &&
	    !(o->msok && ok) && ot.nwait == 1 && o->region &&
	    o->region == cur_region()) {
		if (ot.held.have & (HELD_BAR | HELD_TASK))
			held_out();
		ot.held.have |= HELD_BAR;
		ot.held.bar = *o;
		ot.held.bar_end = t;
	} else {
		wait_pause(t, v, ok);
	}
	ot.nwait--;
	wait_resume(t, v, ok);
	return t;
}

static uint16_t sync_event(int kind)
{
	switch (kind) {
	case ompt_sync_region_barrier_explicit:
		return EXP_OMP_BARRIER_EXPLICIT;
	case ompt_sync_region_taskwait:
	case ompt_sync_region_taskgroup:
		return EXP_OMP_TASKWAIT;
	case ompt_sync_region_reduction:
		return EXP_OMP_REDUCTION;
	default:
		return EXP_OMP_BARRIER_IMPLICIT;
	}
}

static void on_sync_wait(int kind, int endpoint, ompt_data_t *parallel,
			 ompt_data_t *task, const void *codeptr)
{
	uint64_t t;

	if (!enter())
		return;
	if (endpoint == ompt_scope_begin) {
		wait_begin(sync_event(kind), 0, codeptr);
	} else {
		t = wait_end();
		if (kind == ompt_sync_region_barrier_implicit ||
		    kind == ompt_sync_region_barrier_implicit_parallel)
			ot.bar_now = t;
	}
	tr_leave();
}

static uint16_t mutex_event(int kind)
{
	switch (kind) {
	case ompt_mutex_critical:
		return EXP_OMP_CRITICAL;
	case ompt_mutex_atomic:
		return EXP_OMP_ATOMIC;
	case ompt_mutex_ordered:
		return EXP_OMP_ORDERED;
	case ompt_mutex_lock:
	case ompt_mutex_nest_lock:
		return EXP_OMP_LOCK;
	default:
		return 0;	/* a test never waits */
	}
}

static void on_mutex_acquire(int kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t id, const void *codeptr)
{
	uint16_t ev = mutex_event(kind);

	if (!ev || !enter())
		return;
	wait_begin(ev, id, codeptr);
	tr_leave();
}

static void on_mutex_acquired(int kind, ompt_wait_id_t id, const void *codeptr)
{
	if (!mutex_event(kind) || !enter())
		return;
	wait_end();
	tr_leave();
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
			   ompt_data_t *task, int flags, int deps,
			   const void *codeptr)
{
	uint32_t stack;

	if (!(flags & ompt_task_explicit) || !enter())
		return;
	stack = omp_stack((uintptr_t)codeptr,
			  frame ? frame->enter_frame.value : 0,
			  frame ? frame->exit_frame.value : 0);
	task->value = XTASK | (stack < 0x10000 ? (uint64_t)stack << XTASK_SHIFT : 0) |
		      ((uintptr_t)codeptr & XTASK_PC);
	tr_leave();
}

/*
 * A thread leaves a task for another: an explicit task's run is a
 * span of its own, which pauses the wait it runs in.
 */
static void on_task_schedule(ompt_data_t *prior, int status, ompt_data_t *next)
{
	uint64_t t, v[LWPROF_MS_COUNT];
	struct open_ev *o;
	bool ok;

	if (!((prior && prior->value & XTASK) || (next && next->value & XTASK)) ||
	    !enter())
		return;
	ok = omp_clock_ms(&t, v);
	if (prior && prior->value & XTASK && ot.nxtask) {
		if (--ot.nxtask < NEST)
			emit(EXP_OMP_TASK, &ot.xtask[ot.nxtask], t, NULL);
		wait_resume(t, v, ok);
	}
	if (next && next->value & XTASK) {
		wait_pause(t, v, ok);
		if (ot.nxtask < NEST) {
			o = &ot.xtask[ot.nxtask];
			*o = (struct open_ev){ .t0 = t, .region = cur_region(),
				.base = ot.nwait,
				.stack = (next->value & ~XTASK) >> XTASK_SHIFT,
				.codeptr = next->value & XTASK_PC };
		}
		ot.nxtask++;
	}
	tr_leave();
}

static void on_reduction(int kind, int endpoint, ompt_data_t *parallel,
			 ompt_data_t *task, const void *codeptr)
{
	if (!enter())
		return;
	if (endpoint == ompt_scope_begin)
		wait_begin(EXP_OMP_REDUCTION, 0, codeptr);
	else
		wait_end();
	tr_leave();
}

static void emit_runtime(void)
{
	size_t len = strlen(rt_version), n;
	struct exp_rec_omp_runtime *r;

	n = sizeof(*r) + ((len + 8) & ~7UL);
	r = (struct exp_rec_omp_runtime *)tr_reserve(n);
	if (!r)
		return;
	memset(r, 0, n);
	r->hdr.type = EXP_REC_OMP_RUNTIME;
	r->hdr.size = n;
	r->time_ns = omp_now();
	r->pid = tr.pid;
	r->omp_version = rt_omp_version;
	memcpy(r->version, rt_version, len);
	tr_commit(n);
}

static int initialize(ompt_function_lookup_t lookup, int dev,
		      ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	static const struct {
		int event;
		ompt_callback_t cb;
	} cbs[] = {
		{ ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin },
		{ ompt_callback_thread_end, (ompt_callback_t)on_thread_end },
		{ ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin },
		{ ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end },
		{ ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task },
		{ ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait },
		{ ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire },
		{ ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired },
		{ ompt_callback_task_create, (ompt_callback_t)on_task_create },
		{ ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule },
		{ ompt_callback_reduction, (ompt_callback_t)on_reduction },
	};
	size_t i;

	if (!set)
		return 0;
	get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
	tr_in++;
	omp_stack_init();
	omp_clock_init();
	emit_runtime();
	tr_in--;
	for (i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++)
		set(cbs[i].event, cbs[i].cb);
	return 1;	/* active */
}

static void finalize(ompt_data_t *data)
{
	tr_in++;
	held_out();
	tr_flush_self();
	tr_in--;
}

/*
 * Called by the runtime at its start: the tool is active when collect
 * asked for OpenMP (LWPROF_TRACE's o).
 */
TR_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						 const char *runtime_version)
{
	static ompt_start_tool_result_t res = { initialize, finalize, { 0 } };

	if (!(tr_conf.kinds & TR_OMP))
		return NULL;
	rt_omp_version = omp_version;
	snprintf(rt_version, sizeof(rt_version), "%s",
		 runtime_version ? runtime_version : "");
	return &res;
}
