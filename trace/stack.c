// SPDX-License-Identifier: GPL-2.0
/*
 * A traced call's registers and stack copy (libexp/trace.h, struct
 * exp_tstack), whole or as a delta against the thread's last whole copy:
 * the words (registers, or 8 bytes of stack at the same address) that
 * still hold the same value are not written again.  A loop that calls
 * malloc from one place writes the words of its frames that changed (a
 * counter, a saved register) and nothing else, so a record stays small
 * however deep the copy reaches.  The analyzer rebuilds the image from
 * its base (libexp/stack.h).
 *
 * The cost is comparing the copy with the base: vector compares, 8, 4 or
 * 2 words at a time (AVX-512, AVX2 or SSE2, chosen once by the dynamic
 * linker), each giving a bit per word that changed.
 */
#include <immintrin.h>
#include <string.h>

#include "trace.h"

#define NR		EXP_TR_NR_REGS
#define REBASE_EVERY	1024	/* deltas in a row, at most */
#define SMALL_DELTA	64	/* bytes: a delta this small needs no new base */
#define MASK_WORDS	((EXP_TR_IMAGE_MAX + 63) / 64)

typedef uint64_t u64a __attribute__((may_alias, aligned(8)));

/* Set in m the nbits of bits at bit pos. */
static inline void put_bits(uint64_t *m, uint32_t pos, uint64_t bits,
			    unsigned int nbits)
{
	m[pos / 64] |= bits << (pos % 64);
	if (pos % 64 + nbits > 64)
		m[pos / 64 + 1] |= bits >> (64 - pos % 64);
}

/* Set bits [from, to) of m (mostly none: the copy is where the base's was). */
static inline void set_range(uint64_t *m, uint32_t from, uint32_t to)
{
	if (from >= to)
		return;
	for (; from < to && from % 64; from++)
		m[from / 64] |= 1ULL << (from % 64);
	for (; from + 64 <= to; from += 64)
		m[from / 64] = ~0ULL;
	for (; from < to; from++)
		m[from / 64] |= 1ULL << (from % 64);
}

/*
 * Bit pos + i of m for each word a[i] != b[i], i < n: the words of the
 * live stack (a) that are not the base's (b).
 */
typedef void diff_fn(const u64a *a, const u64a *b, uint32_t n, uint64_t *m,
		     uint32_t pos);

static inline __attribute__((always_inline))
void diff_tail(const u64a *a, const u64a *b, uint32_t i, uint32_t n,
	       uint64_t *m, uint32_t pos)
{
	for (; i < n; i++)
		if (a[i] != b[i])
			put_bits(m, pos + i, 1, 1);
}

__attribute__((target("avx512f")))
static void diff_avx512(const u64a *a, const u64a *b, uint32_t n, uint64_t *m,
			uint32_t pos)
{
	uint32_t i, k;

	/* 16 words at a time: most are equal, one branch for them */
	for (i = 0; i + 16 <= n; i += 16) {
		k = _mm512_cmpneq_epu64_mask(_mm512_loadu_si512((const void *)(a + i)),
					     _mm512_loadu_si512((const void *)(b + i))) |
		    _mm512_cmpneq_epu64_mask(_mm512_loadu_si512((const void *)(a + i + 8)),
					     _mm512_loadu_si512((const void *)(b + i + 8))) << 8;
		if (k)
			put_bits(m, pos + i, k, 16);
	}
	for (; i + 8 <= n; i += 8) {
		k = _mm512_cmpneq_epu64_mask(_mm512_loadu_si512((const void *)(a + i)),
					     _mm512_loadu_si512((const void *)(b + i)));
		if (k)
			put_bits(m, pos + i, k, 8);
	}
	_mm256_zeroupper();	/* no SSE penalty in the caller (gcc left it out) */
	diff_tail(a, b, i, n, m, pos);
}

/* 4 words' equal mask, inverted: the words that differ */
#define NE4(a, b) (~_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64( \
	_mm256_loadu_si256((const void *)(a)), _mm256_loadu_si256((const void *)(b))))) & 0xf)

