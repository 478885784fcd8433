// SPDX-License-Identifier: GPL-2.0
/*
 * Base values and value layouts (model.h).  Bases are numbered
 * as they are first seen: the ten microstates and the wall time at init
 * (an_metrics_init), then each counter as log.txt names it.  A layout is
 * the list of bases a sample has values for, interned, so that a sample
 * stores a 4-byte id whatever the number of bases.  Decoders keep the
 * layouts they made (load/decode.c), so interning is not on the per-record path.
 */
#include <errno.h>
#include <string.h>

#include "analyzer/model/model.h"

uint32_t an_base_id(struct an *an, uint32_t kind, uint32_t idx)
{
	struct an_base *b;
	size_t i;

	for (i = 0; i < an->bases.n; i++) {
		b = &AN_VEC(an->bases, struct an_base, i);
		if (b->kind == kind && b->idx == idx)
			return i;
	}
	an->bases.esz = sizeof(*b);
	b = an_vec_push(&an->bases);
	if (!b)
		return UINT32_MAX;
	b->kind = kind;
	b->idx = idx;
	return an->bases.n - 1;
}

static bool layout_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;
	const uint32_t *k = key, *l = an_layout(an, id);

	return l[0] == k[0] && !memcmp(l + 1, k + 1, k[0] * sizeof(*k));
}

static uint32_t layout_add(struct an *an, const uint32_t *key, uint64_t h)
{
	struct an_layouts *ly = &an->lay;
	uint32_t id = ly->first.n, n = key[0], *p;

	ly->first.esz = ly->items.esz = sizeof(uint32_t);
	p = an_vec_push(&ly->first);
	if (!p || an_vec_grow(&ly->items, ly->items.n + n + 1))
		return UINT32_MAX;
	*p = ly->items.n;
	memcpy((uint32_t *)ly->items.p + ly->items.n, key, (n + 1) * sizeof(*key));
	ly->items.n += n + 1;
	return an_htab_add(&an->ld->lay_h, h, id) ? UINT32_MAX : id;
}

uint32_t an_layout_intern(struct an *an, const uint32_t *ids, uint32_t n)
{
	uint32_t key[AN_SAMPLE_VALUES_MAX + 1], id;
	uint64_t h;

	if (n > AN_SAMPLE_VALUES_MAX)
		return UINT32_MAX;
	key[0] = n;
	if (n)
		memcpy(key + 1, ids, n * sizeof(*ids));
	h = an_hash(key, (n + 1) * sizeof(*key), 0x1a7);
	id = an_htab_find(&an->ld->lay_h, h, layout_eq, an, key);
	return id != UINT32_MAX ? id : layout_add(an, key, h);
}
