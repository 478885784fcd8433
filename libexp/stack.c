// SPDX-License-Identifier: GPL-2.0
/*
 * The codecs of stack copies (stack.h): a sample's delta copy (the layout
 * of uapi/lwprof_record.h's struct lwprof_sdelta) and a traced call's
 * (trace.h's struct exp_tstack), checked, and the full copy rebuilt from
 * them and their base.
 */
#include <string.h>

#include "libexp/stack.h"

#define BS	LWPROF_SDELTA_BLOCK

/* Block i of d, clipped to the copy: [*lo, *hi). */
static void block(const struct sdelta *d, uint32_t i, uint64_t *lo,
		  uint64_t *hi)
{
	uint64_t first = d->sp & ~(uint64_t)(BS - 1);
	uint64_t end = d->sp + d->size;

	*lo = first + (uint64_t)i * BS;
	*hi = *lo + BS;
	if (*lo < d->sp)
		*lo = d->sp;
	if (*hi > end)
		*hi = end;
}

bool sdelta_literal(const struct sdelta *d, uint32_t i)
{
	uint64_t w;

	memcpy(&w, d->bitmap + 8 * (i / 64), 8);
	return w >> (i % 64) & 1;
}

const char *sdelta_parse(const void *area, uint32_t len, struct sdelta *d,
			 uint32_t *at)
{
	struct lwprof_sdelta h;
	uint64_t first, lo, hi, w, nr;
	uint32_t words, i, bits = 0, lit = 0;

	*at = 0;
	if (len < sizeof(h))
		return "delta stack copy shorter than its header";
	memcpy(&h, area, sizeof(h));
	*at = 16;
	if (!h.size || h.size > LWPROF_STACK_MAX)
		return "delta stack copy of a bad size";
	*at = 0;
	if (h.sp + h.size < h.sp)
		return "delta stack copy wraps around the address space";
	first = h.sp & ~(uint64_t)(BS - 1);
	nr = (h.sp + h.size + BS - 1 - first) / BS;
	*at = 20;
	if (h.nr_blocks != nr)
		return "delta stack copy: block count does not match sp and size";
	words = (nr + 63) / 64;
	*at = sizeof(h);
	if (len - sizeof(h) < 8ULL * words)
		return "delta stack copy shorter than its bitmap";
	d->sp = h.sp;
	d->base_time_ns = h.base_time_ns;
	d->size = h.size;
	d->nr_blocks = nr;
	d->nr_literal = h.nr_literal;
	d->bitmap = (const uint8_t *)area + sizeof(h);
	d->lit = d->bitmap + 8 * words;
	for (i = 0; i < words; i++) {
		memcpy(&w, d->bitmap + 8 * i, 8);
		bits += __builtin_popcountll(w);
		if (i == words - 1 && nr % 64 && w >> (nr % 64)) {
			*at = sizeof(h) + 8 * i;
			return "delta stack copy: bitmap bits past the last block";
		}
	}
	for (i = 0; i < nr; i++) {
		if (!sdelta_literal(d, i))
			continue;
		block(d, i, &lo, &hi);
		lit += hi - lo;
	}
	*at = 22;
	if (bits != h.nr_literal)
		return "delta stack copy: literal count does not match its bitmap";
	*at = sizeof(h) + 8 * words;
	if (len - sizeof(h) - 8 * words != lit)
		return "delta stack copy: literal bytes do not match its bitmap";
	d->lit_bytes = lit;
	return NULL;
}

bool sdelta_fits(const struct sdelta *d, uint64_t bsp, uint32_t bsize)
{
	uint64_t lo, hi;
	uint32_t i;

	for (i = 0; i < d->nr_blocks; i++) {
		if (sdelta_literal(d, i))
			continue;
		block(d, i, &lo, &hi);
		if (lo < bsp || hi > bsp + bsize)
			return false;
	}
	return true;
}

