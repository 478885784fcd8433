// SPDX-License-Identifier: GPL-2.0
/*
 * The heap tracer's records (format 1.7, libexp/trace.h): the checks of
 * the thread mark, stack and heap records.
 */
#include <stddef.h>
#include <stdint.h>

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
	if ((s->hdr.flags & EXP_TSK_TRUNC) && s->parent)
		return "stack record cut short under a parent";
	*at = offsetof(struct exp_rec_tstack, id);
	if (!s->id || s->id + (__u64)s->nr - 1 > UINT32_MAX)
		return "stack record of id 0 or ids past 2^32";
	*at = offsetof(struct exp_rec_tstack, parent);
	if (s->parent >= s->id)
		return "stack record's parent not defined before it";
	*at = offsetof(struct exp_rec_tstack, nr);
	if (!s->nr || s->nr > EXP_TSTACK_MAX)
		return "stack record of no nodes or more than EXP_TSTACK_MAX";
	*at = offsetof(struct exp_rec_tstack, pad0);
	if (s->pad0)
		return "stack record padding not zero";
	*at = 4;
	if (s->hdr.size != exp_tstack_size(s))
		return "stack record size not that of its pcs";
	return NULL;
}

const char *exp_theap_check(const struct exp_rec_theap *h, unsigned int *at)
{
	const struct exp_trace_event_info *ev;
	const struct exp_theap_ent *e;
	__u32 i;

	*at = 2;
	if (h->hdr.flags)
		return "heap record flags not zero";
	*at = offsetof(struct exp_rec_theap, nent);
	if (!h->nent)
		return "heap record without entries";
	*at = 4;
	if (h->hdr.size != exp_theap_size(h))
		return "heap record size not that of its entries";
	*at = offsetof(struct exp_rec_theap, slice_ns);
	if (!h->slice_ns)
		return "heap record of slices of 0 ns";
	for (i = 0; i < h->nent; i++) {
		e = &h->e[i];
		*at = (const __u8 *)e - (const __u8 *)h;
		ev = exp_trace_event(e->event);
		if (!ev || (ev->cls != EXP_TC_ALLOC && ev->cls != EXP_TC_FREE))
			return "heap record entry of an event not of the heap";
		if (e->flags & ~EXP_THE_KNOWN)
			return "heap record entry flags unknown";
		if (!(e->flags & EXP_THE_FREE) &&
		    (ev->cls != EXP_TC_ALLOC || e->age || !e->stack))
			return "heap record entry: an allocation without its stack, of a free, or aged";
		if ((e->flags & EXP_THE_FREE) && !e->stack && e->age)
			return "heap record entry: an untraced block's free with an age";
		if (!e->count)
			return "heap record entry of no blocks";
		if (e->first_ns >= h->slice_ns || e->pad0)
			return "heap record entry's first call outside its slice, or padding";
	}
	return NULL;
}
