// SPDX-License-Identifier: GPL-2.0
/*
 * Base values and value layouts (analyzer/metric.h).  Bases are numbered
 * as they are first seen: the ten microstates and the wall time at init
 * (an_metrics_init), then each counter as log.txt names it.  A layout is
 * the list of bases a sample has values for, interned, so that a sample
 * stores a 4-byte id whatever the number of bases; samples mostly repeat
 * the layout before them, which is tried first.
 */
#include <errno.h>
#include <string.h>

#include "an.h"

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

uint32_t an_layout_intern(struct an *an, const uint32_t *ids, uint32_t n)
{
	struct an_layouts *ly = &an->lay;
	struct an_load *ld = an->ld;
	uint32_t key[AN_SAMPLE_VALUES_MAX + 1], id, *p;
	uint64_t h;

	if (ld->lay_last != UINT32_MAX) {
		const uint32_t *l = an_layout(an, ld->lay_last);

		if (l[0] == n && !memcmp(l + 1, ids, n * sizeof(*ids)))
			return ld->lay_last;
	}
	if (n > AN_SAMPLE_VALUES_MAX)
		return UINT32_MAX;
	key[0] = n;
	memcpy(key + 1, ids, n * sizeof(*ids));
	h = an_hash(key, (n + 1) * sizeof(*key), 0x1a7);
	id = an_htab_find(&ld->lay_h, h, layout_eq, an, key);
	if (id == UINT32_MAX) {
		id = ly->first.n;
		ly->first.esz = ly->items.esz = sizeof(uint32_t);
		p = an_vec_push(&ly->first);
		if (!p || an_vec_grow(&ly->items, ly->items.n + n + 1))
			return UINT32_MAX;
		*p = ly->items.n;
		memcpy((uint32_t *)ly->items.p + ly->items.n, key,
		       (n + 1) * sizeof(*key));
		ly->items.n += n + 1;
		if (an_htab_add(&ld->lay_h, h, id))
			return UINT32_MAX;
	}
	ld->lay_last = id;
	return id;
}