bool sdelta_apply(const struct sdelta *d, const uint8_t *base, uint64_t bsp,
		  uint32_t bsize, uint8_t *out)
{
	const uint8_t *lit = d->lit;
	uint64_t lo, hi;
	uint32_t i;

	for (i = 0; i < d->nr_blocks; i++) {
		block(d, i, &lo, &hi);
		if (sdelta_literal(d, i)) {
			memcpy(out + (lo - d->sp), lit, hi - lo);
			lit += hi - lo;
		} else if (lo < bsp || hi > bsp + bsize) {
			return false;
		} else {
			memcpy(out + (lo - d->sp), base + (lo - bsp), hi - lo);
		}
	}
	return true;
}

/* ---- a traced call's copy ---- */

#define NR	EXP_TR_NR_REGS

__u64 exp_tstack_sp(const struct exp_tcall *v, __u64 bsp)
{
	__u32 i, lit = 0;

	if (!v->delta)
		return v->words[EXP_TR_RSP];
	for (i = 0; i < v->st->nr_runs && v->runs[i].pos <= EXP_TR_RSP; i++) {
		if (EXP_TR_RSP < v->runs[i].pos + v->runs[i].len)
			return v->words[lit + EXP_TR_RSP - v->runs[i].pos];
		lit += v->runs[i].len;
	}
	return bsp;
}

/* Do the stack words [from, to) of v's image (sp its rsp) lie in the base? */
static int gap_fits(__u64 sp, __u32 from, __u32 to, __u64 bsp, __u32 bsize)
{
	__u64 lo, hi;

	if (from < NR)
		from = NR;
	if (from >= to)
		return 1;
	lo = sp + 8ULL * (from - NR);
	hi = sp + 8ULL * (to - NR);
	return !((lo - bsp) % 8) && lo >= bsp && hi <= bsp + bsize;
}

int exp_tstack_fits(const struct exp_tcall *v, __u64 bsp, __u32 bsize)
{
	const __u64 sp = exp_tstack_sp(v, bsp);
	__u32 i, next = 0, words = NR + v->st->size / 8;

	if (!v->delta)
		return 1;
	for (i = 0; i < v->st->nr_runs; i++) {
		if (!gap_fits(sp, next, v->runs[i].pos, bsp, bsize))
			return 0;
		next = v->runs[i].pos + v->runs[i].len;
	}
	return gap_fits(sp, next, words, bsp, bsize);
}

/* Word w of the image (sp its rsp) from the base. */
static void from_base(__u32 w, __u64 sp, const __u64 *bregs, const __u8 *bstack,
		      __u64 *regs, __u8 *stack)
{
	if (w < NR)
		regs[w] = bregs[w];
	else
		memcpy(stack + 8 * (w - NR),
		       bstack + (sp + 8 * (w - NR) - bregs[EXP_TR_RSP]), 8);
}

static void put_word(__u32 w, const __u64 *src, __u64 *regs, __u8 *stack)
{
	if (w < NR)
		regs[w] = *src;
	else
		memcpy(stack + 8 * (w - NR), src, 8);
}

int exp_tstack_apply(const struct exp_tcall *v, const __u64 *bregs,
		     const __u8 *bstack, __u32 bsize, __u64 *regs, __u8 *stack)
{
	const __u32 words = NR + v->st->size / 8;
	const __u64 *lit = v->words;
	__u32 i, w = 0, end;
	__u64 sp;

	if (!v->delta) {
		memcpy(regs, v->words, 8 * NR);
		memcpy(stack, v->words + NR, v->st->size);
		return 1;
	}
	if (!exp_tstack_fits(v, bregs[EXP_TR_RSP], bsize))
		return 0;
	sp = exp_tstack_sp(v, bregs[EXP_TR_RSP]);
	for (i = 0; i <= v->st->nr_runs; i++) {
		end = i < v->st->nr_runs ? v->runs[i].pos : words;
		for (; w < end; w++)
			from_base(w, sp, bregs, bstack, regs, stack);
		if (i == v->st->nr_runs)
			break;
		for (; w < end + v->runs[i].len; w++)
			put_word(w, lit++, regs, stack);
	}
	return 1;
}
