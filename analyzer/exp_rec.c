// SPDX-License-Identifier: GPL-2.0
/*
 * One cpu.N.rec file: the 64-byte file header, then the module's records.
 * Everything is checked (magic, versions, sizes, bounds, counts, reserved
 * fields); damage is an error naming the file and the byte offset, and a
 * record cut short at the end of the file is a warning: the records before
 * it are used.  Samples go into the compact sample table with their raw
 * user stack interned per address space.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an.h"

#define REC_MAX		(16u << 20)	/* no record is larger */
#define BUF_SIZE	(8u << 20)
#define TIME_SLACK_NS	(60ULL * 1000000000ULL)

struct rec_ctx {
	struct an *an;
	struct an_exp *e;
	uint32_t exp, cpu;
	const char *path;
	uint64_t off;		/* of the current record */
	bool time_warned;
	uint32_t last_pid, last_tid, last_thr, last_as;	/* lookup cache */
	/* the hashes of the samples ahead, for prefetching */
	uint64_t la1_off, la1_hash, la2_off, la2_hash;
	bool cur_ok;
	uint64_t cur_hash;
	struct an_sd_scan sd;	/* delta stack copies: the bases */
};

static uint32_t raw_flags(const struct lwprof_rec_sample *r)
{
	uint32_t flags = 0;

	if (r->hdr.flags & LWPROF_RS_TRUNC)
		flags |= AN_RAW_TRUNC;
	if (!r->nr_user && !r->nr_kernel)
		flags |= r->kind == LWPROF_SK_COUNTER ? AN_RAW_NOPROG : AN_RAW_UNKNOWN;
	return flags | (uint32_t)r->nr_kernel << AN_RAW_KSHIFT;
}

static const uint64_t *raw_ips(const struct lwprof_rec_sample *r)
{
	return (const uint64_t *)((const uint8_t *)r + sizeof(*r) +
				  (r->hdr.flags & LWPROF_RS_REGS ? LWPROF_NR_REGS * 8 : 0));
}

/*
 * Before the record at pos (size need) is handled: hash the sample two
 * records ahead and prefetch its table slot, prefetch the pool entry of
 * the one after this (its slot was prefetched a record ago), and hand
 * this one its hash.  Only samples of the last process seen (its address
 * space is known) and whole in the buffer take part.
 */
static void lookahead(struct rec_ctx *c, const uint8_t *buf, size_t pos,
		      size_t need, size_t have)
{
	const struct lwprof_rec_sample *r;
	size_t p2, next;
	uint64_t o = c->off;

	c->cur_ok = c->la1_off == o && c->la1_hash;
	c->cur_hash = c->la1_hash;
	c->la1_off = c->la2_off;
	c->la1_hash = c->la2_hash;
	c->la2_hash = 0;
	if (c->la1_off == o + need && c->la1_hash)
		an_raw_prefetch(c->an, c->la1_hash, 1);
	if (pos + need + 8 > have)
		return;
	/* Not checked yet: a bad size would misalign the one after it. */
	next = ((const struct lwprof_rec *)(buf + pos + need))->size;
	if (next < sizeof(struct lwprof_rec) || next % 8)
		return;
	p2 = pos + need + next;
	if (p2 + sizeof(*r) > have)
		return;
	r = (const void *)(buf + p2);
	if (r->hdr.type != LWPROF_REC_SAMPLE || r->hdr.size < sizeof(*r) ||
	    p2 + r->hdr.size > have || r->pid != c->last_pid || !c->last_pid ||
	    sizeof(*r) + (r->hdr.flags & LWPROF_RS_REGS ? LWPROF_NR_REGS * 8 : 0) +
	    8ULL * (r->nr_user + r->nr_kernel) > r->hdr.size)
		return;
	c->la2_off = o + (p2 - pos);
	c->la2_hash = an_raw_hash(c->last_as, raw_ips(r), r->nr_user + r->nr_kernel,
				  raw_flags(r));
	an_raw_prefetch(c->an, c->la2_hash, 0);
}

static int grow(void **p, size_t esz, size_t cap)
{
	void *np = realloc(*p, esz * cap);

	if (!np)
		return -ENOMEM;
	*p = np;
	return 0;
}

