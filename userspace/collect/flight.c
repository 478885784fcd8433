// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (collect --flight SIZE|SECONDS): the records of the
 * source's rings are copied into this process's memory instead of files,
 * and only the last SIZE bytes, or the last SECONDS, are kept; on the
 * snapshot signal and at the end, the window becomes an experiment of its
 * own (flight_write).  In the recorder, not the module: the rings stay
 * the module's ordinary ones (no kernel change, and any recording source
 * works the same, the perf backend too), the bound is on memory that is
 * ours (not locked ring pages), and what a snapshot needs besides the
 * window is here: every live process's TASK and MMAP records (kept
 * apart, not evicted with the window, dropped once the process, or for a
 * thread's TASK records the thread, exited before the window) and the
 * pause state at the window's start.
 *
 * The window is one byte FIFO of entries (struct fent, then the record),
 * in the order the rings were read; an entry that would wrap is placed at
 * the start after a skip entry.  The oldest go first.  That order is not
 * quite time's: each take copies one ring, then the next, so a ring's
 * records can follow newer ones of the ring before (by a drain period).
 * Eviction stops at the first entry in the window; the snapshot lets go
 * of what older remains behind it (trim), so that the window it writes is
 * exactly every record after its start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "userspace/collect/collect.h"

#define F_SKIP	0xffffffffu	/* fent.ring: padding to the buffer's end */
#define F_GS	0xfffffffeu	/* ... a global sample packet */
#define WBUF	65536		/* write buffer per file */
#define F_WHOLE	(65536 + 8192)	/* the largest sample: 64 KiB of stack, frames */

struct fent {
	__u32 ring;
	__u32 size;		/* of the record after it */
};

struct srec {			/* a TASK or MMAP record kept apart */
	unsigned int ring;
	struct lwprof_rec *rec;
};

/*
 * A thread's last stack copy that was a base (LWPROF_RS_SBASE) in paused
 * time, not kept: the next delta copy of its thread in its ring needs it.
 */
struct pbase {
	unsigned int ring;
	__u32 tid;
	struct lwprof_rec *rec;
};

struct flight {
	unsigned char *buf;
	__u64 cap, head, tail;	/* positions only grow; index = pos % cap */
	__u64 window_ns;	/* 0: by size only */
	const struct rec_ring *rings;
	unsigned int nr;
	struct srec *st;
	size_t nst, capst, pruned_at;
	__u64 start_ns;		/* the window's start: after the newest let go */
	__u64 evicted, dropped;	/* records let go, records too large */
	__u64 paused_out;	/* samples wholly in paused time, not kept */
	const struct gsamp *gs;	/* the pause state */
	struct pbase *pb;	/* bases left out in paused time */
	size_t npb, cappb;
	unsigned char *whole;	/* a sample that wraps, made whole (F_WHOLE) */
	bool paused_at_start;	/* the window starts paused */
	unsigned int snapshots;
};

static __u64 rec_time(const struct lwprof_rec *r)
{
	/* every record type has its time after the header */
	return ((const __u64 *)r)[1];
}

static struct fent *at(struct flight *f, __u64 pos)
{
	return (struct fent *)(f->buf + pos % f->cap);
}

/*
 * Let entry e go, leaving it in place as a skip entry: the window's start
 * is past it, and its pause state is the start's.  The global packets are
 * in time order among themselves, in the FIFO's order, so the last one let
 * go says whether the window starts paused.
 */
static void let_go(struct flight *f, struct fent *e)
{
	const struct exp_rec_gsample *g = (const void *)(e + 1);
	__u64 t;

	if (e->ring == F_SKIP)
		return;
	if (e->ring == F_GS && g->kind == EXP_GS_PAUSE)
		f->paused_at_start = true;
	else if (e->ring == F_GS && (g->kind == EXP_GS_RESUME ||
				     g->kind == EXP_GS_END))
		f->paused_at_start = false;
	t = rec_time((const void *)(e + 1)) + 1;
	if (t > f->start_ns)
		f->start_ns = t;
	f->evicted++;
	e->ring = F_SKIP;
}

/* Let the oldest entry go. */
static void evict(struct flight *f)
{
	struct fent *e = at(f, f->tail);

	let_go(f, e);
	f->tail += sizeof(*e) + e->size;
}

/*
 * Before a snapshot: the window starts a nanosecond after the newest
 * record let go, or for --flight SECONDS at now - SECONDS if later, and
 * not before the run; let go of every entry older than that start still
 * behind the tail (ring order, above).  The window is then exactly the
 * records from its start on.
 */
