// SPDX-License-Identifier: GPL-2.0
/*
 * Delta stack copies for the perf backend (uapi/lwprof_record.h, struct
 * lwprof_sdelta; the module's --stack-delta): perf copies the whole top of
 * the user stack at every sample, and most of it is what the thread's
 * previous sample copied.  Each sample of a thread with a stack copy is a
 * base (LWPROF_RS_SBASE); when the thread's previous one went into the
 * same ring, the copy goes as the 64-byte blocks that differ from it
 * (LWPROF_RS_SDELTA), if that is smaller.  The reader rebuilds the copy
 * from the base (libexp/sdelta.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/sample.h"
#include "perf_conv.h"

#define BLK	LWPROF_SDELTA_BLOCK

int pdelta_init(struct pconv *c)
{
	c->delta = calloc(1, c->scratch_len + 64 + c->p->stack_bytes / BLK / 8 + 8);
	return c->delta ? 0 : -ENOMEM;
}

/* Block i of a copy at sp of size bytes: [*lo, *hi) in addresses. */
static void block(__u64 sp, __u32 size, __u32 i, __u64 *lo, __u64 *hi)
{
	__u64 a = (sp & ~(__u64)(BLK - 1)) + (__u64)BLK * i;

	*lo = a < sp ? sp : a;
	*hi = a + BLK < sp + size ? a + BLK : sp + size;
}

/* Does [lo, hi) of the new copy equal the base's bytes there? */
static bool same(const struct pthr *t, const unsigned char *copy, __u64 sp,
		 __u64 lo, __u64 hi)
{
	if (lo < t->base_sp || hi > t->base_sp + t->base_size)
		return false;
	return !memcmp(copy + (lo - sp), t->base + (lo - t->base_sp), hi - lo);
}

/*
 * r (a full copy) as a delta against t's base into c->delta; NULL when
 * that would not be smaller.
 */
static struct lwprof_rec_sample *encode(struct pconv *c, const struct pthr *t,
					const struct lwprof_rec_sample *r)
{
	const unsigned char *copy = exp_sample_stack(r, LWPROF_NR_REGS);
	__u64 sp = exp_sample_regs(r)[LWPROF_REG_SP], lo, hi, head;
	__u32 size = r->stack_size, nb, nw, i, lit = 0, nlit = 0;
	struct lwprof_rec_sample *d = (void *)c->delta;
	struct lwprof_sdelta *h;
	__u64 *bits;
	unsigned char *q;

	head = exp_sample_frames_end(r, LWPROF_NR_REGS);
	nb = (sp + size - (sp & ~(__u64)(BLK - 1)) + BLK - 1) / BLK;
	nw = (nb + 63) / 64;
	memcpy(d, r, head);
	h = (void *)((unsigned char *)d + head);
	memset(h, 0, sizeof(*h) + 8 * (size_t)nw);
	bits = (__u64 *)(h + 1);
	q = (unsigned char *)(bits + nw);
	for (i = 0; i < nb; i++) {
		block(sp, size, i, &lo, &hi);
		if (same(t, copy, sp, lo, hi))
			continue;
		bits[i / 64] |= 1ULL << (i % 64);
		memcpy(q + lit, copy + (lo - sp), hi - lo);
		lit += hi - lo;
		nlit++;
	}
	d->stack_size = sizeof(*h) + 8 * nw + lit;
	if (d->stack_size >= size)
		return NULL;
	h->sp = sp;
	h->base_time_ns = t->base_time;
	h->size = size;
	h->nr_blocks = nb;
	h->nr_literal = nlit;
	memset(q + lit, 0, (8 - d->stack_size % 8) % 8);
	d->hdr.flags |= LWPROF_RS_SDELTA | LWPROF_RS_SBASE;
	d->hdr.size = head + ((d->stack_size + 7) & ~7U);
	return d;
}

void pdelta_put(struct pconv *c, struct pthr *t,
		struct lwprof_rec_sample *r)
{
	__u32 ring = prec_ring(c, r->cpu);
	const struct lwprof_rec_sample *out = r;
	unsigned char *nb;

	if (!r->stack_size || !(r->hdr.flags & LWPROF_RS_REGS) || !t) {
		prec_put(c, r, r->cpu, r->time_ns);
		return;
	}
	if (!c->p->o->no_sdelta && t->base && t->base_ring == ring &&
	    t->base_time != r->time_ns)
		out = encode(c, t, r);
	if (!out || out == r) {
		r->hdr.flags |= LWPROF_RS_SBASE;
		out = r;
	}
	if (!prec_put(c, out, r->cpu, r->time_ns))
		return;	/* not in the file: not a base */
	/* This copy is the thread's next base. */
	if (!t->base || t->base_cap < r->stack_size) {
		nb = realloc(t->base, r->stack_size);
		if (!nb) {
			free(t->base);
			t->base = NULL;
			return;
		}
		t->base = nb;
		t->base_cap = r->stack_size;
	}
	memcpy(t->base, exp_sample_stack(r, LWPROF_NR_REGS), r->stack_size);
	t->base_sp = exp_sample_regs(r)[LWPROF_REG_SP];
	t->base_size = r->stack_size;
	t->base_time = r->time_ns;
	t->base_ring = ring;
}