int an_sample_add(struct an *an, uint64_t t, uint32_t raw, uint32_t thr,
		  uint16_t cpu, uint32_t layout, const uint64_t *vals,
		  uint32_t nv)
{
	struct an_samples *s = &an->s;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 65536;

		if (grow((void **)&s->time, 8, cap) ||
		    grow((void **)&s->stack, 4, cap) ||
		    grow((void **)&s->thr, 4, cap) ||
		    grow((void **)&s->cpu, 2, cap) ||
		    grow((void **)&s->layout, sizeof(*s->layout), cap))
			return -ENOMEM;
		s->cap = cap;
	}
	if (s->nvals + nv > s->vcap) {
		size_t cap = s->vcap ? s->vcap * 2 : 65536;

		if (grow((void **)&s->vals, 8, cap))
			return -ENOMEM;
		s->vcap = cap;
	}
	s->time[s->n] = t;
	s->stack[s->n] = raw;
	s->thr[s->n] = thr;
	s->cpu[s->n] = cpu;
	s->layout[s->n] = layout;
	memcpy(s->vals + s->nvals, vals, nv * 8);
	s->nvals += nv;
	s->n++;
	return 0;
}

static int bad(struct rec_ctx *c, uint64_t field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct rec_ctx *c, uint64_t field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return an_errf(c->an, -EINVAL, "%s: byte %" PRIu64 ": %s", c->path,
		       c->off + field, msg);
}

/*
 * A record's time should be within the run (records are taken while
 * sampling is on).  One outside it is kept, with one warning per file: a
 * damaged time, or a clock the log does not describe.
 */
static void time_check(struct rec_ctx *c, uint64_t t)
{
	struct an_exp *e = c->e;

	if (c->time_warned || !e->start_ns)
		return;
	if (t + TIME_SLACK_NS >= e->start_ns &&
	    (!e->end_ns || t <= e->end_ns + TIME_SLACK_NS))
		return;
	c->time_warned = true;
	an_warn(c->an, "%s: byte %" PRIu64 ": time %" PRIu64 " is outside the run (%" PRIu64 " to %" PRIu64 " ns); the first such record in this file",
		c->path, c->off + 8, t, e->start_ns, e->end_ns);
}

static int do_sample(struct rec_ctx *c, const struct lwprof_rec_sample *r,
		     const uint8_t *rec)
{
	struct an *an = c->an;
	struct an_exp *e = c->e;
	uint64_t vals[AN_SAMPLE_VALUES_MAX], want, at;
	const uint64_t *ips;
	struct an_thread *th;
	uint32_t thr, as, raw, flags = 0, layout;
	char msg[128];
	int nv;

	if (r->hdr.flags & ~0xff)
		return bad(c, 2, "unknown sample flags 0x%x", r->hdr.flags);
	want = sizeof(*r) + (r->hdr.flags & LWPROF_RS_REGS ? LWPROF_NR_REGS * 8 : 0) +
	       8ULL * (r->nr_user + r->nr_kernel) + ((r->stack_size + 7ULL) & ~7ULL);
	if (want != r->hdr.size)
		return bad(c, 4, "sample size %u, its fields need %" PRIu64,
			   r->hdr.size, want);
	if (r->stack_size && !(r->hdr.flags & LWPROF_RS_REGS))
		return bad(c, 124, "stack copy without registers");
	if (e->stack_bytes && r->stack_size > e->stack_bytes)
		return bad(c, 124, "stack copy of %u bytes, log.txt says at most %u",
			   r->stack_size, e->stack_bytes);
	if (e->max_depth && (r->nr_user > e->max_depth + 1 ||
			     r->nr_kernel > e->max_depth + 1))
		return bad(c, 120, "%u user / %u kernel frames, max_depth is %u",
			   r->nr_user, r->nr_kernel, e->max_depth);
	time_check(c, r->time_ns);
	if (e->cpus_possible && r->cpu >= e->cpus_possible)
		return bad(c, 24, "cpu %u of %u", r->cpu, e->cpus_possible);
	if (!r->pid || !r->tid)
		return bad(c, 16, "pid %u tid %u", r->pid, r->tid);
	nv = an_decode_sample(an, e, r, &layout, vals, msg, sizeof(msg), &at);
	if (nv == -ENOMEM)
		return an_errf(an, -ENOMEM, "out of memory");
	if (nv < 0)
		return bad(c, at, "%s", msg);

	if (r->pid == c->last_pid && r->tid == c->last_tid) {
		thr = c->last_thr;
		as = c->last_as;
	} else {
		thr = an_thread_get(an, c->exp, r->pid, r->tid);
		as = an_as_get(an, c->exp, r->pid, 0);
		c->last_pid = r->pid;
		c->last_tid = r->tid;
		c->last_thr = thr;
		c->last_as = as;
	}
	if (thr == UINT32_MAX || as == UINT32_MAX)
		return an_errf(an, -ENOMEM, "out of memory");
	th = &AN_VEC(an->threads, struct an_thread, thr);
	ips = raw_ips(r);
	flags = raw_flags(r);
	raw = an_raw_intern_h(an, c->cur_ok && as == c->last_as ? c->cur_hash :
			      an_raw_hash(as, ips, r->nr_user + r->nr_kernel, flags),
			      as, ips, r->nr_user + r->nr_kernel, flags);
	if (raw == UINT32_MAX)
		return an_errf(an, -ENOMEM, "out of memory");
	if (r->kind == LWPROF_SK_CLOCK && (r->hdr.flags & LWPROF_RS_EXIT)) {
		uint32_t *x;

		an->ld->exits.esz = 4;
		x = an_vec_push(&an->ld->exits);
		if (!x)
			return an_errf(an, -ENOMEM, "out of memory");
		*x = an->s.n;
	} else if (r->kind == LWPROF_SK_CLOCK &&
		   (!th->has_last || r->time_ns >= th->last_clock_ns)) {
		th->has_last = true;
		th->last_clock = an->s.n;
		th->last_clock_ns = r->time_ns;
	}
	if (r->stack_size && !(r->hdr.flags & LWPROF_RS_EXIT)) {
		const uint8_t *stack = (const uint8_t *)(ips + r->nr_user + r->nr_kernel);
		struct an_unw_ref *u;
		const char *why;
		int ok;

		ok = an_sd_sample(an, &c->sd, c->exp, c->cpu, c->off, r, stack,
				  e->stack_bytes, &why, &at);
		if (ok == -ENOMEM)
			return an_errf(an, -ENOMEM, "out of memory");
		if (ok < 0)
			return bad(c, at, "%s", why);
		if (!ok)
			goto no_copy;

		an->ld->deferred.esz = sizeof(*u);
		u = an_vec_push(&an->ld->deferred);
		if (!u)
			return an_errf(an, -ENOMEM, "out of memory");
		u->sample = an->s.n;
		u->exp = c->exp;
		u->file = c->cpu;
		u->off = c->off;
		u->as = as;
		u->flags = flags;
	}
no_copy:
	if (!th->nsamples || r->time_ns < th->first_ns)
		th->first_ns = r->time_ns;
	if (r->time_ns > th->last_ns)
		th->last_ns = r->time_ns;
	th->nsamples++;
	e->nsamples++;
	if (an_sample_add(an, r->time_ns, raw, thr, r->cpu, layout, vals, nv))
		return an_errf(an, -ENOMEM, "out of memory");
	return 0;
}

