/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small protocol buffers encoder for the exports (pprof's profile.proto,
 * Perfetto's TracePacket stream): varints, length-delimited fields and
 * nested messages written into one growable buffer.  A nested message is
 * opened with pb_open() (its tag written, its place remembered) and closed
 * with pb_close(), which puts its length in front of it; so is a packed
 * repeated field.  Errors stick: after a failed allocation every call is a
 * no-op and pb_err() is -ENOMEM.
 */
#ifndef LWPROF_PB_H
#define LWPROF_PB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PB_DEPTH 16

struct pb {
	uint8_t *p;
	size_t n, cap;
	size_t open[PB_DEPTH];	/* where each open message's body starts */
	int depth;
	int err;
};

void pb_init(struct pb *b);
void pb_free(struct pb *b);
static inline int pb_err(const struct pb *b)
{
	return b->err;
}
void pb_reset(struct pb *b);	/* empty, keeping the memory */

void pb_varint(struct pb *b, uint64_t v);	/* a bare varint (packed) */
void pb_uint(struct pb *b, uint32_t field, uint64_t v);	/* wire type 0 */
void pb_fixed64(struct pb *b, uint32_t field, uint64_t v);	/* wire type 1 */
static inline void pb_int(struct pb *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}
void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t len);
void pb_str(struct pb *b, uint32_t field, const char *s);
void pb_open(struct pb *b, uint32_t field);
void pb_close(struct pb *b);

/*
 * Write buffer b to f, through gzip when gz (zlib, level 6): 0 or a
 * negative errno.
 */
int pb_write(const struct pb *b, FILE *f, int gz);

#endif
