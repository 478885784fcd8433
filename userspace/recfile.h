/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an experiment's cpu.N.rec files record by record, checking every
 * size so that damaged input gives a message naming the file and the
 * offset, never a crash.  Functions return 0 or a negative errno.
 */
#ifndef LWPROF_RECFILE_H
#define LWPROF_RECFILE_H

#include <stddef.h>

#include "lwprof.h"

struct recfile {
	const char *name;		/* for messages */
	const unsigned char *map;	/* the whole file, read-only */
	size_t len;
	size_t off;			/* of the next record */
	struct lwprof_file_header hdr;
};

/*
 * Open dirfd/name (dirfd may be AT_FDCWD) and check its header.  On a bad
 * file returns -EBADMSG with msg "NAME: offset N: what is wrong"; other
 * errors are the open's or mmap's errno.
 */
int recfile_open(struct recfile *f, int dirfd, const char *name, char *msg,
		 size_t len);

/*
 * The next record: 1 with *rec and *off set, 0 at the end of the file,
 * -EBADMSG with msg when the record at f->off is damaged or cut short (the
 * reader cannot go on in this file).
 */
int recfile_next(struct recfile *f, const struct lwprof_rec **rec,
		 size_t *off, char *msg, size_t len);

void recfile_close(struct recfile *f);

/* The variable parts of a checked sample record. */
struct rec_sample_parts {
	const __u64 *regs;		/* NULL without LWPROF_RS_REGS */
	const __u64 *ips;		/* nr_user */
	const __u64 *kips;		/* nr_kernel */
	const unsigned char *stack;	/* stack_size bytes */
};

void rec_sample_parts(const struct lwprof_rec_sample *s,
		      struct rec_sample_parts *p);

#endif
