/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A delta stack copy (uapi/lwprof_record.h, struct lwprof_sdelta)
 * encoded by the tests, independently of the module and of libexp, so
 * that what libexp rebuilds can be held against the copy the test began
 * with (tests/unit/stack.c, gen_exp's deltas).
 */
#ifndef LWPROF_TESTS_SDELTA_ENC_H
#define LWPROF_TESTS_SDELTA_ENC_H

#include <stdint.h>
#include <string.h>

#include "lwprof.h"

/*
 * The delta of cur (size bytes from sp) against base (bsize bytes from
 * bsp, whose record's time is base_t) into out: a block is literal when
 * it is not all inside the base, differs from it, or is forced (bit i of
 * force, i < 64).  Returns the area's length.
 */
static inline size_t sdelta_encode(uint8_t *out, uint64_t sp, uint32_t size,
				   const uint8_t *cur, uint64_t bsp,
				   uint32_t bsize, const uint8_t *base,
				   uint64_t base_t, uint64_t force)
{
	const uint64_t bs = LWPROF_SDELTA_BLOCK;
	uint64_t first = sp & ~(bs - 1), lo, hi, w;
	uint32_t nr = (sp + size + bs - 1 - first) / bs, words = (nr + 63) / 64, i;
	struct lwprof_sdelta h = { sp, base_t, size, nr, 0 };
	size_t n = sizeof(h) + 8 * words;

	memset(out + sizeof(h), 0, 8 * words);
	for (i = 0; i < nr; i++) {
		lo = first + (uint64_t)i * bs;
		hi = lo + bs;
		lo = lo < sp ? sp : lo;
		hi = hi > sp + size ? sp + size : hi;
		if (!(i < 64 && (force >> i & 1)) && lo >= bsp &&
		    hi <= bsp + bsize &&
		    !memcmp(cur + (lo - sp), base + (lo - bsp), hi - lo))
			continue;
		memcpy(&w, out + sizeof(h) + 8 * (i / 64), 8);
		w |= 1ULL << (i % 64);
		memcpy(out + sizeof(h) + 8 * (i / 64), &w, 8);
		memcpy(out + n, cur + (lo - sp), hi - lo);
		n += hi - lo;
		h.nr_literal++;
	}
	memcpy(out, &h, sizeof(h));
	return n;
}

#endif
