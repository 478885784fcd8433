// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings over time.  A library unloaded (dlclose) and another mapped at
 * its address later (dlopen) leave two MMAP records covering the same
 * addresses; a sample must be resolved against the one in place at its
 * time.  The module writes no record for munmap, so a mapping ends when a
 * different one (another object, or the same object at another load bias)
 * is mapped over any of its addresses: the kernel only places a mapping
 * over a live one for MAP_FIXED, which loaders do not do to code that is
 * still in use.
 *
 * Each such replacement starts an epoch of the address space; a sample
 * taken in epoch e > 0 moves to an address space of its own (made when the
 * first sample needs it) that holds the mappings alive at some time in the
 * epoch.  Resolution and unwinding then see, at every address, the mapping
 * of the sample's time; an address space with no replacement is left as
 * it is.  Runs after the exec split and the fork inheritance, on sorted
 * mappings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"

/* One address space with replacements. */
struct epochs {
	uint64_t *t;		/* epoch e > 0 starts at t[e - 1], ascending */
	size_t nt;
	uint64_t *end;		/* per mapping: when it was replaced */
	uint32_t *as;		/* per epoch > 0: its address space, lazily */
};

/*
 * One mapping seen twice (SAMPLE_START may repeat one), or parts of one
 * (mprotect): the same file at the same load bias.  Anonymous code is one
 * pseudo function wherever it lies: JIT regions made executable again and
 * again end nothing.
 */
static bool map_same(struct an *an, const struct an_map *x,
		     const struct an_map *y)
{
	return x->obj == y->obj &&
	       (AN_VEC(an->objs, struct an_obj, x->obj).pseudo ||
		x->start - x->pgoff == y->start - y->pgoff);
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * The replacements in a (maps sorted by start): when each mapping was
 * replaced, and the epochs' start times.  0 and ep->nt == 0 when none is.
 */
static int find_epochs(struct an *an, struct an_as *a, struct epochs *ep)
{
	const struct an_map *m = a->maps.p;
	size_t n = a->maps.n, k, j;

	memset(ep, 0, sizeof(*ep));
	for (k = 0; k < n; k++) {
		for (j = k + 1; j < n && m[j].start < m[k].end; j++) {
			size_t old = m[j].time_ns < m[k].time_ns ? j : k;
			uint64_t t = m[old == j ? k : j].time_ns;

			/* one mapping; or no order to go by (map_find picks one) */
			if (map_same(an, &m[j], &m[k]) || m[j].time_ns == m[k].time_ns)
				continue;
			if (!ep->end) {
				ep->end = malloc(n * sizeof(*ep->end));
				if (!ep->end)
					return -ENOMEM;
				for (size_t i = 0; i < n; i++)
					ep->end[i] = UINT64_MAX;
			}
			if (t < ep->end[old])
				ep->end[old] = t;
		}
	}
	if (!ep->end)
		return 0;
	ep->t = malloc(n * sizeof(*ep->t));
	if (!ep->t)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (ep->end[k] != UINT64_MAX)
			ep->t[ep->nt++] = ep->end[k];
	qsort(ep->t, ep->nt, sizeof(*ep->t), u64_cmp);
	for (k = 0, j = 0; k < ep->nt; k++)
		if (!j || ep->t[j - 1] != ep->t[k])
			ep->t[j++] = ep->t[k];
	ep->nt = j;
	ep->as = malloc(j * sizeof(*ep->as));
	if (!ep->as)
		return -ENOMEM;
	for (k = 0; k < j; k++)
		ep->as[k] = UINT32_MAX;
	return 0;
}

/* The epoch of time t: how many epochs after the first began by then. */
static size_t epoch_of(const struct epochs *ep, uint64_t t)
{
	size_t lo = 0, hi = ep->nt, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ep->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is mapping k alive at some time of epoch e (0 .. nt)? */
static bool in_epoch(const struct epochs *ep, const struct an_map *m, size_t k,
		     size_t e)
{
	return (e == ep->nt || m->time_ns < ep->t[e]) &&
	       (!e || ep->end[k] > ep->t[e - 1]);
}

/* Copy into dst the mappings of src alive in epoch e (still sorted). */
static int epoch_maps(const struct an_vec *src, const struct epochs *ep,
		      size_t e, struct an_vec *dst)
{
	size_t k;

	for (k = 0; k < src->n; k++) {
		const struct an_map *m = &AN_VEC(*src, struct an_map, k);
		struct an_map *d;

		if (!in_epoch(ep, m, k, e))
			continue;
		d = an_vec_push(dst);
		if (!d)
			return -ENOMEM;
		*d = *m;
	}
	return 0;
}

/* Epoch e's address space, made from the one at index src when new. */
static uint32_t epoch_as(struct an *an, uint32_t src, struct epochs *ep,
			 size_t e)
{
	struct an_as *a;
	uint32_t id;

	if (ep->as[e - 1] != UINT32_MAX)
		return ep->as[e - 1];
	a = an_vec_push(&an->as);	/* not hashed: no lookups after loading */
	if (!a)
		return UINT32_MAX;
	id = an->as.n - 1;
	a = &AN_VEC(an->as, struct an_as, id);
	*a = AN_VEC(an->as, struct an_as, src);
	memset(&a->maps, 0, sizeof(a->maps));
	a->maps.esz = sizeof(struct an_map);
	a->dwfl = NULL;
	a->sorted = true;
	if (epoch_maps(&AN_VEC(an->as, struct an_as, src).maps, ep, e, &a->maps))
		return UINT32_MAX;
	ep->as[e - 1] = id;
	return id;
}

/* Epoch 0 keeps its address space: drop the mappings that came later. */
static void keep_first_epoch(struct an_as *a, const struct epochs *ep)
{
	size_t k, keep = 0;

	for (k = 0; k < a->maps.n; k++)
		if (in_epoch(ep, &AN_VEC(a->maps, struct an_map, k), k, 0))
			AN_VEC(a->maps, struct an_map, keep++) =
				AN_VEC(a->maps, struct an_map, k);
	a->maps.n = keep;
}

static int move_samples(struct an *an, struct epochs *ep, size_t nas)
{
	size_t i;

	for (i = 0; i < an->s.n; i++) {
		uint32_t as = AN_VEC(an->ld->raws, struct an_raw, an->s.stack[i]).as;
		uint32_t na, nr;
		size_t e;

		if (as >= nas || !ep[as].nt)
			continue;
		e = epoch_of(&ep[as], an->s.time[i]);
		if (!e)
			continue;
		na = epoch_as(an, as, &ep[as], e);
		nr = na == UINT32_MAX ? na : an_raw_rehome(an, an->s.stack[i], na);
		if (nr == UINT32_MAX)
			return -ENOMEM;
		an->s.stack[i] = nr;
	}
	return 0;
}

int an_split_remaps(struct an *an)
{
	size_t nas = an->as.n, i;
	struct epochs *ep = calloc(nas + 1, sizeof(*ep));
	bool any = false;
	int err = ep ? 0 : -ENOMEM;

	for (i = 0; !err && i < nas; i++) {
		err = find_epochs(an, &AN_VEC(an->as, struct an_as, i), &ep[i]);
		any |= ep[i].nt > 0;
	}
	if (!err && any)
		err = move_samples(an, ep, nas);
	for (i = 0; !err && i < nas; i++)
		if (ep[i].nt)
			keep_first_epoch(&AN_VEC(an->as, struct an_as, i), &ep[i]);
	for (i = 0; ep && i < nas; i++) {
		free(ep[i].t);
		free(ep[i].end);
		free(ep[i].as);
	}
	free(ep);
	return err;
}
