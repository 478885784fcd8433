// SPDX-License-Identifier: GPL-2.0
/*
 * The sample table (struct an_samples: a struct of arrays, a row per
 * sample) and the threads and address spaces its rows refer to, interned
 * by their keys while experiments load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"

/* Threads and address spaces start with three u32 keys: (exp, pid, x). */
static bool key3_eq(void *ctx, uint32_t id, const void *key)
{
	struct an_vec *v = ctx;

	return !memcmp((char *)v->p + id * v->esz, key, 3 * sizeof(uint32_t));
}

static uint32_t intern3(struct an_vec *v, struct an_htab *h, uint32_t exp,
			uint32_t pid, uint32_t x, bool *made)
{
	uint32_t k[3] = { exp, pid, x }, id;
	uint64_t hash = an_hash(k, sizeof(k), v->esz);
	void *e;

	*made = false;
	id = an_htab_find(h, hash, key3_eq, v, k);
	if (id != UINT32_MAX)
		return id;
	e = an_vec_push(v);
	if (!e)
		return UINT32_MAX;
	memcpy(e, k, sizeof(k));
	*made = true;
	return an_htab_add(h, hash, v->n - 1) ? UINT32_MAX : v->n - 1;
}

uint32_t an_thread_get(struct an *an, uint32_t exp, uint32_t pid, uint32_t tid)
{
	bool made;

	return intern3(&an->threads, &an->ld->thr_h, exp, pid, tid, &made);
}

uint32_t an_as_get(struct an *an, uint32_t exp, uint32_t pid, uint32_t gen)
{
	bool made;
	uint32_t id = intern3(&an->as, &an->ld->as_h, exp, pid, gen, &made);

	if (made && id != UINT32_MAX)
		AN_VEC(an->as, struct an_as, id).maps.esz = sizeof(struct an_map);
	return id;
}

static int grow(void **p, size_t esz, size_t cap)
{
	void *np = realloc(*p, esz * cap);

	if (!np)
		return -ENOMEM;
	*p = np;
	return 0;
}

int an_sample_add(struct an *an, uint64_t t, uint32_t raw, uint32_t thr,
		  uint16_t cpu, uint32_t layout, const uint64_t *vals,
		  uint32_t nv, uint8_t part)
{
	struct an_samples *s = &an->s;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 65536;

		if (grow((void **)&s->time, 8, cap) ||
		    grow((void **)&s->stack, 4, cap) ||
		    grow((void **)&s->thr, 4, cap) ||
		    grow((void **)&s->cpu, 2, cap) ||
		    grow((void **)&s->layout, sizeof(*s->layout), cap) ||
		    grow((void **)&s->part, 1, cap))
			return -ENOMEM;
		s->cap = cap;
	}
	if (s->nvals + nv > s->vcap) {
		size_t cap = s->vcap ? s->vcap * 2 : 65536;

		if (grow((void **)&s->vals, 8, cap))
			return -ENOMEM;
		s->vcap = cap;
	}
	s->time[s->n] = t;
	s->stack[s->n] = raw;
	s->thr[s->n] = thr;
	s->cpu[s->n] = cpu;
	s->layout[s->n] = layout;
	s->part[s->n] = part;
	memcpy(s->vals + s->nvals, vals, nv * 8);
	s->nvals += nv;
	s->n++;
	return 0;
}