static int do_task(struct rec_ctx *c, const struct lwprof_rec_task *r)
{
	struct an_thread *th;
	struct an_task_ev *ev;
	uint32_t thr;

	if (r->hdr.size != sizeof(*r))
		return bad(c, 4, "task record size %u, want %zu", r->hdr.size,
			   sizeof(*r));
	if (r->event < LWPROF_TASK_START || r->event > LWPROF_TASK_COMM)
		return bad(c, 28, "unknown task event %u", r->event);
	if (r->hdr.flags)
		return bad(c, 2, "task flags 0x%x", r->hdr.flags);
	time_check(c, r->time_ns);
	if (!r->pid || !r->tid)
		return bad(c, 16, "pid %u tid %u", r->pid, r->tid);
	thr = an_thread_get(c->an, c->exp, r->pid, r->tid);
	if (thr == UINT32_MAX)
		return an_errf(c->an, -ENOMEM, "out of memory");
	th = &AN_VEC(c->an->threads, struct an_thread, thr);
	/*
	 * The latest record by time names the thread, whatever file it is
	 * in (the files are read one after the other); a tie goes to the one
	 * read last.
	 */
	if (r->event != LWPROF_TASK_EXIT &&
	    (!th->has_comm || r->time_ns >= th->comm_ns)) {
		memcpy(th->comm, r->comm, sizeof(th->comm) - 1);
		th->comm_ns = r->time_ns;
		th->has_comm = true;
	}
	if (r->ppid && (!th->ppid || r->time_ns >= th->ppid_ns)) {
		th->ppid = r->ppid;
		th->ppid_ns = r->time_ns;
	}
	if (r->event == LWPROF_TASK_EXEC ||
	    (r->event == LWPROF_TASK_FORK && r->pid == r->tid)) {
		ev = an_vec_push(&c->an->ld->tasks);
		if (!ev)
			return an_errf(c->an, -ENOMEM, "out of memory");
		*ev = (struct an_task_ev){ c->exp, r->pid, r->ppid, r->event,
					   r->time_ns };
	}
	return 0;
}

