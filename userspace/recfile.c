// SPDX-License-Identifier: GPL-2.0
/* Reading cpu.N.rec files (uapi/lwprof_record.h, docs/experiment-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recfile.h"
#include "../analyzer/sdelta.h"

static int damaged(const struct recfile *f, size_t off, char *msg,
		   size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int damaged(const struct recfile *f, size_t off, char *msg,
		   size_t len, const char *fmt, ...)
{
	int n = snprintf(msg, len, "%s: offset %zu: ", f->name, off);
	va_list ap;

	if (n >= 0 && (size_t)n < len) {
		va_start(ap, fmt);
		vsnprintf(msg + n, len - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

int recfile_open(struct recfile *f, int dirfd, const char *name, char *msg,
		 size_t len)
{
	const struct lwprof_file_header *h;
	struct stat st;
	int fd, err;
	void *m;

	memset(f, 0, sizeof(*f));
	f->name = name;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(msg, len, "%s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (st.st_size < (off_t)sizeof(*h)) {
		close(fd);
		return damaged(f, 0, msg, len, "%lld bytes: too short for the %zu-byte file header",
			       (long long)st.st_size, sizeof(*h));
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = -errno;
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(msg, len, "%s: mmap: %s", name, strerror(-err));
		return err;
	}
	f->map = m;
	f->len = st.st_size;
	h = m;
	memcpy(&f->hdr, h, sizeof(f->hdr));
	f->off = sizeof(*h);
	if (memcmp(h->magic, LWPROF_FILE_MAGIC, sizeof(h->magic)))
		err = damaged(f, 0, msg, len, "bad magic: not an lwprof record file");
	else if (h->byte_order != LWPROF_FILE_LE)
		err = damaged(f, 16, msg, len, "byte order 0x%08x: written on a machine of another byte order",
			      h->byte_order);
	else if (h->major != LWPROF_FILE_MAJOR)
		err = damaged(f, 8, msg, len, "format version %u.%u; this lwprof reads %u.x",
			      h->major, h->minor, LWPROF_FILE_MAJOR);
	else
		return 0;
	recfile_close(f);
	return err;
}

void rec_sample_parts(const struct lwprof_rec_sample *s,
		      struct rec_sample_parts *p)
{
	const __u64 *v = (const __u64 *)(s + 1);

	p->regs = NULL;
	if (s->hdr.flags & LWPROF_RS_REGS) {
		p->regs = v;
		v += LWPROF_NR_REGS;
	}
	p->ips = v;
	v += s->nr_user;
	p->kips = v;
	v += s->nr_kernel;
	p->stack = (const unsigned char *)v;
}

/* Check a record's type-specific layout against its size. */
static int check(const struct recfile *f, const struct lwprof_rec *r,
		 size_t off, char *msg, size_t len)
{
	const struct lwprof_rec_sample *s = (const void *)r;
	const struct lwprof_rec_mmap *m = (const void *)r;
	size_t want, i;

	switch (r->type) {
	case LWPROF_REC_SAMPLE:
		if (r->size < sizeof(*s))
			break;
		want = sizeof(*s) + 8 * ((s->hdr.flags & LWPROF_RS_REGS ?
					  LWPROF_NR_REGS : 0) +
					 (size_t)s->nr_user + s->nr_kernel) +
		       (((size_t)s->stack_size + 7) & ~(size_t)7);
		if (want != r->size)
			return damaged(f, off, msg, len, "SAMPLE record of %u bytes, but its frames and stack need %zu",
				       r->size, want);
		if (s->kind != LWPROF_SK_CLOCK && s->kind != LWPROF_SK_COUNTER)
			return damaged(f, off, msg, len, "SAMPLE record of unknown kind %u",
				       s->kind);
		if (s->hdr.flags & LWPROF_RS_SDELTA) {
			struct rec_sample_parts p;
			struct sdelta d;
			const char *why;
			__u32 at;

			rec_sample_parts(s, &p);
			why = sdelta_parse(p.stack, s->stack_size, &d, &at);
			if (why)
				return damaged(f, off + (p.stack - (const unsigned char *)s) + at,
					       msg, len, "%s", why);
		}
		return 0;
	case LWPROF_REC_TASK:
		if (r->size < sizeof(struct lwprof_rec_task))
			break;
		return 0;
	case LWPROF_REC_MMAP:
		if (r->size <= sizeof(*m))
			break;
		for (i = 0; i < r->size - sizeof(*m); i++)
			if (!m->path[i])
				return 0;
		return damaged(f, off, msg, len, "MMAP record's path is not NUL-terminated");
	case LWPROF_REC_LOST:
		if (r->size < sizeof(struct lwprof_rec_lost))
			break;
		return 0;
	default:
		return 0;	/* unknown types are skipped by size */
	}
	return damaged(f, off, msg, len, "record of type %u is %u bytes, too short for its type",
		       r->type, r->size);
}

int recfile_next(struct recfile *f, const struct lwprof_rec **rec,
		 size_t *off, char *msg, size_t len)
{
	const struct lwprof_rec *r;
	size_t left = f->len - f->off;
	int err;

	if (!left)
		return 0;
	if (left < sizeof(*r))
		return damaged(f, f->off, msg, len, "cut short: %zu bytes at the end, less than a record header (the recorder stopped mid-write?)",
			       left);
	r = (const void *)(f->map + f->off);
	if (r->size < sizeof(*r) || r->size % 8)
		return damaged(f, f->off, msg, len, "bad record size %u (type %u)",
			       r->size, r->type);
	if (r->size > left)
		return damaged(f, f->off, msg, len, "cut short: a record of %u bytes (type %u), only %zu bytes left (the recorder stopped mid-write?)",
			       r->size, r->type, left);
	err = check(f, r, f->off, msg, len);
	if (err)
		return err;
	*rec = r;
	*off = f->off;
	f->off += r->size;
	return 1;
}

void recfile_close(struct recfile *f)
{
	if (f->map)
		munmap((void *)f->map, f->len);
	f->map = NULL;
}
