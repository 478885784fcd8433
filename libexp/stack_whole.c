// SPDX-License-Identifier: GPL-2.0
/*
 * The tracker of delta stack copies (stack.h).  While a file is read
 * (exp_stack_sample(), exp_stack_tcall()) the bases are followed per tid:
 * a delta whose base is not there (records lost, a damaged file) or does
 * not cover its reused blocks has no usable copy, and is counted.  Each
 * usable delta's base record offset is kept (the links, in file order).
 * exp_stack_whole() hands a record out whole, as the module would have
 * written it without deltas: a delta is rebuilt from the last copy
 * rebuilt for that thread (the unwinder goes in file order, so that is
 * its base), else by following the links back to a full copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/internal.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/stack.h"

/* An open-addressing map of 64-bit keys to indexes (+ 1; 0: none). */
struct idmap {
	struct idmap_slot {
		uint64_t key;
		uint32_t val;
	} *s;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

static struct idmap_slot *idmap_slot(const struct idmap *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t mask = m->cap - 1, i = (h ^ h >> 29) & mask;

	while (m->s[i].val && m->s[i].key != key)
		i = (i + 1) & mask;
	return &m->s[i];
}

/* The index of key, or UINT32_MAX. */
static uint32_t idmap_get(const struct idmap *m, uint64_t key)
{
	const struct idmap_slot *s = m->cap ? idmap_slot(m, key) : NULL;

	return s && s->val ? s->val - 1 : UINT32_MAX;
}

/* Map key (not in m) to index: 0 or -ENOMEM. */
static int idmap_put(struct idmap *m, uint64_t key, uint32_t index)
{
	struct idmap_slot *old = m->s, *s;
	size_t i, ocap = m->cap;

	if (2 * (m->n + 1) > m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->s = calloc(m->cap, sizeof(*m->s));
		if (!m->s) {
			m->s = old;
			m->cap = ocap;
			return -ENOMEM;
		}
		for (i = 0; i < ocap; i++)
			if (old[i].val)
				*idmap_slot(m, old[i].key) = old[i];
		free(old);
	}
	s = idmap_slot(m, key);
	*s = (struct idmap_slot){ key, index + 1 };
	m->n++;
	return 0;
}

struct sd_link {
	uint32_t file;
	uint64_t off, base_off;
};

/*
 * The last copy rebuilt of a thread in a file; of trace call records
 * (tcall), the last whole one: their deltas' base.
 */
struct sd_slot {
	uint32_t file, tid;
	bool valid, tcall;
	uint64_t off, sp;
	uint32_t size;
	__u64 regs[EXP_TR_NR_REGS];	/* tcall */
	uint8_t *bytes;		/* LWPROF_STACK_MAX */
};

struct exp_stacks {
	struct sd_link *links;
	size_t nlinks, clinks;
	bool sorted;
	struct sd_slot *slots;
	size_t nslots, cslots;
	struct idmap slot_of;	/* (file, tid) -> slots index */
	uint8_t *tmp;		/* LWPROF_STACK_MAX: a copy being rebuilt */
};

/*
 * Per file while it is read: the base of each tid, a sample's (time: its
 * time_ns) or a trace call record's (tcall; time: its number).
 */
struct exp_stack_base {
	uint32_t tid;
	bool ok;		/* its copy is usable */
	uint64_t time, off, sp;
	uint32_t size;
	bool tcall;
};

struct exp_stacks *exp_stacks_new(void)
{
	struct exp_stacks *st = calloc(1, sizeof(*st));

	if (st && !(st->tmp = malloc(LWPROF_STACK_MAX))) {
		free(st);
		st = NULL;
	}
	return st;
}

void exp_stacks_free(struct exp_stacks *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nslots; i++)
		free(st->slots[i].bytes);
	free(st->slots);
	free(st->slot_of.s);
	free(st->links);
	free(st->tmp);
	free(st);
}