static int do_mmap(struct rec_ctx *c, const struct lwprof_rec_mmap *r)
{
	size_t plen = r->hdr.size - sizeof(*r);
	const char *path = r->path;
	struct an_map *m;
	uint32_t as, obj;
	const char *nul;

	if (r->hdr.size < sizeof(*r) + 8)
		return bad(c, 4, "mmap record size %u", r->hdr.size);
	nul = memchr(path, 0, plen);
	if (!nul || nul == path)
		return bad(c, sizeof(*r), "mmap path not NUL-terminated");
	for (const char *p = nul; p < path + plen; p++)
		if (*p)
			return bad(c, p - (const char *)r, "mmap path padding not zero");
	if (r->hdr.flags & ~LWPROF_MMAP_ANON)
		return bad(c, 2, "mmap flags 0x%x", r->hdr.flags);
	if (r->pad0)
		return bad(c, 68, "mmap pad0 not zero");
	if (!r->len || r->start + r->len < r->start)
		return bad(c, 24, "mapping 0x%llx + 0x%llx",
			   (unsigned long long)r->start, (unsigned long long)r->len);
	if (!r->pid)
		return bad(c, 16, "mmap of pid 0");
	time_check(c, r->time_ns);
	as = an_as_get(c->an, c->exp, r->pid, 0);
	obj = an_obj_get(c->an, c->exp, path, r->dev_major, r->dev_minor, r->ino,
			 r->hdr.flags & LWPROF_MMAP_ANON);
	if (as == UINT32_MAX || obj == UINT32_MAX)
		return an_errf(c->an, -ENOMEM, "out of memory");
	m = an_vec_push(&AN_VEC(c->an->as, struct an_as, as).maps);
	if (!m)
		return an_errf(c->an, -ENOMEM, "out of memory");
	m->start = r->start;
	m->end = r->start + r->len;
	m->pgoff = r->pgoff;
	m->time_ns = r->time_ns;
	m->obj = obj;
	return 0;
}

static int do_record(struct rec_ctx *c, const uint8_t *p)
{
	const struct lwprof_rec *h = (const void *)p;

	switch (h->type) {
	case LWPROF_REC_SAMPLE:
		if (h->size < sizeof(struct lwprof_rec_sample))
			return bad(c, 4, "sample record size %u", h->size);
		return do_sample(c, (const void *)p, p);
	case LWPROF_REC_TASK:
		return do_task(c, (const void *)p);
	case LWPROF_REC_MMAP:
		return do_mmap(c, (const void *)p);
	case LWPROF_REC_LOST: {
		const struct lwprof_rec_lost *l = (const void *)p;

		if (h->size != sizeof(*l))
			return bad(c, 4, "lost record size %u", h->size);
		if (l->pad0 || h->flags)
			return bad(c, 28, "lost record padding not zero");
		c->e->lost_read += l->lost;
		return 0;
	}
	case 0:
		return bad(c, 0, "record type 0");
	default:
		return 0;	/* a later minor's record: skip by size */
	}
}

static int check_header(struct rec_ctx *c, const struct lwprof_file_header *h)
{
	int i;

	if (memcmp(h->magic, LWPROF_FILE_MAGIC, 8))
		return bad(c, 0, "not an lwprof record file (bad magic)");
	if (h->byte_order != LWPROF_FILE_LE)
		return bad(c, 16, "byte order 0x%08x is not this machine's",
			   h->byte_order);
	if (h->major != LWPROF_FILE_MAJOR)
		return bad(c, 8, "format version %u.%u; this lwprof reads %u.x",
			   h->major, h->minor, LWPROF_FILE_MAJOR);
	if (h->cpu != c->cpu)
		return bad(c, 20, "header says cpu %u, the file is cpu %u", h->cpu,
			   c->cpu);
	if (h->abi_major != LWPROF_ABI_MAJOR)
		return bad(c, 24, "module ABI %u.%u; this lwprof reads %u.x",
			   h->abi_major, h->abi_minor, LWPROF_ABI_MAJOR);
	for (i = 0; i < 4; i++)
		if (h->reserved[i])
			return bad(c, 32 + 8 * i, "reserved field not zero");
	return 0;
}

/*
 * How many bytes the record at p needs before it can be handled: its size,
 * once the fixed part shows that size to be right for the type (so a
 * damaged size is an error, not a record "cut short").  0 after an error.
 */