static void trim(struct flight *f, __u64 run_start, __u64 now)
{
	__u64 pos, start;

	if (!f->evicted)
		f->start_ns = run_start;
	if (f->window_ns && now > f->window_ns && now - f->window_ns > f->start_ns)
		f->start_ns = now - f->window_ns;
	if (f->start_ns < run_start)
		f->start_ns = run_start;
	start = f->start_ns;
	for (pos = f->tail; pos < f->head;) {
		struct fent *e = at(f, pos);

		pos += sizeof(*e) + e->size;
		if (e->ring != F_SKIP && rec_time((const void *)(e + 1)) < start)
			let_go(f, e);
	}
}

/* Room for a record of size bytes, contiguous: its entry's record. */
static void *alloc(struct flight *f, __u32 ring, __u32 size)
{
	__u64 need = sizeof(struct fent) + size, pad;
	struct fent *e;

	if (need > f->cap / 2) {
		f->dropped++;
		return NULL;
	}
	pad = f->head % f->cap + need > f->cap ? f->cap - f->head % f->cap : 0;
	while (f->head - f->tail + pad + need > f->cap)
		evict(f);
	if (pad) {
		e = at(f, f->head);
		e->ring = F_SKIP;
		e->size = pad - sizeof(*e);
		f->head += pad;
	}
	e = at(f, f->head);
	e->ring = ring;
	e->size = size;
	f->head += need;
	return e + 1;
}

int flight_create(struct flight **fp, const struct rec_opts *o,
		  const struct rec_ring *rings, unsigned int nr,
		  const struct gsamp *gs)
{
	struct flight *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->cap = o->flight_bytes ? o->flight_bytes : COLLECT_FLIGHT_CAP;
	f->window_ns = o->flight_ns;
	/* untouched pages cost nothing: the memory grows to the window */
	f->buf = malloc(f->cap);
	f->whole = malloc(F_WHOLE);
	if (!f->buf || !f->whole) {
		free(f->buf);
		free(f->whole);
		free(f);
		return -ENOMEM;
	}
	f->rings = rings;
	f->nr = nr;
	f->gs = gs;
	*fp = f;
	return 0;
}

/* A TASK or MMAP record: kept apart, as long as its process lives. */
static void keep_state(struct flight *f, unsigned int ring,
		       const struct lwprof_rec *h)
{
	struct srec *n;

	if (f->nst == f->capst) {
		n = realloc(f->st, (f->capst ? 2 * f->capst : 256) * sizeof(*n));
		if (!n) {
			f->dropped++;
			return;
		}
		f->st = n;
		f->capst = f->capst ? 2 * f->capst : 256;
	}
	n = &f->st[f->nst];
	n->rec = malloc(h->size);
	if (!n->rec) {
		f->dropped++;
		return;
	}
	memcpy(n->rec, h, h->size);
	n->ring = ring;
	f->nst++;
}

static int pid_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Drop the state of processes that ended before the window, and the
 * TASK records of threads that did (a service's thread churn would grow
 * it without bound).
 */
static void prune(struct flight *f)
{
	__u32 *dead = malloc(2 * (f->nst + 1) * sizeof(*dead)), *gone;
	size_t i, j, nd = 0, ng = 0;

	if (!dead)
		return;
	gone = dead + f->nst + 1;
	for (i = 0; i < f->nst; i++) {
		const struct lwprof_rec_task *t = (const void *)f->st[i].rec;

		if (t->hdr.type != LWPROF_REC_TASK || t->event != LWPROF_TASK_EXIT ||
		    t->time_ns >= f->start_ns)
			continue;
		if (t->pid == t->tid)
			dead[nd++] = t->pid;
		else
			gone[ng++] = t->tid;
	}
	qsort(dead, nd, sizeof(*dead), pid_cmp);
	qsort(gone, ng, sizeof(*gone), pid_cmp);
	for (i = j = 0; i < f->nst; i++) {
		/* TASK and MMAP records both have pid, then tid, after the time */
		const __u32 *id = (const __u32 *)f->st[i].rec + 4;
		bool drop = nd && bsearch(&id[0], dead, nd, sizeof(*dead), pid_cmp);

		if (!drop && ng && f->st[i].rec->type == LWPROF_REC_TASK &&
		    id[0] != id[1])
			drop = bsearch(&id[1], gone, ng, sizeof(*gone), pid_cmp);
		if (drop)
			free(f->st[i].rec);
		else
			f->st[j++] = f->st[i];
	}
	f->nst = j;
	f->pruned_at = j;
	free(dead);
}

/*
 * A sample record, whole or compact (the perf backend's): both have the
 * fields read here at the same offsets, but for the stack copy's size.
 */