__attribute__((target("avx2")))
static void diff_avx2(const u64a *a, const u64a *b, uint32_t n, uint64_t *m,
		      uint32_t pos)
{
	__m256i e;
	uint32_t i;

	/* 16 words at a time: most are equal, one branch for them */
	for (i = 0; i + 16 <= n; i += 16) {
		e = _mm256_and_si256(
			_mm256_and_si256(_mm256_cmpeq_epi64(_mm256_loadu_si256((const void *)(a + i)),
							    _mm256_loadu_si256((const void *)(b + i))),
					 _mm256_cmpeq_epi64(_mm256_loadu_si256((const void *)(a + i + 4)),
							    _mm256_loadu_si256((const void *)(b + i + 4)))),
			_mm256_and_si256(_mm256_cmpeq_epi64(_mm256_loadu_si256((const void *)(a + i + 8)),
							    _mm256_loadu_si256((const void *)(b + i + 8))),
					 _mm256_cmpeq_epi64(_mm256_loadu_si256((const void *)(a + i + 12)),
							    _mm256_loadu_si256((const void *)(b + i + 12)))));
		if (_mm256_movemask_pd(_mm256_castsi256_pd(e)) != 0xf)
			put_bits(m, pos + i, NE4(a + i, b + i) | NE4(a + i + 4, b + i + 4) << 4 |
				 NE4(a + i + 8, b + i + 8) << 8 |
				 NE4(a + i + 12, b + i + 12) << 12, 16);
	}
	for (; i + 4 <= n; i += 4)
		if (NE4(a + i, b + i))
			put_bits(m, pos + i, NE4(a + i, b + i), 4);
	_mm256_zeroupper();
	diff_tail(a, b, i, n, m, pos);
}

/* SSE2 has no 64-bit compare: a word is equal when both its halves are. */
static void diff_sse2(const u64a *a, const u64a *b, uint32_t n, uint64_t *m,
		      uint32_t pos)
{
	uint32_t i, h;
	__m128i e;

	for (i = 0; i + 2 <= n; i += 2) {
		e = _mm_cmpeq_epi32(_mm_loadu_si128((const void *)(a + i)),
				    _mm_loadu_si128((const void *)(b + i)));
		h = _mm_movemask_ps(_mm_castsi128_ps(e));
		if (h != 0xf)
			put_bits(m, pos + i, ((h & 3) != 3) | ((h >> 2) != 3) << 1, 2);
	}
	diff_tail(a, b, i, n, m, pos);
}

static diff_fn *resolve_diff(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return diff_avx512;
	return __builtin_cpu_supports("avx2") ? diff_avx2 : diff_sse2;
}

static diff_fn diff_words __attribute__((ifunc("resolve_diff")));

/*
 * The runs of set bits of m (nw bits, none set past them) into run, at
 * most max of them, their words counted in *nlit: how many, or max + 1
 * if there are more.  Per word, the bits that differ from the one before
 * them: where a run starts and where one has ended, in turn.
 */
static uint32_t find_runs(const uint64_t *m, uint32_t nw, struct exp_trun *run,
			  uint32_t max, uint32_t *nlit)
{
	uint32_t n = 0, i, at, open = 0;
	uint64_t x, c = 0, edges;
	bool in = false;

	*nlit = 0;
	for (i = 0; i < (nw + 63) / 64; i++) {
		x = m[i];
		edges = x ^ (x << 1 | c);	/* a run starts or has ended */
		c = x >> 63;
		for (; edges; edges &= edges - 1, in = !in) {
			at = 64 * i + __builtin_ctzll(edges);
			if (!in) {
				if (n == max)
					return n + 1;
				open = at;
				continue;
			}
			run[n].pos = open;
			run[n++].len = at - open;
			*nlit += at - open;
		}
	}
	if (in) {	/* a run to the last word's end: nw is a multiple of 64 */
		run[n].pos = open;
		run[n++].len = nw - open;
		*nlit += nw - open;
	}
	return n;
}

