/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record file built by hand for the record reader's tests, so a test
 * knows every byte and offset of it: a file header of a CPU and minor
 * (rf_begin), records appended zeroed (rf_add) and changed in place
 * through buf, the file written to DIR/NAME (rf_save), then read back to
 * its first error (rf_read) or checked for damage named at its byte
 * (rf_expect).  Header-only, like test.h.
 */
#ifndef LWPROF_RECFILE_H
#define LWPROF_RECFILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/reader.h"
#include "test.h"

struct rf {
	uint8_t buf[8192] __attribute__((aligned(8)));
	size_t len;			/* bytes of buf in the file */
	const char *dir;		/* the test's (t_dir) */
	const char *name;		/* the file's name in dir */
	char path[4200];		/* dir/name, as rf_save wrote it */
};

/* Start name afresh: its file header says cpu (or EXP_CPU_NONE), minor. */
static inline void rf_begin(struct rf *f, const char *name, __u32 cpu,
			    __u32 minor)
{
	struct exp_file_header h;

	exp_file_header_init(&h, cpu, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	h.minor = minor;
	memcpy(f->buf, &h, sizeof(h));
	f->len = sizeof(h);
	f->name = name;
}

/* Append a record of type and size (its header set, the rest zeroed). */
static inline void *rf_add(struct rf *f, uint16_t type, uint32_t size)
{
	struct lwprof_rec *h = (void *)(f->buf + f->len);

	if (size > sizeof(f->buf) - f->len) {
		errno = ENOSPC;
		t_fatal("a record past the record file's buffer");
	}
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	f->len += size;
	return h;
}

/* Write the file's len bytes to dir/name: its path (exits if it cannot). */
static inline const char *rf_save(struct rf *f)
{
	int fd;

	snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, f->name);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, f->buf, f->len) != (ssize_t)f->len || close(fd))
		t_fatal(f->path);
	return f->path;
}

/*
 * Save the file, open it and read it to its end or first failure: 0 at
 * the end, else the open's or the read's status; *n the records read
 * before it, msg the reader's last complaint (either may be NULL).
 */
static inline int rf_read(struct rf *f, int *n, char *msg, size_t mlen)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	int err, got = 0;

	err = exp_reader_open(&r, AT_FDCWD, rf_save(f), NULL, NULL);
	while (!err && (err = exp_reader_next(&r, &h)) > 0) {
		got++;
		err = 0;
	}
	if (msg)
		snprintf(msg, mlen, "%s", r.msg);
	exp_reader_close(&r);
	if (n)
		*n = got;
	return err;
}

/* Check that the file is refused as damaged with "byte AT: TEXT". */
static inline void rf_expect(struct rf *f, const char *what, const char *text,
			     uint64_t at)
{
	char msg[1024], want[256];
	int err = rf_read(f, NULL, msg, sizeof(msg));

	snprintf(want, sizeof(want), "byte %llu: %s", (unsigned long long)at,
		 text);
	t_check(err == -EBADMSG && strstr(msg, want), "%s: %s", what, msg);
}

#endif
