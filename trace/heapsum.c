// SPDX-License-Identifier: GPL-2.0
/*
 * Heap calls counted, not written one by one (libexp/trace.h,
 * EXP_REC_THEAP): every allocation adds one to its (stack id, size,
 * slice) and every free one to (its allocation's stack id, size, slice,
 * the free's slice), a slice being TR_SLICE_NS of the monotonic clock.
 * The counts of a slice are written once it has passed, by the first
 * heap call of a later slice (the emitter: whichever thread makes it),
 * and all that are left at exit, before an exec or fork, and by a fatal
 * signal's handler.  So a file holds a record per slice with the sites
 * that slice used, however many calls they made: an allocation storm
 * writes no more than a quiet loop of the same calls.
 *
 * The counts are the process's, in STRIPES tables (by key, stripe.c)
 * behind spin flags, as live.c's blocks; the bytes in use and their peak
 * are two words updated with atomics.
 */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "trace.h"

#define STRIPES		256u
#define FIRST_CAP	64u
#define PER_REC		128u	/* entries a record, at most */

struct key {
	uint32_t stack;		/* the allocation's (0: a block not traced) */
	uint16_t event;
	uint16_t flags;		/* EXP_THE_FREE */
	uint64_t bytes;
	uint32_t slice;		/* of the call */
	uint32_t age;		/* a free: slices since its allocation's */
};

struct ent {
	struct key k;
	uint32_t count;		/* 0: free slot */
	uint32_t first;		/* ns of its first call after its slice's start */
};

static struct tr_stripe sums[STRIPES];	/* of struct ent */
static uint64_t t0;			/* slice 0's start */
static uint32_t emitted;		/* slices before this one are written */
static int emitting;
static int64_t in_use;			/* bytes, the process's */
static uint64_t peak, peak_time;

static inline uint64_t hash_key(const struct key *k)
{
	uint64_t h = (k->stack | (uint64_t)k->event << 32 |
		      (uint64_t)k->flags << 48) * 0x9e3779b97f4a7c15ULL;

	h ^= k->bytes * 0xff51afd7ed558ccdULL;
	h ^= (k->slice | (uint64_t)k->age << 32) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

static uint32_t home(const void *e)
{
	return hash_key(&((const struct ent *)e)->k) >> 8;
}

static void count(const struct key *k, uint64_t now)
{
	uint64_t h = hash_key(k);
	struct tr_stripe *s = &sums[h % STRIPES];
	struct ent e = { *k, 1, now - t0 - (uint64_t)k->slice * TR_SLICE_NS };
	struct ent *t;
	uint32_t i;

	tr_spin_lock(&s->lock);
	for (t = s->t, i = (h >> 8) & (s->cap - 1); s->cap && t[i].count;
	     i = (i + 1) & (s->cap - 1))
		if (!memcmp(&t[i].k, k, sizeof(*k))) {
			if (t[i].count != UINT32_MAX)
				t[i].count++;	/* 4 G calls in a slice: not */
			if (e.first < t[i].first)
				t[i].first = e.first;	/* another thread's, later */
			tr_spin_unlock(&s->lock);
			return;
		}
	if (2 * (s->n + 1) <= s->cap ||
	    tr_stripe_grow(s, sizeof(e), FIRST_CAP, home)) {
		tr_table_put(s->t, s->cap, sizeof(e), &e, home(&e));
		s->n++;
	}
	tr_spin_unlock(&s->lock);
}

/*
 * Where the records go (a sink): this thread's buffer, deflated in
 * groups of up to OUT_MAX bytes (out_put(), out_end()), or a fatal
 * signal's direct writes, whole.
 */
typedef void sink_fn(const void *rec, uint32_t size);

#define OUT_MAX		(256u << 10)

static uint8_t out_buf[OUT_MAX];	/* the emitter's (emitting held) */
static uint32_t out_len;
static z_stream zs;
static bool zs_ready;

static void out_end(void)
{
	struct exp_rec_tz *z;
	uint32_t bound, size;

	if (!out_len)
		return;
	if (!zs_ready && deflateInit(&zs, Z_BEST_COMPRESSION) == Z_OK)
		zs_ready = true;
	bound = zs_ready ? deflateBound(&zs, out_len) : 0;
	z = zs_ready ? (struct exp_rec_tz *)tr_reserve(sizeof(*z) + bound + 8) : NULL;
	if (z) {
		deflateReset(&zs);
		zs.next_in = out_buf;
		zs.avail_in = out_len;
		zs.next_out = z->z;
		zs.avail_out = bound;
		if (deflate(&zs, Z_FINISH) == Z_STREAM_END) {
			size = (sizeof(*z) + zs.total_out + 7) & ~7u;
			memset(z->z + zs.total_out, 0, size - sizeof(*z) - zs.total_out);
			z->hdr = (struct lwprof_rec){ EXP_REC_TZ, 0, size };
			z->raw = out_len;
			z->zbytes = zs.total_out;
			tr_commit(size);
			out_len = 0;
			return;
		}
	}
	/* no zlib, no room: the records whole */
	z = (struct exp_rec_tz *)tr_reserve(out_len);
	if (z) {
		memcpy(z, out_buf, out_len);
		tr_commit(out_len);
	}
	out_len = 0;
}

static void out_put(const void *rec, uint32_t size)
{
	if (out_len + size > OUT_MAX)
		out_end();
	memcpy(out_buf + out_len, rec, size);
	out_len += size;
}

static void put_direct(const void *rec, uint32_t size)
{
	tr_raw_write(tr.fd, rec, size);
}

/* The stacks' nodes (stackid.c) that wait for a record. */
static struct {
	int lock;
	uint32_t len, cap;
	uint8_t *p;
} chains;

void tr_heapsum_chain(const struct exp_tchain *c, const uint64_t *pc)
{
	uint32_t size = sizeof(*c) + 8 * c->nr, cap;
	uint8_t *p;

	tr_spin_lock(&chains.lock);
	if (chains.len + size > chains.cap) {
		cap = chains.cap ? 2 * chains.cap : 64u << 10;
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			tr_spin_unlock(&chains.lock);
			return;	/* its stacks will be <Unknown> */
		}
		if (chains.p) {
			memcpy(p, chains.p, chains.len);
			munmap(chains.p, chains.cap);
		}
		chains.p = p;
		chains.cap = cap;
	}
	memcpy(chains.p + chains.len, c, sizeof(*c));
	memcpy(chains.p + chains.len + sizeof(*c), pc, 8 * c->nr);
	chains.len += size;
	tr_spin_unlock(&chains.lock);
}

