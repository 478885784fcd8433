// SPDX-License-Identifier: GPL-2.0
/*
 * The user stack copies of samples (docs/experiment-format.md, "Delta
 * stack copies").  A copy is whole, or (LWPROF_RS_SDELTA) the blocks that
 * changed since the base: the previous record of the same tid in the same
 * cpu.N.rec file with LWPROF_RS_SBASE, named by its time.
 *
 * While a file is read (an_sd_sample()) the bases are followed per tid:
 * a delta whose base is not there (records lost, a damaged file) or does
 * not cover its reused blocks has no usable copy: the sample keeps its
 * frame-pointer stack, and the file gets one warning with the count.
 * Each usable delta's base record offset is kept (the links, in file
 * order).  an_rec_whole() hands the unwinder a record whole, as the module
 * would have written it without deltas: a delta is rebuilt from the last
 * copy rebuilt for that thread (the unwinder goes in file order, so that
 * is its base), else by following the links back to a full copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/sdelta.h"
#include "libexp/trace.h"


struct sd_link {
	uint32_t exp, file;
	uint64_t off, base_off;
};

/*
 * The last copy rebuilt of a thread in a file; of trace call records
 * (tcall), the last whole one: their deltas' base.
 */
struct sd_slot {
	uint32_t exp, file, tid;
	bool valid, tcall;
	uint64_t off, sp;
	uint32_t size;
	__u64 regs[EXP_TR_NR_REGS];	/* tcall */
	uint8_t *bytes;		/* LWPROF_STACK_MAX */
};

struct an_sd {
	struct an_vec links;	/* struct sd_link */
	bool sorted;
	struct an_vec slots;	/* struct sd_slot */
	struct an_htab slot_h;
	uint8_t *tmp;		/* LWPROF_STACK_MAX: a copy being rebuilt */
};

/*
 * Per file while it is read: the base of each tid, a sample's (time: its
 * time_ns) or a trace call record's (tcall; time: its number).
 */
struct sd_base {
	uint32_t tid;
	bool ok;		/* its copy is usable */
	uint64_t time, off, sp;
	uint32_t size;
	bool tcall;
};

static struct an_sd *sd_of(struct an *an)
{
	if (!an->ld->sd) {
		an->ld->sd = calloc(1, sizeof(*an->ld->sd));
		if (an->ld->sd && !(an->ld->sd->tmp = malloc(LWPROF_STACK_MAX))) {
			free(an->ld->sd);
			an->ld->sd = NULL;
		}
		if (an->ld->sd) {
			an->ld->sd->links.esz = sizeof(struct sd_link);
			an->ld->sd->slots.esz = sizeof(struct sd_slot);
		}
	}
	return an->ld->sd;
}

void an_sd_free(struct an *an)
{
	struct an_sd *sd = an->ld->sd;
	size_t i;

	if (!sd)
		return;
	for (i = 0; i < sd->slots.n; i++)
		free(AN_VEC(sd->slots, struct sd_slot, i).bytes);
	free(sd->slots.p);
	free(sd->links.p);
	free(sd->tmp);
	an_htab_free(&sd->slot_h);
	free(sd);
	an->ld->sd = NULL;
}

static bool base_eq(void *ctx, uint32_t id, const void *key)
{
	return AN_VEC(*(struct an_vec *)ctx, struct sd_base, id).tid ==
	       *(const uint32_t *)key;
}

static struct sd_base *base_get(struct an_sd_scan *sc, uint32_t tid, bool add)
{
	uint64_t h = an_mix(0x5d, tid);
	uint32_t id = an_htab_find(&sc->h, h, base_eq, &sc->bases, &tid);
	struct sd_base *b;

	if (id != UINT32_MAX)
		return &AN_VEC(sc->bases, struct sd_base, id);
	if (!add)
		return NULL;
	sc->bases.esz = sizeof(*b);
	b = an_vec_push(&sc->bases);
	if (!b || an_htab_add(&sc->h, h, sc->bases.n - 1))
		return NULL;
	b->tid = tid;
	return b;
}

