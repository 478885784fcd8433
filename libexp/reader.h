/* SPDX-License-Identifier: GPL-2.0 */
/*
 * THE reader of cpu.N.rec files (docs/design/experiment-format.md): lwprof dump,
 * the archiver's rescan and lwprof print read records through it.  It
 * streams the file through a buffer (no mmap: experiments may be larger
 * than memory) and hands out each record whole and checked:
 *  - the file header: magic, byte order, major version, the CPU (when the
 *    file is named cpu.N.rec), the module's ABI major, the register set,
 *    the reserved fields;
 *  - every record: its size (a multiple of 8, at least 8, at most
 *    EXP_REC_MAX), type 0 refused, types it does not know skipped by size;
 *    for the known ones, that the size fits the layout (a sample's frames
 *    and stack, an MMAP's NUL-terminated, NUL-padded path), the flag bits,
 *    a sample's kind and its delta stack copy's layout, a stop record's
 *    reason.
 * A compact sample (1.11, EXP_REC_CSAMPLE) is checked as stored and
 * handed out as the LWPROF_REC_SAMPLE it stands for (r->stored points at
 * the stored form); readers of an older minor skip it as an unknown type.
 * Every complaint is "PATH: byte N: what", N the byte offset in the file
 * of the field at fault (PATH as given to exp_reader_open).
 *
 * Growth: a file whose header's minor is newer than EXP_FILE_MINOR may
 * have known records with fields appended (a sample's after its padded
 * stack copy, an MMAP's after its path padded to 8 bytes with NULs, a
 * TASK's or LOST's after their fixed part) and flag bits this reader does
 * not know; such a record is handed out as the record this reader knows:
 * unknown flag bits cleared, hdr.size cut to the known part (the next
 * record is still found by the size in the file).  The first time, the
 * reader warns once for the file.  In a file of a minor it knows, extra
 * bytes and unknown bits are damage: a 1.2 file with 1.3's sample flags
 * too.
 *
 * Functions return 0 or a negative errno; r->msg says what went wrong.
 */
#ifndef LWPROF_LIBEXP_READER_H
#define LWPROF_LIBEXP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"
#include "libexp/format.h"
#include "libexp/sample.h"

#define EXP_REC_MAX	(16u << 20)	/* no record is larger */
#define EXP_READ_BUF	(8u << 20)	/* bytes read at a time */
#define EXP_AT_READ	(1u << 20)	/* ... by exp_reader_at() */

/* A warning ("PATH: byte N: what"): the caller shows or records it. */
typedef void exp_warn_fn(void *arg, const char *msg);

struct exp_reader {
	/* the caller's to read */
	const char *path;		/* as given: in every message */
	struct exp_file_header hdr;	/* checked */
	struct exp_regs regs;		/* the samples' register set */
	uint64_t off;			/* file offset of the last record */
	bool newer;			/* the file's minor is newer than ours */
	unsigned int sample_flags;	/* the LWPROF_RS_* bits its minor knows */
	/* the last record as stored, when it was a compact sample, else NULL */
	const struct exp_rec_csample *stored;
	char msg[512];			/* the last complaint */
	/* the reader's own */
	exp_warn_fn *warn;
	void *warn_arg;
	bool grew_warned;
	int fd;
	int cpu;			/* N of cpu.N.rec, or -1 */
	uint8_t *buf;
	uint8_t *xbuf;			/* a compact sample made whole */
	size_t xcap;
	size_t cap, have, pos;		/* buf[pos, have): not handed out */
	uint64_t base;			/* file offset of buf[0] */
	bool eof;
	bool random;			/* exp_reader_at() was used */
	struct exp_progress *progress;	/* the experiment's (exp_file_open) */
};

/*
 * Open dirfd/path (dirfd may be AT_FDCWD), read and check its header.
 * -EBADMSG: damaged (r->msg); else the open's or read's errno.  warn (may
 * be NULL) gets the warnings.  Close it even after a failure.
 */
int exp_reader_open(struct exp_reader *r, int dirfd, const char *path,
		    exp_warn_fn *warn, void *warn_arg);

/*
 * The next record, whole and checked, in *rec (valid until the next call;
 * r->off its offset): 1; 0 at the end of the file; -EBADMSG if damaged
 * (the reader cannot go on in this file); -ENODATA if the file ends
 * inside a record (cut short: the recorder stopped mid-write; the records
 * before it were whole); else -errno (read, memory).
 */
int exp_reader_next(struct exp_reader *r, const struct lwprof_rec **rec);

/*
 * Random access, for a later pass over records an exp_reader_next() pass
 * handed out (their offsets kept): the record at file offset off, read,
 * checked and handed out exactly as exp_reader_next() would (valid until
 * the next call on r).  Returns as exp_reader_next(), and -EBADMSG when
 * off is not inside the file's records.  Consecutive offsets are served
 * from the buffer; a reader used this way is not used with
 * exp_reader_next() again.
 */
int exp_reader_at(struct exp_reader *r, uint64_t off,
		  const struct lwprof_rec **rec);

/* The file offset of the record after the one last handed out. */
static inline uint64_t exp_reader_tell(const struct exp_reader *r)
{
	return r->base + r->pos;
}

/*
 * A look ahead, for prefetching: the k-th record (1, 2, ...) after the
 * one last handed out, if it is already in the buffer whole, with its
 * file offset in *off; NULL otherwise.  Not checked beyond its size: use
 * it only for hints.  (Inline: the analyzer calls it for every record.)
 */
static inline const struct lwprof_rec *
exp_reader_peek(const struct exp_reader *r, unsigned int k, uint64_t *off)
{
	const struct lwprof_rec *h = NULL;
	size_t p = r->pos;

	while (k--) {
		if (h)
			p += h->size;
		if (r->have - p < sizeof(*h))
			return NULL;
		h = (const void *)(r->buf + p);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > r->have - p)
			return NULL;
	}
	if (h)
		*off = r->base + p;
	return h;
}

void exp_reader_close(struct exp_reader *r);

#endif
