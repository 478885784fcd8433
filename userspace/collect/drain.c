// SPDX-License-Identifier: GPL-2.0
/*
 * Draining a recording source's rings (backend.h: the module's per-CPU
 * rings, or any other) into the experiment's cpu.N.rec files with
 * io_uring: each write goes straight from the ring to its file offset
 * (64-byte file header + the ring's byte position), a region that wraps
 * around the ring's end is two writes, and the ring's tail moves
 * (store-release) only over bytes whose write has completed, in order.
 * The caller owns the event loop: it calls drain_kick() when the device
 * polls readable or its flush timer fires, and drain_complete() for every
 * completion tagged UD_WRITE.
 */
#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/format.h"
#include "userspace/collect/collect.h"

#define QMAX	8	/* writes in flight per ring */

struct dwrite {
	__u64 start, end;	/* ring byte positions */
	int done;
};

struct dring {
	__u64 *head, *tail_pub;	/* the source's and ours, shared */
	unsigned char *data;
	__u64 size;		/* data bytes, a power of two */
	__u64 base;		/* the tail at the start: file offset 0 */
	__u64 tail;		/* what we published */
	__u64 queued;		/* bytes handed to io_uring */
	__u64 seen;		/* records up to here were watched */
	unsigned int first, n;	/* in-flight writes: q[first..first+n) */
	struct dwrite q[QMAX];
};

struct drain {
	struct io_uring ring;
	unsigned int nr;
	__u64 bytes;		/* written to the files */
	int error;		/* the first write error */
	unsigned int watch_types;	/* mask of 1 << LWPROF_REC_* */
	void (*watch)(void *arg, const struct lwprof_rec *rec);
	void *watch_arg;
	bool watch_missed;	/* a record was not shown to the watcher */
	struct dring r[];
};

struct io_uring *drain_ring(struct drain *d)
{
	return &d->ring;
}

static unsigned int ring_entries(unsigned int nr)
{
	unsigned int e = 64;

	while (e < nr * QMAX + 16 && e < 4096)
		e *= 2;
	return e;
}

int drain_create(struct drain **dp, const struct rec_ring *rings,
		 unsigned int nr, const int *fds)
{
	struct drain *d;
	unsigned int i;
	int err;

	d = calloc(1, sizeof(*d) + nr * sizeof(d->r[0]));
	if (!d)
		return -ENOMEM;
	d->nr = nr;
	for (i = 0; i < nr; i++) {
		struct dring *r = &d->r[i];

		if (!rings[i].size || (rings[i].size & (rings[i].size - 1))) {
			err = -EINVAL;
			goto fail;
		}
		r->head = rings[i].head;
		r->tail_pub = rings[i].tail;
		r->data = rings[i].data;
		r->size = rings[i].size;
		r->base = __atomic_load_n(r->tail_pub, __ATOMIC_ACQUIRE);
		r->tail = r->queued = r->seen = r->base;
	}
	err = io_uring_queue_init(ring_entries(nr), &d->ring, 0);
	if (err)
		goto fail;
	/* no rings (tracing alone; the flight recorder copies them itself) */
	err = nr ? io_uring_register_files(&d->ring, fds, nr) : 0;
	if (err) {
		io_uring_queue_exit(&d->ring);
		goto fail;
	}
	*dp = d;
	return 0;
fail:
	free(d);
	return err;
}

struct io_uring_sqe *drain_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	return sqe;
}

/* Queue the write of ring bytes [w->start, w->end) (within one lap). */
static int submit_write(struct drain *d, unsigned int ri, unsigned int slot)
{
	struct dring *r = &d->r[ri];
	struct dwrite *w = &r->q[slot];
	struct io_uring_sqe *sqe = drain_sqe(&d->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_write(sqe, ri, r->data + (w->start & (r->size - 1)),
			    w->end - w->start,
			    sizeof(struct exp_file_header) + w->start - r->base);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_WRITE, (__u64)ri << 16 | slot));
	return 0;
}

void drain_watch(struct drain *d, unsigned int types,
		 void (*fn)(void *arg, const struct lwprof_rec *rec),
		 void *arg)
{
	d->watch_types = types;
	d->watch = fn;
	d->watch_arg = arg;
}

/*
 * Show the watcher the records in [seen, head).  Headers are 8 bytes at
 * 8-byte positions, so one never wraps; a record that does is copied out
 * whole.  A size the protocol forbids ends the watching of this ring (the
 * writes still go out: the file shows the damage); that, or a record too
 * large to copy out, is what drain_watch_missed() reports.
 */
