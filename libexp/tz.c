// SPDX-License-Identifier: GPL-2.0
/*
 * The heap tracer's deflated records (format 1.10, libexp/trace.h,
 * EXP_REC_TZ) inflated: apart, so that only their readers link zlib.
 */
#include <zlib.h>

#include "libexp/trace.h"

long exp_tz_inflate(const struct exp_rec_tz *z, void *buf, const char **why)
{
	const struct lwprof_rec *h;
	uLongf n = EXP_TZ_MAX;
	__u32 off;

	if (uncompress(buf, &n, z->z, z->zbytes) != Z_OK || n != z->raw) {
		*why = "deflated records damaged";
		return -1;
	}
	for (off = 0; off < n; off += h->size) {
		h = (const void *)((const __u8 *)buf + off);
		if (n - off < sizeof(*h) || h->size < 16 || h->size % 8 ||
		    h->size > n - off ||
		    (h->type != EXP_REC_TSTACK && h->type != EXP_REC_THEAP)) {
			*why = "deflated records: one of another type, or cut short";
			return -1;
		}
	}
	return n;
}