void an_sd_scan_end(struct an *an, struct an_sd_scan *sc, const char *path)
{
	if (sc->missing)
		an_warn(an, "%s: %" PRIu64 " delta stack copies without their base (records lost or damaged): those samples keep their frame-pointer stacks",
			path, sc->missing);
	free(sc->bases.p);
	an_htab_free(&sc->h);
	memset(sc, 0, sizeof(*sc));
}

int an_sd_sample(struct an *an, struct an_sd_scan *sc, uint32_t exp,
		 uint32_t file, uint64_t off, const struct lwprof_rec_sample *r,
		 const uint8_t *stack, uint32_t max_size, const char **msg,
		 uint64_t *at)
{
	const uint64_t *regs = (const uint64_t *)(r + 1);
	uint16_t flags = r->hdr.flags;
	uint32_t size = r->stack_size, a;
	struct sd_base *b;
	struct sd_link *l;
	struct an_sd *sd;
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
		if (ok) {
			sd = sd_of(an);
			l = sd ? an_vec_push(&sd->links) : NULL;
			if (!l)
				return -ENOMEM;
			*l = (struct sd_link){ exp, file, off, b->off };
		} else {
			sc->missing++;
		}
	}
	if (flags & LWPROF_RS_SBASE) {
		b = base_get(sc, r->tid, true);
		if (!b)
			return -ENOMEM;
		*b = (struct sd_base){ r->tid, ok, r->time_ns, off,
				       regs[LWPROF_REG_SP], size, false };
	}
	return ok;
}

int an_sd_tcall(struct an *an, struct an_sd_scan *sc, uint32_t exp,
		uint32_t file, uint64_t off, const struct exp_tcall *t)
{
	struct sd_base *b = base_get(sc, t->tid, !t->delta);
	struct sd_link *l;
	struct an_sd *sd;

	if (!t->delta) {
		if (!b)
			return -ENOMEM;
		*b = (struct sd_base){ t->tid, true, t->st->base, off,
				       t->words[EXP_TR_RSP], t->st->size, true };
		return 1;
	}
	if (!b || !b->ok || !b->tcall || b->time != t->st->base ||
	    !exp_tstack_fits(t, b->sp, b->size)) {
		sc->missing++;
		return 0;
	}
	sd = sd_of(an);
	l = sd ? an_vec_push(&sd->links) : NULL;
	if (!l)
		return -ENOMEM;
	*l = (struct sd_link){ exp, file, off, b->off };
	return 1;
}

