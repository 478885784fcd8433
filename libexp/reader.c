// SPDX-License-Identifier: GPL-2.0
/* Reading cpu.N.rec files (libexp/reader.h, docs/design/experiment-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/mpi.h"
#include "libexp/progress.h"
#include "libexp/reader.h"
#include "libexp/stack.h"
#include "libexp/java.h"
#include "libexp/omp.h"
#include "libexp/trace.h"

#define MMAP_PATH_MAX	(4096 + 8)	/* PATH_MAX and its NUL, padded */

static int bad(struct exp_reader *r, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Damage at byte r->off + at (the current record's field). */
static int bad(struct exp_reader *r, uint64_t at, const char *fmt, ...)
{
	int n = snprintf(r->msg, sizeof(r->msg), "%s: byte %" PRIu64 ": ",
			 r->path, r->off + at);
	va_list ap;

	if (n >= 0 && (size_t)n < sizeof(r->msg)) {
		va_start(ap, fmt);
		vsnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static int sys_err(struct exp_reader *r, int err, const char *what)
{
	snprintf(r->msg, sizeof(r->msg), "%s: %s%s", r->path, what,
		 strerror(-err));
	return err;
}

/* *buf (of *cap bytes) made need bytes: 0, or -ENOMEM and r->msg. */
static int grow(struct exp_reader *r, uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb = realloc(*buf, need);

	if (!nb)
		return sys_err(r, -ENOMEM, "");
	*buf = nb;
	*cap = need;
	return 0;
}

/* Make buf[pos, pos + need) valid, short only at the end of the file. */
static int fill(struct exp_reader *r, size_t need)
{
	ssize_t n;

	while (r->have - r->pos < need && !r->eof) {
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->have - r->pos);
			r->base += r->pos;
			r->have -= r->pos;
			r->pos = 0;
		}
		if (need > r->cap && grow(r, &r->buf, &r->cap, need))
			return -ENOMEM;
		n = r->cap - r->have;
		if (r->random && n > EXP_AT_READ)
			n = EXP_AT_READ;	/* what a jump needs, not 8 MiB */
		n = read(r->fd, r->buf + r->have, n);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sys_err(r, -errno, "read: ");
		r->eof = !n;
		r->have += n;
		if (!r->random)
			exp_progress_add(r->progress, n);
	}
	return 0;
}

/* Is path NAME (any directory) cpu.N.rec?  N, or -1. */
static int rec_cpu(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned int cpu;
	int len = 0;

	base = base ? base + 1 : path;
	if (sscanf(base, EXP_REC_FMT "%n", &cpu, &len) == 1 && len &&
	    !base[len] && cpu < 1u << 30)
		return cpu;
	return -1;
}

static int check_header(struct exp_reader *r)
{
	const struct exp_file_header *h = &r->hdr;
	const char *why;
	unsigned int at;

	if (memcmp(h->magic, EXP_FILE_MAGIC, sizeof(h->magic)))
		return bad(r, 0, "not an lwprof record file (bad magic)");
	if (h->byte_order != EXP_FILE_LE)
		return bad(r, 16, "byte order 0x%08x is not this machine's",
			   h->byte_order);
	if (h->major != EXP_FILE_MAJOR)
		return bad(r, 8, "format version %u.%u; this lwprof reads %u.x",
			   h->major, h->minor, EXP_FILE_MAJOR);
	if (r->cpu >= 0 && h->cpu != (unsigned int)r->cpu)
		return bad(r, 20, "header says cpu %u, the file is cpu %d", h->cpu,
			   r->cpu);
	if (h->abi_major != LWPROF_ABI_MAJOR)
		return bad(r, 24, "module ABI %u.%u; this lwprof reads %u.x",
			   h->abi_major, h->abi_minor, LWPROF_ABI_MAJOR);
	r->newer = h->minor > EXP_FILE_MINOR;
	r->sample_flags = h->minor < 3 ? EXP_SAMPLE_FLAGS_1_2 :
		EXP_SAMPLE_FLAGS_1_3;
	if (h->minor < 2 && (h->e_machine || h->nr_regs))
		return bad(r, 32, "reserved field not zero");
	if (h->minor < 2 && h->reg_mask)
		return bad(r, 40, "reserved field not zero");
	why = exp_regs_get(h, &r->regs, &at);
	if (why)
		return bad(r, at, "%s", why);
	if (r->newer)
		return 0;	/* its minor may use the reserved fields */
	if (h->reserved0)
		return bad(r, 36, "reserved field not zero");
	for (at = 0; at < 2; at++)
		if (h->reserved[at])
			return bad(r, 48 + 8 * at, "reserved field not zero");
	return 0;
}

int exp_reader_open(struct exp_reader *r, int dirfd, const char *path,
		    exp_warn_fn *warn, void *warn_arg)
{
	size_t fh = sizeof(r->hdr);
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->path = path;
	r->warn = warn;
	r->warn_arg = warn_arg;
	r->cpu = rec_cpu(path);
	r->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return sys_err(r, -errno, "");
	r->cap = EXP_READ_BUF;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return sys_err(r, -ENOMEM, "");
	err = fill(r, fh);
	if (err)
		return err;
	if (r->have < fh)
		return r->have ? bad(r, 0, "file header cut short (%zu of %zu bytes)",
				     r->have, fh) :
				 bad(r, 0, "empty file: no file header");
	memcpy(&r->hdr, r->buf, fh);
	r->pos = fh;
	return check_header(r);
}

/* A record of a newer minor with what this reader does not know. */
static void grew(struct exp_reader *r, uint64_t at)
{
	char w[sizeof(r->msg)];

	if (r->grew_warned || !r->warn)
		return;
	r->grew_warned = true;
	snprintf(w, sizeof(w), "%s: byte %" PRIu64 ": format %u.%u is newer than this lwprof's %u.%u: the record fields and flag bits it does not know are skipped (the first here)",
		 r->path, r->off + at, r->hdr.major, r->hdr.minor,
		 EXP_FILE_MAJOR, EXP_FILE_MINOR);
	r->warn(r->warn_arg, w);
}

/*
 * Flag bits outside known: a newer minor's, cleared (its records stay
 * readable without them), or damage.
 */
static int unknown_flags(struct exp_reader *r, struct lwprof_rec *h,
			 unsigned int known, const char *what)
{
	if (!r->newer)
		return bad(r, 2, "%s flags 0x%x", what, h->flags);
	grew(r, 2);
	h->flags &= known;
	return 0;
}

/*
 * known bytes of h are this reader's: the rest is a newer minor's (cut
 * off) or, in a minor it knows, damage.
 */
static int size_fits(struct exp_reader *r, struct lwprof_rec *h, uint64_t known,
		     const char *what)
{
	if (h->size == known)
		return 0;
	if (h->size < known || !r->newer)
		return bad(r, 4, "%s size %u, its fields need %" PRIu64, what,
			   h->size, known);
	return 0;
}

/* A sample at byte base of the record (0, or inside a trace record). */
static int check_sample(struct exp_reader *r, struct lwprof_rec_sample *s,
			uint64_t known, uint64_t base)
{
	const unsigned char *stack;
	struct sdelta d;
	const char *why;
	uint32_t at;

	if (s->hdr.flags & ~r->sample_flags) {
		if (!r->newer)
			return bad(r, base + 2, "sample flags 0x%x", s->hdr.flags);
		grew(r, base + 2);
		s->hdr.flags &= r->sample_flags;
	}
	if (s->kind != LWPROF_SK_CLOCK && s->kind != LWPROF_SK_COUNTER)
		return bad(r, base + 28, "unknown sample kind %u", s->kind);
	if (s->hdr.flags & LWPROF_RS_SDELTA) {
		stack = exp_sample_stack(s, r->regs.nr);
		why = sdelta_parse(stack, s->stack_size, &d, &at);
		if (why)
			return bad(r, base + (stack - (const unsigned char *)s) + at,
				   "%s", why);
	}
	if (__builtin_expect(s->hdr.size != known, 0)) {
		grew(r, base + known);
		s->hdr.size = known;
	}
	return 0;
}

/*
 * A compact sample (1.11): its own fields checked where they are stored,
 * then handed out as the sample it stands for, built in r->xbuf and
 * checked as any sample (a delta copy's damage named at its byte in the
 * file).
 */
static int check_csample(struct exp_reader *r, struct exp_rec_csample *c,
			 struct lwprof_rec **out)
{
	const unsigned int nreg = r->regs.nr < 32 ? r->regs.nr : 32;
	struct lwprof_rec_sample *s;
	uint64_t known, full;
	int err;

	if (c->hdr.flags & ~r->sample_flags) {
		if (!r->newer)
			return bad(r, 2, "sample flags 0x%x", c->hdr.flags);
		grew(r, 2);
		c->hdr.flags &= r->sample_flags;
	}
	if (c->kind != LWPROF_SK_CLOCK && c->kind != LWPROF_SK_COUNTER)
		return bad(r, 28, "unknown sample kind %u", c->kind);
	if (c->ms_mask & ~EXP_CS_MS_MASK)
		return bad(r, 44, "compact sample microstate mask 0x%x", c->ms_mask);
	if (!(c->hdr.flags & LWPROF_RS_REGS) != !c->reg_mask ||
	    (nreg < 32 && c->reg_mask >> nreg))
		return bad(r, 40, "compact sample register mask 0x%x (%s, %u registers in the file's set)",
			   c->reg_mask, c->hdr.flags & LWPROF_RS_REGS ?
			   "with registers" : "without registers", r->regs.nr);
	if (c->pad0 && !r->newer)
		return bad(r, 50, "compact sample pad0 0x%x", c->pad0);
	known = exp_csample_known(c);
	err = size_fits(r, &c->hdr, known, "compact sample");
	if (err)
		return err;
	if (c->hdr.size > known)
		grew(r, known);
	full = exp_csample_full(c, r->regs.nr);
	if (full > r->xcap && grow(r, &r->xbuf, &r->xcap, full))
		return -ENOMEM;
	s = (void *)r->xbuf;
	exp_csample_expand(s, c, r->regs.nr);
	/* where the stack copy is in the file, less where it is in s */
	err = check_sample(r, s, full,
			   (known - (((uint64_t)c->stack_size + 7) & ~7ULL)) -
			   (full - (((uint64_t)s->stack_size + 7) & ~7ULL)));
	*out = &s->hdr;
	r->stored = c;
	return err;
}

/* A stop record (1.6): no flags, padding zero, a reason (a newer one's too). */
static int check_stop(struct exp_reader *r, struct lwprof_rec_stop *s)
{
	int err = 0;

	if (s->hdr.flags)
		err = unknown_flags(r, &s->hdr, 0, "stop record");
	if (!err && s->pad0)
		err = bad(r, 28, "stop record pad0 0x%x", s->pad0);
	if (!err && (!s->reason || (s->reason > LWPROF_STOP_MAX && !r->newer)))
		err = bad(r, 24, "stop record reason %u", s->reason);
	if (!err && !memchr(s->comm, 0, sizeof(s->comm)))
		err = bad(r, 32, "stop record name without its NUL");
	return err;
}

static int check_mmap(struct exp_reader *r, struct lwprof_rec_mmap *m)
{
	size_t plen = m->hdr.size - sizeof(*m), used;
	const char *nul = memchr(m->path, 0, plen), *p;
	int err;

	if (!nul || nul == m->path)
		return bad(r, sizeof(*m), "mmap path not NUL-terminated");
	used = (nul - m->path + 8) & ~(size_t)7;	/* path, NULs to 8 */
	if (r->newer && used > MMAP_PATH_MAX)
		return bad(r, sizeof(*m), "mmap path longer than PATH_MAX");
	for (p = nul; p < m->path + (r->newer ? used : plen); p++)
		if (*p)
			return bad(r, p - (const char *)m, "mmap path padding not zero");
	if (m->hdr.flags & ~LWPROF_MMAP_ANON) {
		err = unknown_flags(r, &m->hdr, LWPROF_MMAP_ANON, "mmap");
		if (err)
			return err;
	}
	if (r->newer && used < plen) {
		/* beyond the padded path: a newer minor's fields (or NULs) */
		for (p = m->path + used; p < m->path + plen && !*p; p++)
			;
		if (p < m->path + plen)
			grew(r, p - (const char *)m);
		m->hdr.size = sizeof(*m) + used;
	}
	return 0;
}

/*
 * A global sample packet (1.4): a known kind, the name NUL-terminated at
 * name_len with NULs after it to the padded size.
 */
static int check_gsample(struct exp_reader *r, struct exp_rec_gsample *g)
{
	size_t room = g->hdr.size - sizeof(*g), used, i;
	int err;

	if (g->hdr.flags & ~EXP_GS_FLAGS) {
		err = unknown_flags(r, &g->hdr, EXP_GS_FLAGS, "sample packet");
		if (err)
			return err;
	}
	if (!g->kind || (g->kind > EXP_GS_KIND_MAX && !r->newer))
		return bad(r, 20, "sample packet kind %u", g->kind);
	if (g->name_len > room || g->name_len > EXP_GS_NAME_MAX)
		return bad(r, 22, "sample packet name of %u bytes in %zu",
			   g->name_len, room);
	if (g->name_len && (g->name[g->name_len - 1] ||
			    memchr(g->name, 0, g->name_len - 1)))
		return bad(r, sizeof(*g), "sample packet name not a NUL-terminated string of %u bytes",
			   g->name_len);
	used = (g->name_len + 7) & ~(size_t)7;
	if (used < room && !r->newer)
		return bad(r, 4, "sample packet size %u, its name needs %zu",
			   g->hdr.size, sizeof(*g) + used);
	for (i = g->name_len; i < used; i++)
		if (g->name[i])
			return bad(r, sizeof(*g) + i, "sample packet name padding not zero");
	if (used < room) {
		grew(r, sizeof(*g) + used);
		g->hdr.size = sizeof(*g) + used;
	}
	return 0;
}

/*
 * A trace record (libexp/trace.h): its fields, then its sample, checked
 * as any sample (at its offset in the record), which must fill it.
 */
static int check_trace(struct exp_reader *r, struct exp_rec_trace *t)
{
	const uint64_t base = offsetof(struct exp_rec_trace, s);
	struct lwprof_rec_sample *s = &t->s;
	const char *why;
	unsigned int at;
	uint64_t known;

	if (t->hdr.flags && !r->newer)
		return bad(r, 2, "trace record flags 0x%x", t->hdr.flags);
	t->hdr.flags = 0;
	why = exp_trace_check(t, &at);
	if (why)
		return bad(r, at, "%s", why);
	if (s->hdr.size != t->hdr.size - base)
		return bad(r, base + 4, "trace record's sample size %u, the record leaves %" PRIu64,
			   s->hdr.size, t->hdr.size - base);
	known = exp_sample_known(s, r->regs.nr);
	if (s->hdr.size < known || (s->hdr.size > known && !r->newer))
		return bad(r, base + 4, "trace record's sample size %u, its fields need %" PRIu64,
			   s->hdr.size, known);
	if (s->hdr.size > known)
		t->hdr.size = base + known;	/* check_sample cuts s */
	return check_sample(r, s, known, base);
}

/*
 * A trace record without a sample (what: its name): no flags (a newer
 * minor's cleared), then the verdict why (at: where) of its own checks.
 */
static int check_plain(struct exp_reader *r, struct lwprof_rec *h,
		       const char *what, const char *why, unsigned int at)
{
	if (h->flags && !r->newer)
		return bad(r, 2, "%s flags 0x%x", what, h->flags);
	h->flags = 0;
	return why ? bad(r, at, "%s", why) : 0;
}

static int check_trace_file(struct exp_reader *r, struct exp_rec_trace_file *f)
{
	unsigned int at;
	const char *why = exp_trace_file_check(f, &at);

	return check_plain(r, &f->hdr, "trace file record", why, at);
}

static int check_trace_free(struct exp_reader *r, struct exp_rec_trace_free *f,
			    uint64_t known)
{
	unsigned int at;
	const char *why = exp_trace_free_check(f, &at);
	int err = check_plain(r, &f->hdr, "trace free record", why, at);

	if (!err && f->hdr.size != known) {
		grew(r, known);
		f->hdr.size = known;
	}
	return err;
}

static int check_java(struct exp_reader *r, struct lwprof_rec *h)
{
	unsigned int at;
	const char *why = exp_java_check(h, &at);

	return why ? bad(r, at, "%s", why) : 0;
}

static int check_untraced(struct exp_reader *r, struct exp_rec_trace_untraced *u)
{
	unsigned int at;
	const char *why = exp_trace_untraced_check(u, &at);

	return check_plain(r, &u->hdr, "untraced record", why, at);
}

/* An OpenMP record (1.8): a newer minor's flags and growth skipped. */
static int check_omp(struct exp_reader *r, struct lwprof_rec *h)
{
	unsigned int at;
	__u32 known;
	const char *why;
	int err;

	if (h->type == EXP_REC_OMP_EVENT && (h->flags & ~EXP_OMPF_KNOWN)) {
		err = unknown_flags(r, h, EXP_OMPF_KNOWN, "OpenMP event record");
		if (err)
			return err;
	} else if (h->type == EXP_REC_OMP_FOLD && (h->flags & ~EXP_OMPF_FOLD_KNOWN)) {
		/* a newer minor's part follows the known ones: cut below */
		err = unknown_flags(r, h, EXP_OMPF_FOLD_KNOWN, "OpenMP folded record");
		if (err)
			return err;
	} else if (h->type != EXP_REC_OMP_EVENT && h->type != EXP_REC_OMP_FOLD &&
		   h->flags) {
		if (!r->newer)
			return bad(r, 2, "OpenMP record flags 0x%x", h->flags);
		h->flags = 0;
	}
	why = exp_omp_check(h, &known, &at);
	if (why)
		return bad(r, at, "%s", why);
	if (h->size != known) {
		if (!r->newer)
			return bad(r, 4, "OpenMP record size %u, %u expected", h->size, known);
		grew(r, known);
		h->size = known;
	}
	return 0;
}

/*
 * A compact trace record (1.5): a newer minor's flags and the bytes after
 * what this format knows are skipped, in a minor it knows damage.
 */
static int check_mpi(struct exp_reader *r, struct exp_rec_mpi *m)
{
	const char *why;
	unsigned int at;
	uint32_t known;

	why = exp_mpi_check(m, &known, &at);
	if (why)
		return bad(r, at, "%s", why);
	if (m->hdr.size == known)
		return 0;
	if (!r->newer)
		return bad(r, 4, "MPI record size %u, its fields need %u",
			   m->hdr.size, known);
	grew(r, known);
	m->hdr.size = known;
	m->call.hdr.size = known - offsetof(struct exp_rec_mpi, call);
	return 0;
}

static int check_mpi_req(struct exp_reader *r, struct exp_rec_mpi_req *q,
			 uint64_t known)
{
	unsigned int at;
	const char *why = exp_mpi_req_check(q, &at);
	int err = check_plain(r, &q->hdr, "MPI request record", why, at);

	if (!err && q->hdr.size != known) {
		grew(r, known);
		q->hdr.size = known;
	}
	return err;
}

static int check_tcall(struct exp_reader *r, struct exp_rec_tcall *t)
{
	const char *why;
	unsigned int at;
	uint32_t known;
	int err;

	if (t->hdr.flags & ~EXP_TCF_KNOWN) {
		err = unknown_flags(r, &t->hdr, EXP_TCF_KNOWN, "trace call record");
		if (err)
			return err;
	}
	why = exp_tcall_check(t, t->hdr.size, &known, &at);
	if (why)
		return bad(r, at, "%s", why);
	if (t->hdr.size == known)
		return 0;
	if (!r->newer)
		return bad(r, 4, "trace call record size %u, its fields need %u",
			   t->hdr.size, known);
	grew(r, known);
	t->hdr.size = known;
	return 0;
}

/*
 * The heap tracer's records (1.7): a newer minor's flags and the bytes
 * after what this format knows are cut; in a minor it knows, damage.
 */
static int check_heaprec(struct exp_reader *r, struct lwprof_rec *h)
{
	const char *why;
	unsigned int at;

	switch (h->type) {
	case EXP_REC_TSTACK:
		why = exp_tstack_check((void *)h, &at);
		break;
	case EXP_REC_THEAP:
		if (h->size < sizeof(struct exp_rec_theap))
			return bad(r, 4, "heap record size %u", h->size);
		why = exp_theap_check((void *)h, &at);
		break;
	default:
		why = exp_tz_check((void *)h, &at);
		break;
	}
	return why ? bad(r, at, "%s", why) : 0;
}

/* The record at pos, whole (size bytes): check what its type needs. */
static int check_whole(struct exp_reader *r, struct lwprof_rec *h,
		       uint64_t known)
{
	int err = 0;

	switch (h->type) {
	case LWPROF_REC_MMAP:
		return check_mmap(r, (void *)h);
	case LWPROF_REC_TASK:
		err = h->flags ? unknown_flags(r, h, 0, "task") : 0;
		break;
	case LWPROF_REC_LOST:
		err = h->flags ? unknown_flags(r, h, 0, "lost record") : 0;
		break;
	case LWPROF_REC_STOP:
		if (r->hdr.minor < EXP_MINOR_STOP)
			return 0;	/* not this format's: skipped */
		err = check_stop(r, (void *)h);
		break;
	case EXP_REC_GSAMPLE:
		if (r->hdr.minor < EXP_MINOR_GSAMPLE)
			return 0;	/* not this format's: skipped */
		return check_gsample(r, (void *)h);
	default:
		return 0;	/* a later minor's type: skipped by size */
	}
	if (!err && h->size != known) {
		grew(r, known);
		h->size = known;
	}
	return err;
}

static int cut(struct exp_reader *r, size_t have, uint64_t need)
{
	bad(r, 0, "last record cut short (%zu of %" PRIu64 " bytes); using the records before it",
	    have, need);
	return -ENODATA;
}

/*
 * The record at pos (size bytes) with at least n of them in the buffer:
 * 0 and *h (moved if the buffer was), or -ENODATA at the end of the file.
 */
static int want(struct exp_reader *r, size_t n, uint32_t size,
		struct lwprof_rec **h)
{
	int err;

	err = fill(r, n);
	if (err)
		return err;
	if (r->have - r->pos < n)
		return cut(r, r->have - r->pos, size);
	r->off = r->base + r->pos;
	*h = (void *)(r->buf + r->pos);
	return 0;
}

int exp_reader_next(struct exp_reader *r, const struct lwprof_rec **rec)
{
	const size_t ssz = sizeof(struct lwprof_rec_sample);
	struct lwprof_rec *h;
	uint64_t known = 0;
	uint32_t size;
	int err;

	r->off = r->base + r->pos;
	r->stored = NULL;
	if (r->have - r->pos < sizeof(*h)) {
		err = fill(r, sizeof(*h));
		if (err)
			return err;
		if (r->have == r->pos)
			return 0;
		if (r->have - r->pos < sizeof(*h))
			return cut(r, r->have - r->pos, sizeof(*h));
		r->off = r->base + r->pos;
	}
	h = (void *)(r->buf + r->pos);
	size = h->size;
	if (size < sizeof(*h) || size % 8)
		return bad(r, 4, "bad record size %u (type %u)", size, h->type);
	if (size > EXP_REC_MAX)
		return bad(r, 4, "record size %u is too large", size);
	switch (h->type) {
	case 0:
		return bad(r, 0, "record type 0");
	case LWPROF_REC_SAMPLE:	/* most records: all here */
		if (size < ssz)
			return bad(r, 4, "sample record size %u", size);
		if (r->have - r->pos < ssz) {
			err = want(r, ssz, size, &h);
			if (err)
				return err;
		}
		known = exp_sample_known((const void *)h, r->regs.nr);
		err = size == known ? 0 : size_fits(r, h, known, "sample");
		if (!err && r->have - r->pos < size)
			err = want(r, size, size, &h);
		if (!err)
			err = check_sample(r, (void *)h, known, 0);
		goto out;
	case EXP_REC_CSAMPLE:
		if (r->hdr.minor < EXP_MINOR_CSAMPLE)
			break;	/* not this format's: skipped */
		if (size < sizeof(struct exp_rec_csample))
			return bad(r, 4, "compact sample size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_csample(r, (void *)h, &h);
		goto out;
	case EXP_REC_TRACE:
		if (size < sizeof(struct exp_rec_trace))
			return bad(r, 4, "trace record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_trace(r, (void *)h);
		goto out;
	case EXP_REC_TRACE_FREE:
		known = sizeof(struct exp_rec_trace_free);
		err = size_fits(r, h, known, "trace free record");
		if (!err && r->have - r->pos < size)
			err = want(r, size, size, &h);
		if (!err)
			err = check_trace_free(r, (void *)h, known);
		goto out;
	case EXP_REC_TCALL:
		if (r->hdr.minor < EXP_MINOR_TCALL)
			break;	/* not this format's: skipped */
		if (size < sizeof(struct exp_rec_tcall))
			return bad(r, 4, "trace call record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_tcall(r, (void *)h);
		goto out;
	case EXP_REC_MPI:
		if (r->hdr.minor < EXP_MINOR_MPI)
			break;	/* not this format's: skipped */
		if (size < sizeof(struct exp_rec_mpi))
			return bad(r, 4, "MPI record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_mpi(r, (void *)h);
		goto out;
	case EXP_REC_MPI_REQ:
		if (r->hdr.minor < EXP_MINOR_MPI)
			break;	/* not this format's: skipped */
		known = sizeof(struct exp_rec_mpi_req);
		err = size_fits(r, h, known, "MPI request record");
		if (!err && r->have - r->pos < size)
			err = want(r, size, size, &h);
		if (!err)
			err = check_mpi_req(r, (void *)h, known);
		goto out;
	case EXP_REC_TRACE_FILE:
		if (size < sizeof(struct exp_rec_trace_file) + 8 ||
		    size > sizeof(struct exp_rec_trace_file) + MMAP_PATH_MAX)
			return bad(r, 4, "trace file record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_trace_file(r, (void *)h);
		goto out;
	case EXP_REC_TRACE_UNTRACED:
		if (r->hdr.minor < EXP_MINOR_UNTRACED)
			break;	/* not this format's: skipped */
		if (size < sizeof(struct exp_rec_trace_untraced) + 8 ||
		    size > sizeof(struct exp_rec_trace_untraced) + MMAP_PATH_MAX)
			return bad(r, 4, "untraced record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_untraced(r, (void *)h);
		goto out;
	case EXP_REC_TSTACK:
	case EXP_REC_THEAP:
	case EXP_REC_TZ:
		if (r->hdr.minor < EXP_MINOR_THEAP)
			break;	/* not this format's: skipped */
		if (size < 16)
			return bad(r, 4, "heap tracer's record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_heaprec(r, h);
		goto out;
	case EXP_REC_JMETHOD:
	case EXP_REC_JCODE:
	case EXP_REC_JUNLOAD:
	case EXP_REC_JSTACK:
	case EXP_REC_JTHREAD:
		if (r->hdr.minor < EXP_MINOR_JAVA)
			break;	/* not this format's: skipped */
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_java(r, h);
		goto out;
	case EXP_REC_OMP_RUNTIME:
	case EXP_REC_OMP_STACK:
	case EXP_REC_OMP_EVENT:
		if (r->hdr.minor < EXP_MINOR_OMP)
			break;	/* not this format's: skipped */
		if (size < 24)
			return bad(r, 4, "OpenMP record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_omp(r, (void *)h);
		goto out;
	case EXP_REC_OMP_FOLD:
		if (r->hdr.minor < EXP_MINOR_OMP_FOLD)
			break;	/* not this format's: skipped */
		if (size < sizeof(struct exp_rec_omp_fold))
			return bad(r, 4, "OpenMP record size %u", size);
		err = r->have - r->pos < size ? want(r, size, size, &h) : 0;
		if (!err)
			err = check_omp(r, (void *)h);
		goto out;
	case LWPROF_REC_TASK:
		known = sizeof(struct lwprof_rec_task);
		err = size_fits(r, h, known, "task record");
		break;
	case LWPROF_REC_LOST:
		known = sizeof(struct lwprof_rec_lost);
		err = size_fits(r, h, known, "lost record");
		break;
	case LWPROF_REC_STOP:
		if (r->hdr.minor < EXP_MINOR_STOP)
			break;	/* not this format's type: skipped */
		known = sizeof(struct lwprof_rec_stop);
		err = size_fits(r, h, known, "stop record");
		break;
	case LWPROF_REC_MMAP:
		if (size < sizeof(struct lwprof_rec_mmap) + 8 ||
		    (!r->newer && size > sizeof(struct lwprof_rec_mmap) + MMAP_PATH_MAX))
			return bad(r, 4, "mmap record size %u", size);
		break;
	case EXP_REC_GSAMPLE:
		if (r->hdr.minor >= EXP_MINOR_GSAMPLE &&
		    size < sizeof(struct exp_rec_gsample))
			return bad(r, 4, "sample packet size %u", size);
		break;
	default:
		err = 0;
	}
	if (!err && r->have - r->pos < size)
		err = want(r, size, size, &h);
	if (!err)
		err = check_whole(r, h, known);
out:
	if (err)
		return err;
	r->pos += size;
	*rec = h;
	return 1;
}

int exp_reader_at(struct exp_reader *r, uint64_t off,
		  const struct lwprof_rec **rec)
{
	int ret;

	/*
	 * The buffer holds the file's bytes [base, base + have) and the
	 * descriptor's position is base + have (fill() reads on from there):
	 * keep both true when moving.
	 */
	if (off >= r->base && off < r->base + r->have) {
		r->pos = off - r->base;
	} else {
		if (lseek(r->fd, off, SEEK_SET) < 0)
			return sys_err(r, -errno, "lseek: ");
		r->base = off;
		r->have = 0;
		r->pos = 0;
		r->eof = false;
	}
	r->random = true;
	r->off = off;
	if (off < sizeof(r->hdr) || off % 8)
		return bad(r, 0, "no record starts here");
	ret = exp_reader_next(r, rec);
	return ret ? ret : bad(r, 0, "no record: the end of the file");
}

void exp_reader_close(struct exp_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
	free(r->xbuf);
	r->xbuf = NULL;
}