static void watch_ring(struct drain *d, struct dring *r, __u64 head)
{
	union {
		struct lwprof_rec hdr;
		unsigned char b[8192];
	} buf;
	const struct lwprof_rec *h;
	__u64 mask = r->size - 1, first;

	while (r->seen < head) {
		h = (const void *)(r->data + (r->seen & mask));
		if (h->size < sizeof(*h) || h->size % 8 ||
		    h->size > head - r->seen) {
			r->seen = UINT64_MAX;
			d->watch_missed = true;
			return;
		}
		if (h->type < 32 && (d->watch_types >> h->type & 1)) {
			first = r->size - (r->seen & mask);
			if (first >= h->size) {
				d->watch(d->watch_arg, h);
			} else if (h->size <= sizeof(buf)) {
				memcpy(buf.b, h, first);
				memcpy(buf.b + first, r->data, h->size - first);
				d->watch(d->watch_arg, &buf.hdr);
			} else {
				d->watch_missed = true;
			}
		}
		r->seen += h->size;
	}
}

bool drain_watch_missed(const struct drain *d)
{
	return d->watch_missed;
}

/* Hand [queued, head) of ring ri to io_uring, split where it wraps. */
static int kick_ring(struct drain *d, unsigned int ri)
{
	struct dring *r = &d->r[ri];
	/* Pairs with the source's store-release of head, after the bytes. */
	__u64 head = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
	int err;

	if (head - r->tail > r->size)
		return -EPROTO;	/* the source broke the protocol */
	if (d->watch && r->seen != UINT64_MAX)
		watch_ring(d, r, head);
	while (r->queued < head && r->n < QMAX) {
		unsigned int slot = (r->first + r->n) % QMAX;
		__u64 lap_end = (r->queued | (r->size - 1)) + 1;
		struct dwrite *w = &r->q[slot];

		w->start = r->queued;
		w->end = head < lap_end ? head : lap_end;
		w->done = 0;
		err = submit_write(d, ri, slot);
		if (err)
			return err;
		r->n++;
		r->queued = w->end;
	}
	return 0;
}

int drain_kick(struct drain *d)
{
	unsigned int i;
	int err, ret = 0;

	for (i = 0; i < d->nr; i++) {
		err = kick_ring(d, i);
		if (err && !ret)
			ret = err;
	}
	err = io_uring_submit(&d->ring);
	if (err < 0 && !ret)
		ret = err;
	return ret;
}

/* Publish the tail over the writes that are done, oldest first. */
static void advance(struct dring *r)
{
	__u64 tail = r->tail;

	while (r->n && r->q[r->first].done) {
		tail = r->q[r->first].end;
		r->first = (r->first + 1) % QMAX;
		r->n--;
	}
	if (tail != r->tail) {
		r->tail = tail;
		/* All below tail is written: the source may reuse it. */
		__atomic_store_n(r->tail_pub, tail, __ATOMIC_RELEASE);
	}
}

int drain_complete(struct drain *d, __u64 data, int res)
{
	unsigned int ri = (data >> 16) & 0xffffff, slot = data & 0xffff;
	struct dring *r;
	struct dwrite *w;
	int err = 0;

	if (ri >= d->nr || slot >= QMAX)
		return -EINVAL;
	r = &d->r[ri];
	w = &r->q[slot];
	if (res == -EAGAIN || res == -EINTR)
		return submit_write(d, ri, slot);
	if (res > 0 && (__u64)res < w->end - w->start) {
		/* A short write: the rest goes after it. */
		w->start += res;
		d->bytes += res;
		return submit_write(d, ri, slot);
	}
	if (res <= 0) {
		/* The data is lost; free the ring anyway. */
		err = res ? res : -EIO;
		if (!d->error)
			d->error = err;
	} else {
		d->bytes += res;
	}
	w->done = 1;
	advance(r);
	return err;
}

unsigned int drain_busy(const struct drain *d)
{
	unsigned int i, n = 0;

	for (i = 0; i < d->nr; i++)
		n += d->r[i].n;
	return n;
}

bool drain_empty(struct drain *d)
{
	unsigned int i;

	for (i = 0; i < d->nr; i++) {
		struct dring *r = &d->r[i];

		if (r->n || r->queued != __atomic_load_n(r->head,
							 __ATOMIC_ACQUIRE))
			return false;
	}
	return true;
}

__u64 drain_bytes(const struct drain *d)
{
	return d->bytes;
}

void drain_destroy(struct drain *d)
{
	if (!d)
		return;
	io_uring_queue_exit(&d->ring);
	free(d);
}