static int link_cmp(const void *a, const void *b)
{
	const struct sd_link *x = a, *y = b;

	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The base of the delta at off, or NULL: a full copy. */
static const struct sd_link *link_find(struct an_sd *sd, uint32_t exp,
				       uint32_t file, uint64_t off)
{
	struct sd_link key = { exp, file, off, 0 };
	size_t i;

	if (!sd->sorted) {
		for (i = 1; i < sd->links.n; i++)
			if (link_cmp(&AN_VEC(sd->links, struct sd_link, i - 1),
				     &AN_VEC(sd->links, struct sd_link, i)) > 0)
				break;
		if (i < sd->links.n)
			qsort(sd->links.p, sd->links.n, sizeof(key), link_cmp);
		sd->sorted = true;
	}
	return bsearch(&key, sd->links.p, sd->links.n, sizeof(key), link_cmp);
}

static bool slot_eq(void *ctx, uint32_t id, const void *key)
{
	const struct sd_slot *s = &AN_VEC(*(struct an_vec *)ctx,
					  struct sd_slot, id);
	const struct sd_slot *k = key;

	return s->exp == k->exp && s->file == k->file && s->tid == k->tid;
}

static struct sd_slot *slot_get(struct an_sd *sd, uint32_t exp,
				uint32_t file, uint32_t tid)
{
	struct sd_slot key = { .exp = exp, .file = file, .tid = tid }, *s;
	uint64_t h = an_mix(an_mix(an_mix(0x51, exp), file), tid);
	uint32_t id = an_htab_find(&sd->slot_h, h, slot_eq, &sd->slots, &key);

	if (id != UINT32_MAX)
		return &AN_VEC(sd->slots, struct sd_slot, id);
	s = an_vec_push(&sd->slots);
	if (!s)
		return NULL;
	*s = key;
	s->bytes = malloc(LWPROF_STACK_MAX);
	if (!s->bytes || an_htab_add(&sd->slot_h, h, sd->slots.n - 1)) {
		sd->slots.n--;
		free(s->bytes);
		return NULL;
	}
	return s;
}

const uint8_t *an_stack_rec(const struct lwprof_rec *h)
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
	s = (const void *)an_stack_rec(h);
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
static bool slot_put(struct an_sd *sd, struct sd_slot *s, const uint8_t *rec,
		     uint64_t off, uint64_t base)
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
		    !sdelta_apply(&d, s->bytes, s->sp, s->size, sd->tmp))
			return false;
		memcpy(s->bytes, sd->tmp, d.size);
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
static bool rebuild(struct an_sd *sd, struct sd_slot *s, struct exp_reader *rd,
		    const struct an_unw_ref *r, uint32_t tid,
		    const uint8_t *rec)
{
	const struct sd_link *l;
	uint64_t *chain = NULL, *nc, o = r->off;
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
		l = link_find(sd, r->exp, r->file, o);
		if (!l)
			break;	/* a full copy, or a delta without a base */
		o = l->base_off;
	}
	while (ok && n--) {
		o = chain[n];
		l = link_find(sd, r->exp, r->file, o);
		b = o == r->off ? (uint8_t *)rec : read_raw(rd, o, tid);
		ok = b && slot_put(sd, s, b, o, l ? l->base_off : NO_BASE);
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
static const uint8_t *tcall_whole(struct an *an, const struct an_unw_ref *r,
				  struct exp_reader *bases, const uint8_t *rec,
				  uint8_t **owned)
{
	__u64 regs[EXP_TR_NR_REGS];
	uint64_t *or;
	struct lwprof_rec_sample *out;
	const struct sd_link *l;
	struct exp_tcall v, bv;
	struct sd_slot *slot;
	const uint8_t *stack;
	struct an_sd *sd;
	uint32_t i, dw;
	uint8_t *b;

	exp_tcall_view((const void *)rec, &v);
	if (!sane(rec, v.tid))
		return NULL;	/* the file changed since it was read */
	sd = sd_of(an);
	slot = sd ? slot_get(sd, r->exp, r->file, v.tid) : NULL;
	if (!slot)
		return NULL;
	if (!v.delta) {
		tcall_base(slot, &v, r->off);
		memcpy(regs, v.words, sizeof(regs));
		stack = (const uint8_t *)(v.words + EXP_TR_NR_REGS);
	} else {
		l = link_find(sd, r->exp, r->file, r->off);
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
				      regs, sd->tmp))
			return NULL;
		stack = sd->tmp;
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

const uint8_t *an_rec_whole(struct an *an, const struct an_unw_ref *r,
			    struct exp_reader *bases,
			    const uint8_t *rec, uint8_t **owned)
{
	const struct lwprof_rec_sample *s = (const void *)rec;
	struct lwprof_rec_sample *out;
	struct sd_slot *slot;
	struct an_sd *sd;
	uint32_t fixed;

	*owned = NULL;
	if (s->hdr.type == EXP_REC_TCALL)
		return tcall_whole(an, r, bases, rec, owned);
	if (s->hdr.size < sizeof(*s) ||
	    !(s->hdr.flags & (LWPROF_RS_SDELTA | LWPROF_RS_SBASE)))
		return rec;
	if (!sane(rec, s->tid))
		return NULL;	/* the file changed since it was read */
	sd = sd_of(an);
	slot = sd ? slot_get(sd, r->exp, r->file, s->tid) : NULL;
	if (!(s->hdr.flags & LWPROF_RS_SDELTA)) {
		/* a full copy and a base: the next delta starts from it */
		if (slot)
			slot_put(sd, slot, rec, r->off, NO_BASE);
		return rec;
	}
	if (!slot || !rebuild(sd, slot, bases, r, s->tid, rec))
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