/* ---- scanning a file ---- */

void exp_stack_scan_begin(struct exp_stack_scan *sc, struct exp_stacks *st,
			  uint32_t file)
{
	memset(sc, 0, sizeof(*sc));
	sc->st = st;
	sc->file = file;
}

void exp_stack_scan_end(struct exp_stack_scan *sc)
{
	free(sc->bases);
	free(sc->base_of);
	memset(sc, 0, sizeof(*sc));
}

static struct exp_stack_base *base_get(struct exp_stack_scan *sc,
				       uint32_t tid, bool add)
{
	struct idmap m = { sc->base_of, sc->nbases, sc->nbase_of };
	struct exp_stack_base *b;
	uint32_t i = idmap_get(&m, tid);
	int err;

	if (i != UINT32_MAX)
		return &sc->bases[i];
	if (!add || exp_grow((void **)&sc->bases, sizeof(*sc->bases),
			     sc->nbases, &sc->cap))
		return NULL;
	err = idmap_put(&m, tid, sc->nbases);
	sc->base_of = m.s;
	sc->nbase_of = m.cap;
	if (err)
		return NULL;
	b = &sc->bases[sc->nbases++];
	memset(b, 0, sizeof(*b));
	b->tid = tid;
	return b;
}

static int link_add(struct exp_stack_scan *sc, uint64_t off, uint64_t base)
{
	struct exp_stacks *st = sc->st;

	if (exp_grow((void **)&st->links, sizeof(*st->links), st->nlinks,
		     &st->clinks))
		return -ENOMEM;
	st->links[st->nlinks++] = (struct sd_link){ sc->file, off, base };
	st->sorted = false;
	return 0;
}

int exp_stack_sample(struct exp_stack_scan *sc, uint64_t off,
		     const struct lwprof_rec_sample *r, const uint8_t *stack,
		     uint32_t max_size, const char **msg, uint64_t *at)
{
	const uint64_t *regs = (const uint64_t *)(r + 1);
	uint16_t flags = r->hdr.flags;
	uint32_t size = r->stack_size, a;
	struct exp_stack_base *b;
	struct sdelta d;
	bool ok = true;

	if (flags & LWPROF_RS_SDELTA) {
		*msg = sdelta_parse(stack, r->stack_size, &d, &a);
		*at = stack - (const uint8_t *)r + a;
		if (*msg)
			return -EINVAL;
		if (d.sp != regs[LWPROF_REG_SP]) {
			*msg = "delta stack copy's sp is not the sample's";
			return -EINVAL;
		}
		if (max_size && d.size > max_size) {
			*msg = "delta stack copy larger than log.txt's stack_bytes";
			return -EINVAL;
		}
		size = d.size;
		b = base_get(sc, r->tid, false);
		ok = b && b->ok && !b->tcall && b->time == d.base_time_ns &&
		     sdelta_fits(&d, b->sp, b->size);
		if (ok && link_add(sc, off, b->off))
			return -ENOMEM;
		if (!ok)
			sc->missing++;
	}
	if (flags & LWPROF_RS_SBASE) {
		b = base_get(sc, r->tid, true);
		if (!b)
			return -ENOMEM;
		*b = (struct exp_stack_base){ r->tid, ok, r->time_ns, off,
				       regs[LWPROF_REG_SP], size, false };
	}
	return ok;
}

int exp_stack_tcall(struct exp_stack_scan *sc, uint64_t off,
		    const struct exp_tcall *t)
{
	struct exp_stack_base *b = base_get(sc, t->tid, !t->delta);

	if (!t->delta) {
		if (!b)
			return -ENOMEM;
		*b = (struct exp_stack_base){ t->tid, true, t->st->base, off,
				       t->words[EXP_TR_RSP], t->st->size, true };
		return 1;
	}
	if (!b || !b->ok || !b->tcall || b->time != t->st->base ||
	    !exp_tstack_fits(t, b->sp, b->size)) {
		sc->missing++;
		return 0;
	}
	return link_add(sc, off, b->off) ? -ENOMEM : 1;
}

