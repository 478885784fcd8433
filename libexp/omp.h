/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenMP records (format 1.8; 1.12: the folded record,
 * docs/design/experiment-format.md,
 * docs/guide/openmp.md): what the OMPT tool of the tracing library
 * (ompt/) writes into a process's trace.PID.rec when an OpenMP runtime
 * that implements OMPT starts it.  Types 48-55 are OpenMP's; a reader
 * of an older minor skips them by their size.
 */
#ifndef LWPROF_LIBEXP_OMP_H
#define LWPROF_LIBEXP_OMP_H

#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"

#define EXP_REC_OMP_RUNTIME	48	/* struct exp_rec_omp_runtime */
#define EXP_REC_OMP_STACK	49	/* struct exp_rec_omp_stack */
#define EXP_REC_OMP_EVENT	50	/* struct exp_rec_omp_event */
#define EXP_REC_OMP_FOLD	51	/* struct exp_rec_omp_fold (1.12) */

/*
 * The runtime, once per process, when it started the tool: the OpenMP
 * version it implements (201611 ...) and its own description
 * (NUL-terminated, padded with NULs to 8 bytes).
 */
struct exp_rec_omp_runtime {
	struct lwprof_rec hdr;	/* EXP_REC_OMP_RUNTIME, flags 0 */
	__u64 time_ns;
	__u32 pid;
	__u32 omp_version;
	char version[];
};

_Static_assert(sizeof(struct exp_rec_omp_runtime) == 24, "layout");

/*
 * A call stack the events below name by id (the process's, from 1): nr
 * return addresses, the innermost first, the tool's own frames left out.
 */
struct exp_rec_omp_stack {
	struct lwprof_rec hdr;	/* EXP_REC_OMP_STACK, flags 0 */
	__u32 pid;
	__u32 id;
	__u32 nr;
	__u32 pad0;		/* zero */
	__u64 ips[];
};

_Static_assert(sizeof(struct exp_rec_omp_stack) == 24, "layout");

/* What an event is (exp_rec_omp_event.event). */
enum exp_omp_event {
	EXP_OMP_REGION = 1,	/* a parallel region, on its encountering thread */
	EXP_OMP_ITASK,		/* an implicit task: a thread's part in a region */
	/* the waits: */
	EXP_OMP_IDLE,		/* a team's thread between regions */
	EXP_OMP_BARRIER_IMPLICIT,	/* the barrier ending a region or a worksharing loop */
	EXP_OMP_BARRIER_EXPLICIT,	/* #pragma omp barrier */
	EXP_OMP_LOCK,		/* omp_set_lock, omp_set_nest_lock */
	EXP_OMP_CRITICAL,
	EXP_OMP_ORDERED,
	EXP_OMP_ATOMIC,
	EXP_OMP_REDUCTION,
	EXP_OMP_TASKWAIT,	/* taskwait, taskgroup's end */
	/* not a wait: */
	EXP_OMP_TASK,		/* an explicit task's run on a thread */
	EXP_OMP_EVENT_MAX
};

#define EXP_OMPF_MS	0x1	/* the module's microstates follow */
#define EXP_OMPF_CONT	0x2	/* a wait's segment after a pause: the same
				 * wait as the thread's last of its event */
#define EXP_OMPF_KNOWN	0x3u

/*
 * An event of one thread, written when it ends: from start_ns to end_ns
 * (CLOCK_MONOTONIC, as every record's time).  region: the process's
 * number of the parallel region it is in or is (0: none, as for the
 * initial thread's waits outside any); stack: the id of its call stack
 * (a REGION's: where it was encountered; a wait's: where it waited; a
 * TASK's: where it was created; 0: none).  obj: a REGION's threads
 * asked, an ITASK's thread number (low 32 bits) and team size (high), a
 * lock's wait id.  A wait in which the thread ran explicit tasks is
 * written as its segments between them, each TASK run as a span of its
 * own (codeptr: its construct's); waits do not overlap (a reduction's
 * barrier pauses the reduction).  Readers skip events they do not know
 * (a newer minor's).  With EXP_OMPF_MS the
 * module's microstates over the event follow, LWPROF_MS_COUNT __u64 (ns
 * in each, summing to its time).
 */
