// SPDX-License-Identifier: GPL-2.0
/*
 * perf's records read (perf.h): the event an id names, the sample_id_all
 * trailer of a non-sample record, a PERF_RECORD_SAMPLE of the source's
 * sample_type.  Nothing is trusted beyond the record's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/backend/perf/perf.h"

static int by_id(const void *a, const void *b)
{
	const struct pev_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

const struct pev_id *psrc_id(const struct psrc *p, __u64 id)
{
	struct pev_id key = { .id = id };

	return bsearch(&key, p->ids, p->nr_ids, sizeof(key), by_id);
}

void psrc_ids_sort(struct psrc *p)
{
	qsort(p->ids, p->nr_ids, sizeof(*p->ids), by_id);
}

/* The sample_id_all trailer of a non-sample record (TID TIME CPU ID). */
int pconv_trailer(const struct perf_event_header *h, struct ptrail *t)
{
	const unsigned char *end = (const unsigned char *)h + h->size;

	if (h->size < sizeof(*h) + 32)
		return -EINVAL;
	memcpy(&t->pid, end - 32, 4);
	memcpy(&t->tid, end - 28, 4);
	memcpy(&t->time, end - 24, 8);
	memcpy(&t->cpu, end - 16, 4);
	memcpy(&t->id, end - 8, 8);
	return 0;
}

/*
 * A PERF_RECORD_SAMPLE of our sample_type (IDENTIFIER IP TID TIME CPU
 * PERIOD CALLCHAIN REGS_USER [STACK_USER]) into s; -EINVAL if it does not
 * fit its size.
 */
int pconv_sample(const struct psrc *p, const struct perf_event_header *h,
		 struct psample *s)
{
	const __u64 *q = (const __u64 *)(h + 1);
	const __u64 *end = (const __u64 *)((const unsigned char *)h + h->size);
	__u64 n;

	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	if (end - q < 6)
		return -EINVAL;
	s->id = *q++;
	s->ip = *q++;
	memcpy(&s->pid, q, 4);
	memcpy(&s->tid, (const unsigned char *)q + 4, 4);
	q++;
	s->time = *q++;
	memcpy(&s->cpu, q++, 4);
	s->period = *q++;
	if (q >= end)
		return -EINVAL;
	s->nr = *q++;
	if (s->nr > (__u64)(end - q))
		return -EINVAL;
	s->chain = q;
	q += s->nr;
	if (q >= end)
		return -EINVAL;
	s->abi = *q++;
	if (s->abi) {
		if ((__u64)(end - q) < PERF_NR_UREGS)
			return -EINVAL;
		s->regs = q;
		q += PERF_NR_UREGS;
	}
	if (!(p->sample_type & PERF_SAMPLE_STACK_USER))
		return 0;
	if (q >= end)
		return -EINVAL;
	n = *q++;
	if (!n)
		return 0;
	if (n % 8 || n / 8 + 1 > (__u64)(end - q))
		return -EINVAL;
	s->stack = (const unsigned char *)q;
	q += n / 8;
	s->dyn = *q;
	if (s->dyn > n)
		s->dyn = n;
	if (s->dyn > p->stack_bytes)	/* what we asked for, at most */
		s->dyn = p->stack_bytes;
	return 0;
}
