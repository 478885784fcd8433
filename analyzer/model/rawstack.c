// SPDX-License-Identifier: GPL-2.0
/*
 * Raw stacks: the user ips of a sample, interned per address space while
 * the records are read, one lookup a sample.  The pool (an->ld->rawips) keeps
 * each distinct stack as two header words (address space and length;
 * flags) and its ips; the table's slots point into it.  The reader
 * prefetches the slot, then the pool entry, of the samples ahead of the
 * one it handles (the lookups are memory bound, not hash bound).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"

uint64_t an_raw_hash(uint32_t as, const uint64_t *ips, uint32_t n,
		     uint32_t flags)
{
	return an_hash(ips, n * 8, ((uint64_t)as << 8) | flags);
}

/* stage 0: the slot; stage 1: the pool entry the slot points at */
void an_raw_prefetch(struct an *an, uint64_t hash, int stage)
{
	struct an_htab *t = &an->ld->raws_t;
	const struct an_hslot *s;

	if (!t->cap)
		return;
	s = &t->s[hash & (t->cap - 1)];
	if (!stage) {
		__builtin_prefetch(s);
		return;
	}
	if (s->hash == hash) {
		const uint64_t *p = &AN_VEC(an->ld->rawips, uint64_t, s->aux);

		__builtin_prefetch(p);
		__builtin_prefetch(p + 8);
	}
}

uint32_t an_raw_intern_h(struct an *an, uint64_t hash, uint32_t as,
			 const uint64_t *ips, uint32_t n, uint32_t flags)
{
	struct an_htab *t = &an->ld->raws_t;
	uint64_t h0 = ((uint64_t)as << 32) | n, *p;
	struct an_raw *r;
	size_t j, off;

	hash = hash ? hash : 1;
	for (j = t->cap ? hash & (t->cap - 1) : 0; t->cap && t->s[j].hash;
	     j = (j + 1) & (t->cap - 1)) {
		if (t->s[j].hash != hash)
			continue;
		p = &AN_VEC(an->ld->rawips, uint64_t, t->s[j].aux);
		if (p[0] == h0 && p[1] == flags && !memcmp(p + 2, ips, n * 8))
			return t->s[j].id;
	}
	off = an->ld->rawips.n;
	if (off + n + 2 > UINT32_MAX || an_vec_grow(&an->ld->rawips, off + n + 2))
		return UINT32_MAX;
	r = an_vec_push(&an->ld->raws);
	if (!r)
		return UINT32_MAX;
	p = &AN_VEC(an->ld->rawips, uint64_t, off);
	p[0] = h0;
	p[1] = flags;
	memmove(p + 2, ips, n * 8);
	an->ld->rawips.n += n + 2;
	r->as = as;
	r->n = n;
	r->off = off + 2;
	r->flags = flags;
	r->node = UINT32_MAX;
	if (an_htab_add_aux(t, hash, an->ld->raws.n - 1, off)) {
		an->ld->raws.n--;
		an->ld->rawips.n = off;
		return UINT32_MAX;
	}
	return an->ld->raws.n - 1;
}

uint32_t an_raw_intern(struct an *an, uint32_t as, const uint64_t *ips,
		       uint32_t n, uint32_t flags)
{
	return an_raw_intern_h(an, an_raw_hash(as, ips, n, flags), as, ips, n,
			       flags);
}


/* The first n ips of r as a stack of as with flags. */
static uint32_t raw_copy(struct an *an, const struct an_raw *r, uint32_t as,
			 uint32_t n, uint32_t flags)
{
	/* the pool may move while the copy is interned */
	if (an_vec_grow(&an->ld->rawips, an->ld->rawips.n + n + 2))
		return UINT32_MAX;
	return an_raw_intern(an, as, &AN_VEC(an->ld->rawips, uint64_t, r->off), n,
			     flags);
}

uint32_t an_raw_rehome(struct an *an, uint32_t raw, uint32_t as)
{
	struct an_raw r = AN_VEC(an->ld->raws, struct an_raw, raw);

	return raw_copy(an, &r, as, r.n, r.flags);
}

/*
 * raw without its kernel frames: the user stack alone, for User CPU
 * (load/records.c) and exits (load/load.c).  raw itself if it has
 * no kernel frames or no user ones (a kernel thread's: nothing else to
 * charge).
 */
uint32_t an_raw_user(struct an *an, uint32_t raw)
{
	struct an_raw r = AN_VEC(an->ld->raws, struct an_raw, raw);
	uint32_t nk = r.flags >> AN_RAW_KSHIFT;

	if (!nk || r.n <= nk)
		return raw;
	return raw_copy(an, &r, r.as, r.n - nk,
			r.flags & ~AN_RAW_KBLOCK & ((1u << AN_RAW_KSHIFT) - 1));
}
