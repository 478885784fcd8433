// SPDX-License-Identifier: GPL-2.0
/* The OpenMP records' checks (libexp/omp.h). */
#include <string.h>

#include "libexp/omp.h"

const char *exp_omp_check(const struct lwprof_rec *h, __u32 *known,
			  unsigned int *at)
{
	const struct exp_rec_omp_runtime *rt = (const void *)h;
	const struct exp_rec_omp_stack *st = (const void *)h;
	const struct exp_rec_omp_event *ev = (const void *)h;
	const struct exp_rec_omp_fold *f = (const void *)h;
	__u32 size = h->size;

	*known = size;
	*at = 4;
	switch (h->type) {
	case EXP_REC_OMP_RUNTIME:
		if (size < sizeof(*rt) + 8)
			return "OpenMP runtime record too short";
		*at = sizeof(*rt);
		if (!memchr(rt->version, 0, size - sizeof(*rt)))
			return "OpenMP runtime record: version not NUL-terminated";
		return NULL;
	case EXP_REC_OMP_STACK:
		if (size < sizeof(*st) || (size - sizeof(*st)) / 8 < st->nr)
			return "OpenMP stack record too short for its frames";
		*known = sizeof(*st) + 8 * st->nr;
		*at = offsetof(struct exp_rec_omp_stack, id);
		return st->id ? NULL : "OpenMP stack record of id 0";
	case EXP_REC_OMP_EVENT:
		*known = sizeof(*ev) + (h->flags & EXP_OMPF_MS ? 8 * LWPROF_MS_COUNT : 0);
		if (size < *known)
			return "OpenMP event record too short";
		*at = offsetof(struct exp_rec_omp_event, event);
		if (!ev->event)	/* one of a newer minor's: skipped by readers */
			return "OpenMP event 0";
		*at = offsetof(struct exp_rec_omp_event, pid);
		if (!ev->pid || !ev->tid)
			return "OpenMP event of pid or tid 0";
		*at = offsetof(struct exp_rec_omp_event, start_ns);
		return ev->start_ns > ev->end_ns ? "OpenMP event ends before it starts" :
			NULL;
	case EXP_REC_OMP_FOLD:
		*known = exp_omp_fold_size(h->flags);
		if (size < *known)
			return "OpenMP folded record too short";
		*at = offsetof(struct exp_rec_omp_fold, pid);
		if (!f->pid || !f->tid)
			return "OpenMP folded record of pid or tid 0";
		*at = offsetof(struct exp_rec_omp_fold, bar_start);
		if (f->bar_start > f->end)
			return "OpenMP folded record: its barrier ends before it starts";
		*at = sizeof(*f);
		if ((h->flags & EXP_OMPF_FOLD_IDLE) && f->tail[0] > f->start_ns)
			return "OpenMP folded record: idle after its task's start";
		return NULL;
	default:
		return "not an OpenMP record";
	}
}

/* An event of the folded record f: its header and thread filled. */
static struct exp_rec_omp_event *fold_event(const struct exp_rec_omp_fold *f,
					    struct exp_rec_omp_event *e,
					    __u16 event, __u64 t0, __u64 t1)
{
	memset(e, 0, sizeof(*e));
	e->hdr.type = EXP_REC_OMP_EVENT;
	e->hdr.size = sizeof(*e);
	e->event = event;
	e->cpu = f->cpu;
	e->pid = f->pid;
	e->tid = f->tid;
	e->start_ns = t0;
	e->end_ns = t1;
	return e;
}

unsigned int exp_omp_unfold(const struct exp_rec_omp_fold *f,
			    struct exp_rec_omp_event *ev)
{
	const __u64 *tail = f->tail;
	const struct exp_omp_fold_region *g;
	__u64 end = f->start_ns + f->end;
	struct exp_rec_omp_event *e = ev;

	if (f->hdr.flags & EXP_OMPF_FOLD_IDLE)
		fold_event(f, e++, EXP_OMP_IDLE, *tail++, f->start_ns);
	fold_event(f, e, EXP_OMP_BARRIER_IMPLICIT, f->start_ns + f->bar_start, end);
	e->stack = f->bar_stack;
	e->region = f->region;
	e->codeptr = f->bar_codeptr;
	e = fold_event(f, e + 1, EXP_OMP_ITASK, f->start_ns, end);
	e->region = f->region;
	e->obj = (__u64)f->team << 32 | f->index;
	if (f->hdr.flags & EXP_OMPF_FOLD_REGION) {
		g = (const void *)tail;
		e = fold_event(f, e + 1, EXP_OMP_REGION, f->start_ns - g->before,
			       end + g->after);
		e->stack = g->stack;
		e->region = f->region;
		e->obj = g->asked;
		e->codeptr = g->codeptr;
	}
	return e - ev + 1;
}
