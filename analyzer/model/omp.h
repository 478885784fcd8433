/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenMP in the model (docs/guide/openmp.md): what the OMPT tool recorded
 * (libexp/omp.h), once loaded (load/omp.c): the parallel regions with
 * the stack that encountered each, every thread's implicit tasks (its
 * part in a region) and waits (barriers, locks, critical sections ...,
 * and idle time between regions).  The view modes (viewmode/omp.c) and
 * the metrics ompwork and ompwait read it.
 */
#ifndef LWPROF_ANALYZER_MODEL_OMP_H
#define LWPROF_ANALYZER_MODEL_OMP_H

#include "analyzer/model/model.h"

/* What a thread waits in, as its <OMP-NAME> pseudo-function names it. */
enum an_omp_kind {
	AN_OMP_OVERHEAD,	/* in the runtime, not waiting */
	AN_OMP_IDLE,		/* a team's thread between regions */
	AN_OMP_BARRIER_IMPLICIT,
	AN_OMP_BARRIER_EXPLICIT,
	AN_OMP_LOCK,
	AN_OMP_CRITICAL,
	AN_OMP_ORDERED,
	AN_OMP_ATOMIC,
	AN_OMP_REDUCTION,
	AN_OMP_TASKWAIT,
	AN_OMP_NKINDS
};

/* "implicit_barrier": <OMP-implicit_barrier> */
const char *an_omp_kind_name(int k);

struct an_omp_region {
	uint32_t exp, pid, thr;	/* thr: the encountering thread */
	uint32_t stack;		/* node of the stack that encountered it, or UINT32_MAX */
	uint64_t id;		/* the process's number of it */
	uint64_t t0, t1;
	uint64_t codeptr;	/* the return address into the program */
	uint32_t team;		/* threads asked */
};

/* One thread's implicit task or wait. */
struct an_omp_span {
	uint32_t thr;
	uint16_t kind;		/* a wait's AN_OMP_*; an implicit task's: 0 */
	uint16_t index;		/* an implicit task's thread number in its team;
				 * a wait's: 1 when it goes on from the thread's
				 * last of its kind, after a pause (tasks it ran) */
	uint64_t t0, t1;
	uint32_t region;	/* its region's index, or UINT32_MAX */
	uint32_t ms;		/* a wait's microstates in ms, or UINT32_MAX */
	uint32_t stack;		/* a wait's stack (node), or UINT32_MAX */
	uint32_t sample;	/* a wait's row of the sample table */
	uint64_t obj;		/* a lock's wait id */
	uint64_t codeptr;
};

struct an_omp_rt {
	uint32_t exp, pid;
	char *version;		/* the runtime's own words */
};

struct an_omp {
	struct an_vec regions;	/* struct an_omp_region, by id per process */
	struct an_vec tasks;	/* struct an_omp_span, by thread then start */
	struct an_vec waits;	/* ... */
	struct an_vec xtasks;	/* ... explicit tasks' runs (stack: its creator's) */
	struct an_vec ms;	/* uint64_t[LWPROF_MS_COUNT] per wait that has them */
	struct an_vec rts;	/* struct an_omp_rt, per process */
	uint32_t *task_first;	/* per thread: its first task; threads.n + 1 */
	uint32_t *wait_first;
	uint32_t *xtask_first;
	uint8_t *traced;	/* per thread: its process ran the OMPT tool */
	size_t nthr;
	size_t first_wait_row;	/* the waits' rows: from here, */
	uint32_t *row_wait;	/* ... each one's wait */
	size_t nrow_wait;
};

/* Where thread thr was at time t. */
struct an_omp_at {
	uint32_t region;	/* the innermost region it worked in, or UINT32_MAX */
	bool worker;		/* ... as a thread other than the encountering one */
	int wait;		/* the AN_OMP_* it waited in, or -1 */
	bool traced;		/* the OMPT tool recorded the thread: no wait is none */
};

void an_omp_lookup(const struct an_omp *o, uint32_t thr, uint64_t t,
		   struct an_omp_at *at);
/* The kind of the wait whose row sample i is, or -1. */
int an_omp_sample_wait(const struct an_omp *o, size_t i);
/*
 * The explicit task whose run sample i (of thread thr at time t) was
 * taken in, the innermost; a wait's row: the task the wait is in (its
 * middle, not its ends, where a task it paused for begins or ends).
 * NULL: none.
 */
const struct an_omp_span *an_omp_sample_xtask(const struct an_omp *o, size_t i,
					      uint32_t thr, uint64_t t);
size_t an_omp_nregions(const struct an_omp *o);
const struct an_omp_region *an_omp_region(const struct an_omp *o, uint32_t r);
const uint64_t *an_omp_wait_ms(const struct an_omp *o,
			       const struct an_omp_span *w);
void an_omp_free(struct an_omp *o);

#endif