static size_t rec_need(struct rec_ctx *c, const uint8_t *p, size_t avail)
{
	const struct lwprof_rec *h = (const void *)p;
	const struct lwprof_rec_sample *s = (const void *)p;
	uint64_t want;

	if (h->size < 8 || h->size % 8) {
		bad(c, 4, "record size %u", h->size);
		return 0;
	}
	if (h->size > REC_MAX) {
		bad(c, 4, "record size %u is too large", h->size);
		return 0;
	}
	switch (h->type) {
	case LWPROF_REC_SAMPLE:
		if (avail < sizeof(*s))
			return h->size < sizeof(*s) ? h->size : sizeof(*s);
		want = sizeof(*s) + (h->flags & LWPROF_RS_REGS ? LWPROF_NR_REGS * 8 : 0) +
		       8ULL * (s->nr_user + s->nr_kernel) +
		       ((s->stack_size + 7ULL) & ~7ULL);
		if (want != h->size) {
			bad(c, 4, "sample size %u, its fields need %" PRIu64, h->size,
			    want);
			return 0;
		}
		break;
	case LWPROF_REC_TASK:
		if (h->size != sizeof(struct lwprof_rec_task)) {
			bad(c, 4, "task record size %u, want %zu", h->size,
			    sizeof(struct lwprof_rec_task));
			return 0;
		}
		break;
	case LWPROF_REC_LOST:
		if (h->size != sizeof(struct lwprof_rec_lost)) {
			bad(c, 4, "lost record size %u, want %zu", h->size,
			    sizeof(struct lwprof_rec_lost));
			return 0;
		}
		break;
	case LWPROF_REC_MMAP:
		if (h->size < sizeof(struct lwprof_rec_mmap) + 8 ||
		    h->size > sizeof(struct lwprof_rec_mmap) + 4096 + 8) {
			bad(c, 4, "mmap record size %u", h->size);
			return 0;
		}
		break;
	case 0:
		bad(c, 0, "record type 0");
		return 0;
	}
	return h->size;
}

int an_read_rec(struct an *an, uint32_t exp, uint32_t cpu, const char *path)
{
	struct rec_ctx c = { an, &AN_VEC(an->exps, struct an_exp, exp), exp, cpu,
			     path, 0, false, 0, 0, 0, 0,
			     0, 0, 0, 0, false, 0, { { 0 }, { 0 }, 0 } };
	const size_t fh = sizeof(struct lwprof_file_header);
	size_t cap = BUF_SIZE, have = 0, pos = 0, avail, need;
	uint64_t base = 0;	/* file offset of buf[0] */
	uint8_t *buf = malloc(cap);
	bool eof = false, hdr_done = false;
	ssize_t r;
	int fd, err = 0;

	if (!buf)
		return an_errf(an, -ENOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return an_errf(an, -errno, "%s: %s", path, strerror(errno));
	}
	for (;;) {
		avail = have - pos;
		c.off = base + pos;
		if (!hdr_done)
			need = fh;
		else if (avail < 8)
			need = 8;
		else if (!(need = rec_need(&c, buf + pos, avail))) {
			err = -EINVAL;
			break;
		}
		if (avail < need && !eof) {
			if (pos) {
				memmove(buf, buf + pos, avail);
				base += pos;
				have = avail;
				pos = 0;
			}
			if (need > cap) {
				uint8_t *nb = realloc(buf, need);

				if (!nb) {
					err = an_errf(an, -ENOMEM, "out of memory");
					break;
				}
				buf = nb;
				cap = need;
			}
			r = read(fd, buf + have, cap - have);
			if (r < 0) {
				err = an_errf(an, -errno, "%s: %s", path, strerror(errno));
				break;
			}
			eof = !r;
			have += r;
			continue;
		}
		if (avail < need) {
			if (!hdr_done && avail)
				err = bad(&c, 0, "file header cut short (%zu of 64 bytes)",
					  avail);
			else if (!hdr_done)
				err = bad(&c, 0, "empty file: no file header");
			else if (avail)
				an_warn(an, "%s: byte %" PRIu64 ": last record cut short (%zu of %zu bytes); using the records before it",
					path, c.off, avail, need);
			break;
		}
		if (!hdr_done) {
			err = check_header(&c, (const void *)buf);
			if (err)
				break;
			hdr_done = true;
			pos += fh;
			continue;
		}
		lookahead(&c, buf, pos, need, have);
		err = do_record(&c, buf + pos);
		if (err)
			break;
		c.e->nrecords++;
		pos += need;
	}
	close(fd);
	free(buf);
	an_sd_scan_end(an, &c.sd, path);
	return err;
}