#define STACK_REC	(16u << 10)	/* bytes of a stack record, about */

static bool try_lock(int *l)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (!__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
			return true;
		sched_yield();
	}
	return false;
}

/* The waiting chains out, in records of about STACK_REC bytes. */
static void emit_chains(sink_fn *sink, bool lock)
{
	static uint8_t rec[STACK_REC + sizeof(struct exp_tchain) + 8 * EXP_TSTACK_MAX];
	struct exp_rec_tstack *r = (struct exp_rec_tstack *)rec;
	const struct exp_tchain *c;
	uint32_t off = 0, len = sizeof(*r), size;

	if (lock)
		tr_spin_lock(&chains.lock);
	else if (!try_lock(&chains.lock))
		return;
	*r = (struct exp_rec_tstack){ { EXP_REC_TSTACK, 0, 0 }, tr.pid, 0 };
	while (off < chains.len) {
		c = (const void *)(chains.p + off);
		size = sizeof(*c) + 8 * c->nr;
		memcpy(rec + len, c, size);
		len += size;
		off += size;
		r->nchain++;
		if (len >= STACK_REC || off == chains.len) {
			r->hdr.size = len;
			sink(rec, len);
			len = sizeof(*r);
			r->nchain = 0;
		}
	}
	chains.len = 0;
	tr_spin_unlock(&chains.lock);
}

/*
 * The entries of slices before `before` of every stripe out, as records
 * to sink; lock: take the flags (false: try a while, skip those held:
 * the process is dying).  Each stripe keeps the others, moved to a table
 * of the same size.
 */
struct recbuf {
	struct exp_rec_theap h;
	struct exp_theap_ent e[PER_REC];
};

static void rec_out(struct recbuf *r, sink_fn *sink)
{
	if (!r->h.nent)
		return;
	r->h.hdr.size = sizeof(r->h) + r->h.nent * sizeof(r->e[0]);
	r->h.peak = __atomic_load_n(&peak, __ATOMIC_RELAXED);
	r->h.peak_ns = __atomic_load_n(&peak_time, __ATOMIC_RELAXED);
	sink(r, r->h.hdr.size);
	r->h.nent = 0;
}

static void add_ent(struct recbuf *r, const struct ent *e, sink_fn *sink)
{
	struct exp_theap_ent *x;

	if (r->h.nent && (r->h.time_ns != t0 + (uint64_t)e->k.slice * TR_SLICE_NS ||
			  r->h.nent == PER_REC))
		rec_out(r, sink);
	r->h.time_ns = t0 + (uint64_t)e->k.slice * TR_SLICE_NS;
	x = &r->e[r->h.nent++];
	x->stack = e->k.stack;
	x->event = e->k.event;
	x->flags = e->k.flags;
	x->bytes = e->k.bytes;
	x->count = e->count;
	x->age = e->k.age;
	x->first_ns = e->first / 1000000 * 1000000;	/* to the ms: deflates */
	x->pad0 = 0;
}