static bool is_sample(const struct lwprof_rec *h)
{
	return (h->type == LWPROF_REC_SAMPLE &&
		h->size >= sizeof(struct lwprof_rec_sample)) ||
	       (h->type == EXP_REC_CSAMPLE &&
		h->size >= sizeof(struct exp_rec_csample));
}

static __u32 stack_size(const struct lwprof_rec *h)
{
	if (h->type == EXP_REC_CSAMPLE)
		return ((const struct exp_rec_csample *)h)->stack_size;
	return ((const struct lwprof_rec_sample *)h)->stack_size;
}

/*
 * A sample wholly in the pause under way, or in the last one that ended
 * (its span, the time since its thread's last packet, inside it), is in
 * no metric: not kept, so that a paused flight recorder keeps its window
 * for what counts.  The last ended pause too: a sample of the pause may
 * reach the ring, or be taken from it, after the resume was read.
 */
static bool paused_out(struct flight *f, const struct lwprof_rec *h)
{
	const struct lwprof_rec_sample *r = (const void *)h;
	const struct gsamp *gs = f->gs;
	__u64 span, t0;

	if (!is_sample(h))
		return false;
	span = r->kind == LWPROF_SK_CLOCK ? r->value : 0;
	if (r->time_ns < span)
		return false;
	t0 = r->time_ns - span;
	if (gs->paused && t0 >= gs->paused_at)
		return true;
	return gs->last_to && t0 >= gs->last_from && r->time_ns < gs->last_to;
}

static struct pbase *pbase_find(struct flight *f, unsigned int ring, __u32 tid)
{
	size_t i;

	for (i = 0; i < f->npb; i++)
		if (f->pb[i].ring == ring && f->pb[i].tid == tid)
			return &f->pb[i];
	return NULL;
}

static void pbase_drop(struct flight *f, struct pbase *b)
{
	free(b->rec);
	*b = f->pb[--f->npb];
}

/*
 * A sample of ring i, whole at h (size bytes), wholly in paused time and
 * not kept: if its stack copy is its thread's next base, keep that one
 * record aside, in place of the one before it.
 */
static void pbase_keep(struct flight *f, unsigned int i,
		       const struct lwprof_rec *h)
{
	const struct lwprof_rec_sample *r = (const void *)h;
	struct pbase *b = pbase_find(f, i, r->tid), *n;
	struct lwprof_rec *c;

	if (!(h->flags & LWPROF_RS_SBASE) || !stack_size(h))
		return;
	c = malloc(h->size);
	if (!c)
		return;
	memcpy(c, h, h->size);
	if (!b) {
		if (f->npb == f->cappb) {
			n = realloc(f->pb, (f->cappb ? 2 * f->cappb : 16) * sizeof(*n));
			if (!n) {
				free(c);
				return;
			}
			f->pb = n;
			f->cappb = f->cappb ? 2 * f->cappb : 16;
		}
		b = &f->pb[f->npb++];
		b->ring = i;
		b->tid = r->tid;
		b->rec = NULL;
	}
	free(b->rec);
	b->rec = c;
}

/*
 * A sample of ring i about to be kept: a delta copy whose base was left
 * out in paused time gets that base back first, before it in the window
 * (the analyzer leaves the base's packet out of every metric but reads
 * its copy); a whole copy is its thread's new base.
 */
static void pbase_before(struct flight *f, unsigned int i,
			 const struct lwprof_rec *h)
{
	const struct lwprof_rec_sample *r = (const void *)h;
	struct pbase *b;
	void *dst;

	if (!f->npb || !is_sample(h) || !stack_size(h))
		return;
	b = pbase_find(f, i, r->tid);
	if (!b)
		return;
	if ((h->flags & LWPROF_RS_SDELTA) &&
	    (dst = alloc(f, i, b->rec->size))) {
		memcpy(dst, b->rec, b->rec->size);
		f->paused_out--;
	}
	pbase_drop(f, b);
}