/* After the runs of h: their padding, the literal words of the image. */
static uint32_t put_delta(struct exp_tstack *h, const uint64_t *regs,
			  const u64a *stack)
{
	const struct exp_trun *run = (const struct exp_trun *)(h + 1);
	uint32_t rb = (4 * h->nr_runs + 7) & ~7u, i, w;
	uint64_t *lit = (uint64_t *)((uint8_t *)run + rb);

	if (h->nr_runs % 2)
		memset((uint8_t *)(run + h->nr_runs), 0, 4);
	for (i = 0; i < h->nr_runs; i++)
		for (w = run[i].pos; w < run[i].pos + run[i].len; w++)
			*lit++ = w < NR ? regs[w] : stack[w - NR];
	return (uint8_t *)lit - (uint8_t *)h;
}

/*
 * The stack part of a record (struct exp_tstack and what follows) into
 * out: registers regs and size bytes of stack from their rsp, as a delta
 * against b if that takes at most half the bytes, else whole (then it is
 * b's new base).  Deltas in a row that together wrote more than a whole
 * copy beyond SMALL_DELTA bytes each mean the base is of another place
 * (the program went on elsewhere): the next copy is whole.  Returns its
 * bytes; *delta says which.  diff compares: tr_stack_copy() with the one
 * the dynamic linker chose, tests/host/trace_tstack with each.
 */
static inline __attribute__((always_inline))
uint32_t stack_copy(diff_fn *diff, struct tr_stack_base *b, const uint64_t *regs,
		    uint32_t size, uint8_t *out, bool *delta)
{
	struct exp_tstack *h = (struct exp_tstack *)out;
	const uint64_t sp = regs[EXP_TR_RSP], bsp = b->regs[EXP_TR_RSP];
	const uint32_t nw = NR + size / 8;
	const uint32_t whole = sizeof(*h) + 8 * nw;
	/* a delta's runs, in out: no more than half the whole copy's room */
	const uint32_t max_runs = (whole / 2 - sizeof(*h)) / 4;
	uint32_t nm = (nw + 63) / 64, nlit, nruns;
	uint64_t m[MASK_WORDS], lo, hi;

	*delta = false;
	h->size = size;
	if (b->have && b->deltas < REBASE_EVERY && !((sp - bsp) % 8)) {
		if (nm <= 8)
			memset(m, 0, 64);	/* up to 4 KiB of stack: inline */
		else
			memset(m, 0, 8 * nm);
		diff((const u64a *)regs, (const u64a *)b->regs, NR, m, 0);
		lo = sp > bsp ? sp : bsp;
		hi = sp + size < bsp + b->size ? sp + size : bsp + b->size;
		if (lo < hi) {
			set_range(m, NR, NR + (lo - sp) / 8);
			diff((const u64a *)lo, (const u64a *)(b->bytes + (lo - bsp)),
			     (hi - lo) / 8, m, NR + (lo - sp) / 8);
			set_range(m, NR + (hi - sp) / 8, nw);
		} else {
			set_range(m, NR, nw);
		}
		nruns = find_runs(m, nw, (struct exp_trun *)(h + 1), max_runs, &nlit);
		if (nruns <= max_runs && b->excess <= whole &&
		    sizeof(*h) + 4 * nruns + 4 + 8 * nlit <= whole / 2) {
			h->base = b->num;
			h->nr_runs = nruns;
			b->deltas++;
			*delta = true;
			nlit = put_delta(h, regs, (const u64a *)sp);	/* bytes */
			b->excess = nlit > SMALL_DELTA ? b->excess + nlit - SMALL_DELTA : 0;
			return nlit;
		}
	}
	h->base = ++b->num;
	h->nr_runs = 0;
	memcpy(h + 1, regs, 8 * NR);
	memcpy((uint8_t *)(h + 1) + 8 * NR, (const void *)sp, size);
	memcpy(b->regs, regs, 8 * NR);
	memcpy(b->bytes, (const void *)sp, size);
	b->size = size;
	b->have = 1;
	b->deltas = 0;
	b->excess = 0;
	return whole;
}

uint32_t tr_stack_copy(struct tr_stack_base *b, const uint64_t *regs,
		       uint32_t size, uint8_t *out, bool *delta)
{
	return stack_copy(diff_words, b, regs, size, out, delta);
}