static void drain(uint32_t before, bool lock, sink_fn *sink)
{
	struct recbuf r = { .h = { .hdr = { EXP_REC_THEAP, 0, 0 }, .pid = tr.pid,
				   .slice_ns = TR_SLICE_NS } };
	struct tr_stripe *s;
	struct ent *e, *t, *keep;
	uint32_t i, n, k;

	emit_chains(sink, lock);
	for (k = 0; k < STRIPES; k++) {
		s = &sums[k];
		if (lock)
			tr_spin_lock(&s->lock);
		else if (!try_lock(&s->lock))
			continue;
		if (!s->n) {
			tr_spin_unlock(&s->lock);
			continue;
		}
		/* out with the old; the rest rehashed through a spare table */
		t = s->t;
		for (i = n = 0; i < s->cap; i++)
			n += t[i].count && t[i].k.slice >= before;
		keep = n ? tr_table_new(s->cap, sizeof(*e)) : NULL;
		if (n && !keep) {	/* no memory: all stay, for later */
			tr_spin_unlock(&s->lock);
			continue;
		}
		for (i = 0; i < s->cap; i++) {
			e = &t[i];
			if (!e->count)
				continue;
			if (e->k.slice < before)
				add_ent(&r, e, sink);
			else
				tr_table_put(keep, s->cap, sizeof(*e), e, home(e));
		}
		if (keep) {
			munmap(t, s->cap * sizeof(*e));
			s->t = keep;
		} else {
			memset(t, 0, s->cap * sizeof(*e));
		}
		s->n = n;
		tr_spin_unlock(&s->lock);
	}
	rec_out(&r, sink);
	if (sink == out_put)
		out_end();
}

static uint32_t slice_of(uint64_t now)
{
	return now > t0 ? (now - t0) / TR_SLICE_NS : 0;
}

/* The slices before now's, if no other thread writes them. */
static void emit_passed(uint32_t slice)
{
	uint32_t e = __atomic_load_n(&emitted, __ATOMIC_RELAXED);

	if (e >= slice || __atomic_exchange_n(&emitting, 1, __ATOMIC_ACQUIRE))
		return;
	e = __atomic_load_n(&emitted, __ATOMIC_RELAXED);
	if (e < slice) {
		drain(slice, true, out_put);
		__atomic_store_n(&emitted, slice, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&emitting, 0, __ATOMIC_RELEASE);
}

void tr_heapsum_init(void)
{
	t0 = tr_now();	/* this process image's first slice starts with it */
}

void tr_heapsum_alloc(uint16_t event, uint64_t addr, uint64_t bytes,
		      uint32_t stack, uint64_t now)
{
	struct tr_block b = { addr, bytes, stack, slice_of(now) };
	struct key k = { stack, event, 0, bytes, b.slice, 0 };
	int64_t use;
	uint64_t p;

	emit_passed(b.slice);
	tr_live_add(&b);
	count(&k, now);
	use = __atomic_add_fetch(&in_use, (int64_t)bytes, __ATOMIC_RELAXED);
	p = __atomic_load_n(&peak, __ATOMIC_RELAXED);
	while (use > (int64_t)p &&
	       !__atomic_compare_exchange_n(&peak, &p, use, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (use > (int64_t)p)
		__atomic_store_n(&peak_time, now, __ATOMIC_RELAXED);
}

void tr_heapsum_free(uint16_t event, uint64_t addr, uint64_t bytes,
		     uint64_t now)
{
	struct key k = { 0, event, EXP_THE_FREE, bytes, slice_of(now), 0 };
	struct tr_block b;

	emit_passed(k.slice);
	if (tr_live_take(addr, &b)) {
		k.stack = b.stack;
		k.bytes = b.bytes;
		k.age = k.slice >= b.slice ? k.slice - b.slice : 0;
		__atomic_sub_fetch(&in_use, (int64_t)b.bytes, __ATOMIC_RELAXED);
	}
	count(&k, now);
}

/* Every count out, into this thread's buffer (exit, exec, fork). */
void tr_heapsum_flush(void)
{
	while (__atomic_exchange_n(&emitting, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	drain(UINT32_MAX, true, out_put);
	__atomic_store_n(&emitting, 0, __ATOMIC_RELEASE);
}

/* A fatal signal: the stacks and counts straight to the file, whole. */
void tr_heapsum_dying(void)
{
	if (tr.fd >= 0)
		drain(UINT32_MAX, false, put_direct);
}

/* In a forked child: the parent's counts and blocks are the parent's. */
void tr_heapsum_after_fork(void)
{
	uint32_t i;

	for (i = 0; i < STRIPES; i++)
		tr_table_free(&sums[i], sizeof(struct ent));
	chains.lock = 0;
	chains.len = 0;
	/* a thread of the parent may have been deflating: a stream anew */
	zs_ready = false;
	out_len = 0;
	emitting = 0;
	emitted = 0;
	in_use = 0;
	peak = peak_time = 0;
	tr_live_reset();
}
