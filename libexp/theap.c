// SPDX-License-Identifier: GPL-2.0
/*
 * The heap tracer's records (format 1.10, libexp/trace.h): the checks of
 * the stack, heap and deflated records.
 */
#include <stddef.h>
#include <stdint.h>

#include "libexp/trace.h"

const char *exp_tstack_check(const struct exp_rec_tstack *s, unsigned int *at)
{
	const __u8 *p = (const __u8 *)(s + 1), *end = (const __u8 *)s + s->hdr.size;
	const struct exp_tchain *c;
	__u32 i;

	*at = 2;
	if (s->hdr.flags)
		return "stack record flags not zero";
	*at = offsetof(struct exp_rec_tstack, pid);
	if (!s->pid)
		return "stack record of pid 0";
	for (i = 0; i < s->nchain; i++) {
		c = (const void *)p;
		*at = p - (const __u8 *)s;
		if (p + sizeof(*c) > end || p + sizeof(*c) + 8 * c->nr > end)
			return "stack record too short for its chains";
		if (!c->tid)
			return "stack chain of tid 0";
		if (c->flags & ~EXP_TSK_KNOWN)
			return "stack chain flags unknown";
		if ((c->flags & EXP_TSK_TRUNC) && c->parent)
			return "stack chain cut short under a parent";
		if (!c->id || c->id + (__u64)c->nr - 1 > UINT32_MAX)
			return "stack chain of id 0 or ids past 2^32";
		if (c->parent >= c->id)
			return "stack chain's parent not defined before it";
		if (!c->nr || c->nr > EXP_TSTACK_MAX)
			return "stack chain of no nodes or more than EXP_TSTACK_MAX";
		p += sizeof(*c) + 8 * c->nr;
	}
	*at = 4;
	return p != end ? "stack record size not that of its chains" : NULL;
}

const char *exp_tz_check(const struct exp_rec_tz *z, unsigned int *at)
{
	const __u8 *p;

	*at = 2;
	if (z->hdr.flags)
		return "deflated record flags not zero";
	*at = offsetof(struct exp_rec_tz, raw);
	if (!z->raw || z->raw > EXP_TZ_MAX || z->raw % 8)
		return "deflated records' size 0, past EXP_TZ_MAX or not of whole records";
	*at = 4;
	if (z->hdr.size != ((sizeof(*z) + (__u64)z->zbytes + 7) & ~7ULL))
		return "deflated record size not that of its stream";
	for (p = z->z + z->zbytes; p < (const __u8 *)z + z->hdr.size; p++)
		if (*p) {
			*at = p - (const __u8 *)z;
			return "deflated record padding not zero";
		}
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
	*at = offsetof(struct exp_rec_theap, pid);
	if (!h->pid)
		return "heap record of pid 0";
	*at = offsetof(struct exp_rec_theap, pad0);
	if (h->pad0)
		return "heap record padding not zero";
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
