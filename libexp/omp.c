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
	default:
		return "not an OpenMP record";
	}
}
