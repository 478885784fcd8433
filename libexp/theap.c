// SPDX-License-Identifier: GPL-2.0
/*
 * Heap records with interned stacks (format 1.7, libexp/trace.h): the
 * checks of the thread mark, stack and heap records, and their reading,
 * which follows each thread of a file through the marks to undo the
 * differences the heap records hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/trace.h"

const char *exp_tmark_check(const struct exp_rec_tmark *m, unsigned int *at)
{
	*at = 2;
	if (m->hdr.flags)
		return "thread mark flags not zero";
	*at = 4;
	if (m->hdr.size != sizeof(*m))
		return "thread mark size not 16";
	*at = offsetof(struct exp_rec_tmark, pid);
	return !m->pid || !m->tid ? "thread mark of pid or tid 0" : NULL;
}

const char *exp_tstack_check(const struct exp_rec_tstack *s, unsigned int *at)
{
	*at = 2;
	if (s->hdr.flags & ~EXP_TSK_KNOWN)
		return "stack record flags unknown";
	*at = offsetof(struct exp_rec_tstack, id);
	if (!s->id)
		return "stack record of id 0";
	*at = offsetof(struct exp_rec_tstack, nr);
	if (!s->nr || s->nr > EXP_TSTACK_MAX)
		return "stack record of no pcs or more than EXP_TSTACK_MAX";
	*at = 4;
	if (s->hdr.size != sizeof(*s) + 8 * s->nr)
		return "stack record size not that of its pcs";
	return NULL;
}

const char *exp_theap_check(const struct exp_rec_theap *h, unsigned int *at)
{
	const __u16 f = h->hdr.flags;
	const struct exp_trace_event_info *e = exp_trace_event(f & EXP_THF_EVENT);

	*at = 2;
	if (f & ~EXP_THF_KNOWN)
		return "heap record flags unknown";
	if (!e || (e->cls != EXP_TC_ALLOC && e->cls != EXP_TC_FREE))
		return "heap record of an event not of the heap";
	if (e->cls == EXP_TC_ALLOC && !(f & EXP_THF_SITE))
		return "heap allocation without its site";
	if ((f & EXP_THF_BYTES) && !(f & EXP_THF_SITE))
		return "heap record with bytes but no site";
	*at = 4;
	if (h->hdr.size != exp_theap_size(f))
		return "heap record size not that of its fields";
	*at = offsetof(struct exp_rec_theap, dt);
	if ((f & EXP_THF_TIME) && h->dt)
		return "heap record with a whole time and a difference";
	*at = offsetof(struct exp_rec_theap, daddr);
	if ((f & EXP_THF_ADDR) && h->daddr)
		return "heap record with a whole address and a difference";
	return NULL;
}

void exp_theap_begin(struct exp_theap_scan *s)
{
	memset(s, 0, sizeof(*s));
}

void exp_theap_end(struct exp_theap_scan *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int exp_theap_mark(struct exp_theap_scan *s, const struct exp_rec_tmark *m)
{
	struct exp_theap_thr *v;
	size_t i;

	if (s->pid != m->pid) {	/* a file is one process's: a new one forgets */
		s->n = 0;
		s->pid = m->pid;
	}
	s->tid = m->tid;
	for (i = 0; i < s->n; i++)
		if (s->v[i].tid == m->tid) {
			s->cur = &s->v[i];
			return 0;
		}
	if (s->n == s->cap) {
		v = realloc(s->v, (s->cap ? 2 * s->cap : 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = s->cap ? 2 * s->cap : 16;
	}
	s->cur = &s->v[s->n++];
	memset(s->cur, 0, sizeof(*s->cur));
	s->cur->tid = m->tid;
	return 0;
}

int exp_theap_view(struct exp_theap_scan *s, const struct exp_rec_theap *h,
		   struct exp_tcall *v, const char **why)
{
	const __u16 f = h->hdr.flags;
	struct exp_theap_thr *t = s->cur;
	const __u64 *m = h->more;
	__u64 bytes = 0;
	__u32 site[2] = { 0, 0 };

	if (!t) {
		*why = "heap record before any thread mark";
		return -1;
	}
	if (!t->have && (f & (EXP_THF_TIME | EXP_THF_ADDR | EXP_THF_CPU)) !=
	    (EXP_THF_TIME | EXP_THF_ADDR | EXP_THF_CPU)) {
		*why = "heap record of differences before its thread's whole values";
		return -1;
	}
	if (f & EXP_THF_SITE) {
		memcpy(site, m++, 8);
		bytes = site[1];
	}
	t->time = f & EXP_THF_TIME ? *m++ : t->time + h->dt;
	t->addr = f & EXP_THF_ADDR ? *m++ : t->addr + (__s64)h->daddr;
	if (f & EXP_THF_BYTES)
		bytes = *m++;
	memset(v, 0, sizeof(*v));
	v->addr2 = f & EXP_THF_ADDR2 ? *m++ : 0;
	if (f & EXP_THF_CPU)
		t->cpu = *m++;
	t->have = 1;
	v->type = EXP_REC_THEAP;
	v->event = f & EXP_THF_EVENT;
	v->pid = s->pid;
	v->tid = s->tid;
	v->cpu = t->cpu;
	v->fd = -1;
	v->start_ns = v->time_ns = t->time;
	v->addr = t->addr;
	v->bytes = bytes;
	v->stack_id = site[0];
	return 0;
}