/* ---- rebuilding ---- */

static int link_cmp(const void *a, const void *b)
{
	const struct sd_link *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The base of the delta at off, or NULL: a full copy. */
static const struct sd_link *link_find(struct exp_stacks *st, uint32_t file,
				       uint64_t off)
{
	struct sd_link key = { file, off, 0 };
	size_t i;

	if (!st->sorted) {
		for (i = 1; i < st->nlinks; i++)
			if (link_cmp(&st->links[i - 1], &st->links[i]) > 0)
				break;
		if (i < st->nlinks)
			qsort(st->links, st->nlinks, sizeof(key), link_cmp);
		st->sorted = true;
	}
	if (!st->nlinks)
		return NULL;
	return bsearch(&key, st->links, st->nlinks, sizeof(key), link_cmp);
}

/* The slot of (file, tid), made if new; NULL: out of memory. */
static struct sd_slot *slot_get(struct exp_stacks *st, uint32_t file,
				uint32_t tid)
{
	uint64_t key = (uint64_t)file << 32 | tid;
	uint32_t i = idmap_get(&st->slot_of, key);
	struct sd_slot *s;

	if (i != UINT32_MAX)
		return &st->slots[i];
	if (exp_grow((void **)&st->slots, sizeof(*st->slots), st->nslots,
		     &st->cslots))
		return NULL;
	s = &st->slots[st->nslots];
	memset(s, 0, sizeof(*s));
	s->file = file;
	s->tid = tid;
	s->bytes = malloc(LWPROF_STACK_MAX);
	if (!s->bytes || idmap_put(&st->slot_of, key, st->nslots)) {
		free(s->bytes);
		return NULL;
	}
	st->nslots++;
	return s;
}

const uint8_t *exp_stack_rec(const struct lwprof_rec *h)
{
	if (h->type == EXP_REC_TCALL)
		return (const uint8_t *)h;
	return (const uint8_t *)exp_rec_sample(h);	/* a traced call's too */
}

/*
 * Is rec, checked by the reader, a sample of tid with registers, or a
 * trace call record of tid with a stack?
 */
static bool sane(const uint8_t *rec, uint32_t tid)
{
	const struct lwprof_rec_sample *h = (const void *)rec;
	const struct exp_rec_tcall *t = (const void *)rec;

	if (t->hdr.type == EXP_REC_TCALL)
		return t->tid == tid && (t->hdr.flags & EXP_TCF_STACK);
	return h->hdr.type == LWPROF_REC_SAMPLE && h->tid == tid &&
	       (h->hdr.flags & LWPROF_RS_REGS);
}

/*
 * The stack record of tid at off (a sample, a trace call record), read
 * again through the one reader (checked as the first pass did): a
 * malloc'd copy, or NULL.
 */
static uint8_t *read_raw(struct exp_reader *rd, uint64_t off, uint32_t tid)
{
	const struct lwprof_rec *h, *s;
	uint8_t *buf;

	if (exp_reader_at(rd, off, &h) != 1)
		return NULL;
	s = (const void *)exp_stack_rec(h);
	if (!s || !sane((const uint8_t *)s, tid))
		return NULL;
	buf = malloc(s->size);
	if (buf)
		memcpy(buf, s, s->size);
	return buf;
}

static const uint8_t *rec_stack(const struct lwprof_rec_sample *s)
{
	return exp_sample_stack(s, LWPROF_NR_REGS);
}

#define NO_BASE		UINT64_MAX

/*
 * Put the copy of rec (read from off) into s: a full copy, or a delta
 * whose base (the record at base) s holds.
 */
static bool slot_put(struct exp_stacks *st, struct sd_slot *s,
		     const uint8_t *rec, uint64_t off, uint64_t base)
{
	const struct lwprof_rec_sample *r = (const void *)rec;
	const uint64_t *regs = (const uint64_t *)(r + 1);
	struct sdelta d;
	uint32_t at;

	if (r->hdr.type != LWPROF_REC_SAMPLE)
		return s->valid = false;
	if (!(r->hdr.flags & LWPROF_RS_SDELTA)) {
		s->valid = false;
		if (r->stack_size > LWPROF_STACK_MAX)
			return false;
		memcpy(s->bytes, rec_stack(r), r->stack_size);
		s->sp = regs[LWPROF_REG_SP];
		s->size = r->stack_size;
	} else {
		if (base == NO_BASE || !s->valid || s->tcall || s->off != base)
			return false;
		s->valid = false;
		if (sdelta_parse(rec_stack(r), r->stack_size, &d, &at) ||
		    !sdelta_apply(&d, s->bytes, s->sp, s->size, st->tmp))
			return false;
		memcpy(s->bytes, st->tmp, d.size);
		s->sp = d.sp;
		s->size = d.size;
	}
	s->off = off;
	s->tcall = false;
	s->valid = true;
	return true;
}

/*
 * Rebuild in s the copy of rec, the record at off: from the copy s holds
 * if that is its base, else from the full copy the links lead back to.
 * Bases come before their deltas in a file, so the walk ends.
 */
static bool rebuild(struct exp_stacks *st, struct sd_slot *s,
		    struct exp_reader *rd, uint32_t file, uint64_t off,
		    uint32_t tid, const uint8_t *rec)
{
	const struct sd_link *l;
	uint64_t *chain = NULL, *nc, o = off;
	size_t n = 0;
	bool ok = true;
	uint8_t *b;

	while (!(s->valid && s->off == o)) {
		nc = realloc(chain, (n + 1) * sizeof(*chain));
		if (!nc) {
			free(chain);
			return false;
		}
		chain = nc;
		chain[n++] = o;
		l = link_find(st, file, o);
		if (!l)
			break;	/* a full copy, or a delta without a base */
		o = l->base_off;
	}
	while (ok && n--) {
		o = chain[n];
		l = link_find(st, file, o);
		b = o == off ? (uint8_t *)rec : read_raw(rd, o, tid);
		ok = b && slot_put(st, s, b, o, l ? l->base_off : NO_BASE);
		if (b != rec)
			free(b);
	}
	free(chain);
	return ok;
}

/* Whole trace call record v (at off) as the base of tid's deltas in s. */
static void tcall_base(struct sd_slot *s, const struct exp_tcall *v, uint64_t off)
{
	memcpy(s->regs, v->words, sizeof(s->regs));
	memcpy(s->bytes, v->words + EXP_TR_NR_REGS, v->st->size);
	s->sp = s->regs[EXP_TR_RSP];
	s->size = v->st->size;
	s->off = off;
	s->tcall = true;
	s->valid = true;
}

/*
 * A trace call record (format 1.5) as the unwinder takes it: a sample
 * with uapi's 17 registers (those the record has not: zero) and its
 * whole stack copy, rebuilt from its base if a delta.  The slot keeps the
 * thread's base, so a run of deltas against it reads it once.
 */
static const uint8_t *tcall_whole(struct exp_stacks *st, uint32_t file,
				  uint64_t off, struct exp_reader *bases,
				  const uint8_t *rec, uint8_t **owned)
{
	__u64 regs[EXP_TR_NR_REGS];
	uint64_t *or;
	struct lwprof_rec_sample *out;
	const struct sd_link *l;
	struct exp_tcall v, bv;
	struct sd_slot *slot;
	const uint8_t *stack;
	uint32_t i, dw;
	uint8_t *b;

	exp_tcall_view((const void *)rec, &v);
	if (!sane(rec, v.tid))
		return NULL;	/* the file changed since it was read */
	slot = slot_get(st, file, v.tid);
	if (!slot)
		return NULL;
	if (!v.delta) {
		tcall_base(slot, &v, off);
		memcpy(regs, v.words, sizeof(regs));
		stack = (const uint8_t *)(v.words + EXP_TR_NR_REGS);
	} else {
		l = link_find(st, file, off);
		if (!l)
			return NULL;	/* no base: the scan said so */
		if (!slot->valid || !slot->tcall || slot->off != l->base_off) {
			slot->valid = false;
			b = read_raw(bases, l->base_off, v.tid);
			if (b && !exp_tcall_view((const void *)b, &bv) && bv.st &&
			    !bv.delta)
				tcall_base(slot, &bv, l->base_off);
			free(b);
			if (!slot->valid)
				return NULL;
		}
		if (!exp_tstack_apply(&v, slot->regs, slot->bytes, slot->size,
				      regs, st->tmp))
			return NULL;
		stack = st->tmp;
	}
	out = calloc(1, sizeof(*out) + 8 * LWPROF_NR_REGS + v.st->size);
	if (!out)
		return NULL;
	out->hdr.type = LWPROF_REC_SAMPLE;
	out->hdr.flags = LWPROF_RS_REGS;
	out->hdr.size = sizeof(*out) + 8 * LWPROF_NR_REGS + v.st->size;
	out->time_ns = v.time_ns;
	out->pid = v.pid;
	out->tid = v.tid;
	out->cpu = v.cpu;
	out->kind = LWPROF_SK_CLOCK;
	out->stack_size = v.st->size;
	or = (uint64_t *)(out + 1);	/* uapi's are DWARF 0-16 */
	for (i = dw = 0; dw < LWPROF_NR_REGS; dw++)
		if (EXP_TR_REG_MASK >> dw & 1)
			or[dw] = regs[i++];
	memcpy(or + LWPROF_NR_REGS, stack, v.st->size);
	*owned = (uint8_t *)out;
	return *owned;
}

const uint8_t *exp_stack_whole(struct exp_stacks *st, uint32_t file,
			       uint64_t off, struct exp_reader *bases,
			       const uint8_t *rec, uint8_t **owned)
{
	const struct lwprof_rec_sample *s = (const void *)rec;
	struct lwprof_rec_sample *out;
	struct sd_slot *slot;
	uint32_t fixed;

	*owned = NULL;
	if (s->hdr.type == EXP_REC_TCALL)
		return st ? tcall_whole(st, file, off, bases, rec, owned) : NULL;
	if (s->hdr.size < sizeof(*s) ||
	    !(s->hdr.flags & (LWPROF_RS_SDELTA | LWPROF_RS_SBASE)))
		return rec;
	if (!sane(rec, s->tid))
		return NULL;	/* the file changed since it was read */
	slot = st ? slot_get(st, file, s->tid) : NULL;
	if (!(s->hdr.flags & LWPROF_RS_SDELTA)) {
		/* a full copy and a base: the next delta starts from it */
		if (slot)
			slot_put(st, slot, rec, off, NO_BASE);
		return rec;
	}
	if (!slot || !rebuild(st, slot, bases, file, off, s->tid, rec))
		return NULL;
	fixed = rec_stack(s) - rec;
	out = malloc(fixed + ((slot->size + 7) & ~7u));
	if (!out)
		return NULL;
	memcpy(out, rec, fixed);
	out->hdr.flags &= ~(LWPROF_RS_SDELTA | LWPROF_RS_SBASE);
	out->stack_size = slot->size;
	out->hdr.size = fixed + ((slot->size + 7) & ~7u);
	memcpy((uint8_t *)out + fixed, slot->bytes, slot->size);
	memset((uint8_t *)out + fixed + slot->size, 0,
	       out->hdr.size - fixed - slot->size);
	*owned = (uint8_t *)out;
	return *owned;
}
