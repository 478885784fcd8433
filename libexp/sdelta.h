/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Delta stack copies (struct lwprof_sdelta, LWPROF_RS_SDELTA): checking an
 * area and rebuilding the full copy from it and its base.  Used by the
 * analyzer's record reader and by lwprof dump; no other dependencies.
 */
#ifndef LWPROF_SDELTA_H
#define LWPROF_SDELTA_H

#include <stdbool.h>
#include <stdint.h>

#include "lwprof.h"

struct sdelta {
	uint64_t sp;
	uint64_t base_time_ns;
	uint32_t size;		/* bytes of the full copy */
	uint32_t nr_blocks;
	uint32_t nr_literal;
	uint32_t lit_bytes;	/* bytes of the literal blocks */
	const uint8_t *bitmap;	/* nr_blocks bits, as __u64 words */
	const uint8_t *lit;	/* the literal blocks */
};

/*
 * Check the area of len bytes (a sample's stack[]) and fill *d.  NULL, or
 * what is wrong with *at its byte offset in the area.
 */
const char *sdelta_parse(const void *area, uint32_t len, struct sdelta *d,
			 uint32_t *at);

/* Is block i literal? */
bool sdelta_literal(const struct sdelta *d, uint32_t i);

/* Do the reused blocks all lie inside [bsp, bsp + bsize)? */
bool sdelta_fits(const struct sdelta *d, uint64_t bsp, uint32_t bsize);

/*
 * The full copy (d->size bytes) into out, from the literal blocks and the
 * base copy (bsize bytes from bsp); false (out undefined) if a reused
 * block is not inside the base.
 */
bool sdelta_apply(const struct sdelta *d, const uint8_t *base, uint64_t bsp,
		  uint32_t bsize, uint8_t *out);

#endif