/* Copy ring i's new records and give the ring its bytes back. */
static void take_ring(struct flight *f, unsigned int i)
{
	const struct rec_ring *rr = &f->rings[i];
	unsigned char *whole = f->whole;
	/* Pairs with the source's store-release of head, after the bytes. */
	__u64 head = __atomic_load_n(rr->head, __ATOMIC_ACQUIRE);
	__u64 pos = *rr->tail, mask = rr->size - 1, first;
	const struct lwprof_rec *h;
	unsigned char *dst;

	while (pos < head) {
		h = (const void *)(rr->data + (pos & mask));
		if (h->size < sizeof(*h) || h->size % 8 || h->size > head - pos)
			break;	/* the protocol broken: leave the rest */
		first = rr->size - (pos & mask);
		if (is_sample(h) && first < h->size &&
		    h->size <= F_WHOLE) {	/* made whole to be read */
			memcpy(whole, h, first);
			memcpy(whole + first, rr->data, h->size - first);
			h = (const void *)whole;
		}
		if (paused_out(f, h)) {
			f->paused_out++;
			if (first >= h->size || h == (const void *)whole)
				pbase_keep(f, i, h);
		} else if (first >= h->size &&
		    (h->type == LWPROF_REC_TASK || h->type == LWPROF_REC_MMAP)) {
			keep_state(f, i, h);
		} else if (h->type == LWPROF_REC_TASK || h->type == LWPROF_REC_MMAP) {
			struct lwprof_rec *tmp = malloc(h->size);

			if (tmp) {
				memcpy(tmp, h, first);
				memcpy((unsigned char *)tmp + first, rr->data,
				       h->size - first);
				keep_state(f, i, tmp);
				free(tmp);
			}
		} else {
			if (is_sample(h) &&
			    (first >= h->size || h == (const void *)whole))
				pbase_before(f, i, h);
			if ((dst = alloc(f, i, h->size))) {
				if (h == (const void *)whole) {
					memcpy(dst, whole, h->size);
				} else {
					memcpy(dst, h, first < h->size ? first : h->size);
					if (first < h->size)
						memcpy(dst + first, rr->data,
						       h->size - first);
				}
			}
		}
		pos += h->size;
	}
	/* Everything below pos is copied: the source may reuse it. */
	__atomic_store_n(rr->tail, pos, __ATOMIC_RELEASE);
}

void flight_take(struct flight *f, __u64 now)
{
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		take_ring(f, i);
	while (f->window_ns && f->tail < f->head && now > f->window_ns) {
		struct fent *e = at(f, f->tail);

		if (e->ring != F_SKIP &&
		    rec_time((const void *)(e + 1)) >= now - f->window_ns)
			break;
		evict(f);
	}
	if (f->nst > 2 * f->pruned_at + 256)
		prune(f);
}

void flight_gs(void *arg, const void *rec, size_t size)
{
	struct flight *f = arg;
	void *dst = alloc(f, F_GS, size);

	if (dst)
		memcpy(dst, rec, size);
}

/* Buffered appends to the snapshot's files. */
struct wbuf {
	int fd;
	size_t n;
	unsigned char b[WBUF];
};

static int wput(struct wbuf *w, const void *p, size_t len)
{
	if (w->n + len > sizeof(w->b) || !p) {
		if (w->n && write(w->fd, w->b, w->n) != (ssize_t)w->n)
			return -EIO;
		w->n = 0;
	}
	if (!p)
		return 0;
	if (len > sizeof(w->b))
		return write(w->fd, p, len) == (ssize_t)len ? 0 : -EIO;
	memcpy(w->b + w->n, p, len);
	w->n += len;
	return 0;
}

/* A packet the snapshot adds: its window's start, pause, end. */
static int put_gs(struct wbuf *w, int kind, __u64 t, const struct gsamp *gs)
{
	unsigned char buf[sizeof(struct exp_rec_gsample) + 8];
	struct exp_rec_gsample g;
	size_t n;

	memset(&g, 0, sizeof(g));
	if (kind == EXP_GS_END && gs->has_last) {
		g = gs->last;
		g.hdr.flags = EXP_GS_STATS;
		g.pid = gs->pid;
	}
	g.time_ns = t;
	g.kind = kind;
	g.paused_ns = gs->paused_ns;
	n = exp_gsample_encode(buf, sizeof(buf), &g, NULL);
	return wput(w, buf, n);
}

/* The files' records: state, then the window, in order. */
static int write_records(struct flight *f, struct exp_writer *w,
			 struct wbuf *wb, struct archiver *a,
			 const struct gsamp *gs, __u64 now)
{
	struct wbuf *gw = &wb[f->nr];
	const struct lwprof_rec *r;
	__u64 pos;
	size_t i;
	int err;

	err = put_gs(gw, EXP_GS_START, f->start_ns, gs);
	if (!err && f->paused_at_start)
		err = put_gs(gw, EXP_GS_PAUSE, f->start_ns, gs);
	for (i = 0; !err && i < f->nst; i++) {
		r = f->st[i].rec;
		archiver_rec(a, r);
		err = wput(&wb[f->st[i].ring], r, r->size);
		w->records++;
	}
	for (pos = f->tail; !err && pos < f->head;) {
		struct fent *e = at(f, pos);

		pos += sizeof(*e) + e->size;
		if (e->ring == F_SKIP)
			continue;
		r = (const void *)(e + 1);
		err = wput(e->ring == F_GS ? gw : &wb[e->ring], r, r->size);
		if (e->ring == F_GS)
			continue;
		w->records++;
		if (r->type == LWPROF_REC_LOST)
			w->lost += ((const struct lwprof_rec_lost *)r)->lost;
	}
	if (!err && !gs->halted)
		err = put_gs(gw, EXP_GS_END, now, gs);
	for (i = 0; !err && i <= f->nr; i++)
		err = wput(&wb[i], NULL, 0);
	return err;
}

