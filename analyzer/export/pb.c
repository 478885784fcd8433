// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol buffers encoder (pb.h).  Wire format: a key is
 * (field << 3 | wire type) as a varint; type 0 a varint, type 2 a varint
 * length and that many bytes.  A nested message is written in place and
 * its length inserted in front of it when it is closed (a memmove of the
 * body when the length needs more than one byte: the messages we nest
 * are small, the outermost ones are written one at a time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyzer/export/pb.h"

void pb_init(struct pb *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_free(struct pb *b)
{
	free(b->p);
	pb_init(b);
}

void pb_reset(struct pb *b)
{
	b->n = 0;
	b->depth = 0;
}

static int reserve(struct pb *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (b->err)
		return -1;
	if (b->n + more <= b->cap)
		return 0;
	while (cap < b->n + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static size_t varint_enc(uint8_t *o, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		o[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	o[n++] = (uint8_t)v;
	return n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	if (reserve(b, 10))
		return;
	b->n += varint_enc(b->p + b->n, v);
}

static void key(struct pb *b, uint32_t field, int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	key(b, field, 0);
	pb_varint(b, v);
}

void pb_fixed64(struct pb *b, uint32_t field, uint64_t v)
{
	int i;

	key(b, field, 1);
	if (reserve(b, 8))
		return;
	for (i = 0; i < 8; i++)
		b->p[b->n++] = v >> (8 * i);	/* little-endian */
}

void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t len)
{
	key(b, field, 2);
	pb_varint(b, len);
	if (reserve(b, len))
		return;
	memcpy(b->p + b->n, p, len);
	b->n += len;
}

void pb_str(struct pb *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_open(struct pb *b, uint32_t field)
{
	key(b, field, 2);
	if (b->err)
		return;
	if (b->depth == PB_DEPTH) {
		b->err = -EOVERFLOW;
		return;
	}
	b->open[b->depth++] = b->n;
}

void pb_close(struct pb *b)
{
	uint8_t len[10];
	size_t at, body, l;

	if (b->err || !b->depth)
		return;
	at = b->open[--b->depth];
	body = b->n - at;
	l = varint_enc(len, body);
	if (reserve(b, l))
		return;
	memmove(b->p + at + l, b->p + at, body);
	memcpy(b->p + at, len, l);
	b->n += l;
}

static int gz_write(const struct pb *b, FILE *f)
{
	uint8_t out[65536];
	z_stream z = { 0 };
	int r;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = b->p;
	z.avail_in = b->n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		r = deflate(&z, Z_FINISH);
		if (r == Z_STREAM_ERROR)
			break;
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
		    sizeof(out) - z.avail_out) {
			r = Z_ERRNO;
			break;
		}
	} while (r != Z_STREAM_END);
	deflateEnd(&z);
	return r == Z_STREAM_END ? 0 : r == Z_ERRNO ? -EIO : -EINVAL;
}

int pb_write(const struct pb *b, FILE *f, int gz)
{
	if (b->err)
		return b->err;
	if (gz)
		return gz_write(b, f);
	return fwrite(b->p, 1, b->n, f) == b->n ? 0 : -EIO;
}
