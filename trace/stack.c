// SPDX-License-Identifier: GPL-2.0
/*
 * A traced call's stack copy (trace.h), whole or as a delta
 * (struct lwprof_sdelta, uapi/lwprof_record.h) against the thread's last
 * whole copy: the 64-byte blocks that still hold the same bytes at the
 * same addresses are not written again.  A loop that calls malloc from
 * one place writes its wrapper's frame and little else, so a record
 * stays small however deep the copy reaches.  The analyzer rebuilds the
 * copy (analyzer/exp_stack.c) from the base: the thread's previous
 * record with LWPROF_RS_SBASE in the same file (every whole copy here).
 */
#include <string.h>

#include "trace.h"

#define BLOCK		LWPROF_SDELTA_BLOCK
#define REBASE_EVERY	1024	/* deltas in a row, at most */

/* Bytes of the area of a delta of size bytes from sp, at most. */
size_t tr_stack_room(uint64_t sp, uint64_t size)
{
	uint64_t nb = (((sp + size + BLOCK - 1) & ~(BLOCK - 1)) - (sp & ~(BLOCK - 1))) / BLOCK;

	return sizeof(struct lwprof_sdelta) + 8 * ((nb + 63) / 64) + size;
}

/*
 * The copy of [sp, sp + size) into out: a delta against base if that
 * saves at least half, else whole (then it is the new base).  Returns
 * the area's bytes; *flags gets LWPROF_RS_SDELTA or LWPROF_RS_SBASE.
 */
uint32_t tr_stack_copy(struct tr_stack_base *b, uint64_t t, uint64_t sp,
		       uint32_t size, uint8_t *out, uint16_t *flags)
{
	const uint64_t first = sp & ~(uint64_t)(BLOCK - 1);
	uint32_t nb = (((sp + size + BLOCK - 1) & ~(uint64_t)(BLOCK - 1)) - first) / BLOCK;
	uint32_t words = (nb + 63) / 64, i, nlit = 0;
	struct lwprof_sdelta *d = (struct lwprof_sdelta *)out;
	uint64_t *bits = (uint64_t *)(d + 1), lo, hi;
	uint8_t *lit = (uint8_t *)(bits + words);

	if (b->have && b->deltas < REBASE_EVERY && size) {
		memset(bits, 0, 8 * words);
		for (i = 0; i < nb; i++) {
			lo = first + (uint64_t)BLOCK * i;
			hi = lo + BLOCK;
			lo = lo < sp ? sp : lo;
			hi = hi > sp + size ? sp + size : hi;
			if (lo >= b->sp && hi <= b->sp + b->size &&
			    !memcmp((const void *)lo, b->bytes + (lo - b->sp), hi - lo))
				continue;
			bits[i / 64] |= 1ULL << (i % 64);
			memcpy(lit, (const void *)lo, hi - lo);
			lit += hi - lo;
			nlit++;
			if ((size_t)(lit - out) > size / 2)
				break;	/* not worth it */
		}
		if (i == nb) {
			d->sp = sp;
			d->base_time_ns = b->time;
			d->size = size;
			d->nr_blocks = nb;
			d->nr_literal = nlit;
			b->deltas++;
			*flags = LWPROF_RS_SDELTA;
			return lit - out;
		}
	}
	memcpy(out, (const void *)sp, size);
	memcpy(b->bytes, out, size);
	b->sp = sp;
	b->size = size;
	b->time = t;
	b->have = 1;
	b->deltas = 0;
	*flags = LWPROF_RS_SBASE;
	return size;
}