struct exp_rec_omp_event {
	struct lwprof_rec hdr;	/* EXP_REC_OMP_EVENT, flags EXP_OMPF_* */
	__u16 event;		/* enum exp_omp_event */
	__u16 cpu;
	__u32 pid;
	__u32 tid;
	__u32 stack;
	__u64 start_ns;
	__u64 end_ns;
	__u64 region;
	__u64 obj;
	__u64 codeptr;		/* the runtime's codeptr_ra: the return address into the program */
	__u64 ms[];
};

_Static_assert(sizeof(struct exp_rec_omp_event) == 64, "layout");

/*
 * A thread's part in a region whose one wait was the implicit barrier
 * that ends it, in one record instead of up to four events (a program
 * of many small regions writes less than half the bytes): the implicit
 * task, from start_ns to start_ns + end, and its barrier's wait, from
 * start_ns + bar_start to the same end, at stack bar_stack, codeptr
 * bar_codeptr; then with EXP_OMPF_FOLD_IDLE a __u64, the start of the
 * thread's idle time that ended at start_ns; then with
 * EXP_OMPF_FOLD_REGION a struct exp_omp_fold_region, the region itself,
 * of which the thread is the encountering thread.  The events' other
 * fields are those the tool writes for them (0: none).
 * exp_omp_unfold() gives the events, as the tool would have written
 * them and in that order.
 */
struct exp_rec_omp_fold {
	struct lwprof_rec hdr;	/* EXP_REC_OMP_FOLD, flags EXP_OMPF_FOLD_* */
	__u32 pid;
	__u32 tid;
	__u16 cpu;
	__u16 pad0;		/* zero */
	__u32 bar_stack;
	__u32 index;		/* the thread's number in the team */
	__u32 team;		/* the team's size */
	__u64 region;
	__u64 start_ns;
	__u32 bar_start;	/* ns after start_ns */
	__u32 end;		/* ns after start_ns */
	__u64 bar_codeptr;
	__u64 tail[];
};

_Static_assert(sizeof(struct exp_rec_omp_fold) == 64, "layout");

struct exp_omp_fold_region {
	__u32 before;		/* ns from the region's start to start_ns */
	__u32 after;		/* ns from the task's end to the region's */
	__u32 stack;
	__u32 asked;		/* threads asked */
	__u64 codeptr;
};

_Static_assert(sizeof(struct exp_omp_fold_region) == 24, "layout");

#define EXP_OMPF_FOLD_IDLE	0x1
#define EXP_OMPF_FOLD_REGION	0x2
#define EXP_OMPF_FOLD_KNOWN	0x3u

/* The bytes of a folded record of these flags. */
static inline __u32 exp_omp_fold_size(__u16 flags)
{
	return sizeof(struct exp_rec_omp_fold) +
	       (flags & EXP_OMPF_FOLD_IDLE ? 8 : 0) +
	       (flags & EXP_OMPF_FOLD_REGION ? sizeof(struct exp_omp_fold_region) : 0);
}

/*
 * A checked folded record's events into ev[4], in the order the tool
 * writes them unfolded (idle, barrier, implicit task, region): how many.
 */
unsigned int exp_omp_unfold(const struct exp_rec_omp_fold *f,
			    struct exp_rec_omp_event *ev);

/*
 * Checks of a record of these types whose size is at least its fixed
 * part: NULL, or what is wrong and *at the offset of the field at fault;
 * *known: the bytes this format knows (the rest is a newer minor's).
 */
const char *exp_omp_check(const struct lwprof_rec *h, __u32 *known,
			  unsigned int *at);

#endif