/* The snapshot's name: -o NAME.er, then NAME.2.er ...; or test.N.er. */
static const char *snap_name(const struct rec_opts *o, unsigned int n,
			     char *buf, size_t len)
{
	size_t l;

	if (!o->output)
		return NULL;
	if (n == 1)
		return o->output;
	l = strlen(o->output) - 3;
	snprintf(buf, len, "%.*s.%u.er", (int)l, o->output, n);
	return buf;
}

int flight_write(struct flight *f, const struct exp_writer *tmpl,
		 const struct rec_opts *o, int child, __u32 abi_major,
		 __u32 abi_minor, const struct gsamp *gs, __u64 now)
{
	char path[4096], name[4096];
	struct archiver *a = NULL;
	struct exp_writer w;
	struct wbuf *wb;
	unsigned int i;
	int err;

	flight_take(f, now);
	trim(f, tmpl->start_ns, now);
	prune(f);
	err = exp_create(&w, o->dir, snap_name(o, ++f->snapshots, name,
					       sizeof(name)), path, sizeof(path));
	if (err) {
		fprintf(stderr, COLLECT ": cannot create %s: %s\n", path,
			strerror(-err));
		return err;
	}
	w.who = COLLECT;
	w.set = tmpl->set;
	w.target = tmpl->target;
	w.start_ns = f->start_ns;
	w.end_ns = now;
	w.start_rt = tmpl->start_rt;	/* the run's, not the window's */
	clock_gettime(CLOCK_REALTIME, &w.end_rt);
	w.exit_status = tmpl->finished ? tmpl->exit_status : -1;
	for (i = 0; i < tmpl->nr_notes; i++)
		exp_note(&w, tmpl->notes[i].key, "%s", tmpl->notes[i].value);
	if (f->paused_out)
		exp_note(&w, EXP_K_FLIGHT_PAUSED_OUT, "%llu", (unsigned long long)f->paused_out);
	exp_note(&w, EXP_K_FLIGHT, "the last %g %s: %.3f s to %.3f s of the run, %llu records before it let go",
		 o->flight_ns ? o->flight_ns / 1e9 : (double)(o->flight_bytes >> 20),
		 o->flight_ns ? "s" : "MB", (f->start_ns - tmpl->start_ns) / 1e9,
		 (now - tmpl->start_ns) / 1e9, (unsigned long long)f->evicted);
	wb = calloc(f->nr + 1, sizeof(*wb));
	err = wb ? exp_create_files(&w, f->nr, abi_major, abi_minor) : -ENOMEM;
	if (!err)
		err = exp_create_samples(&w, abi_major, abi_minor);
	if (!err)
		err = archiver_start(&w, child, &a);
	if (!err) {
		for (i = 0; i < f->nr; i++) {
			wb[i].fd = w.fds[i];
			lseek(w.fds[i], sizeof(struct exp_file_header), SEEK_SET);
		}
		wb[f->nr].fd = w.samples_fd;
		err = write_records(f, &w, wb, a, gs, now);
	}
	if (a)
		archiver_finish(a, false);
	free(wb);
	if (err) {
		exp_warn(&w, "writing the snapshot: %s", strerror(-err));
		fprintf(stderr, COLLECT ": %s: %s\n", w.path, strerror(-err));
	}
	if (f->dropped)
		exp_warn(&w, "%llu records could not be kept (out of memory, or larger than half the window)",
			 (unsigned long long)f->dropped);
	w.finished = true;
	err = exp_write_log(&w);
	fprintf(stderr, COLLECT ": %s: %llu records of the last %.3f s\n", w.path,
		(unsigned long long)w.records, (now - f->start_ns) / 1e9);
	exp_free(&w);
	return err;
}

void flight_destroy(struct flight *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nst; i++)
		free(f->st[i].rec);
	free(f->st);
	for (i = 0; i < f->npb; i++)
		free(f->pb[i].rec);
	free(f->pb);
	free(f->whole);
	free(f->buf);
	free(f);
}
