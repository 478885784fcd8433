// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing library's stack parts (trace/stack.c, included here for its
 * three comparisons) read back by libexp (libexp/stack.c), the reader's
 * checks and the analyzer's rebuilding: a fake stack changes between
 * "calls" (words, registers, the stack pointer, the copy's size, a little
 * or a lot), each copy is wrapped in a trace call record, checked,
 * viewed and rebuilt against the last whole copy, and must equal the
 * registers and stack bytes it was taken from, with AVX-512, AVX2 (where
 * the CPU has them) and SSE2.  Deltas must be used (most copies) and
 * small when little changed, whole copies must number their bases.
 */
#include <stdint.h>

#include "test.h"
#include "../../trace/stack.c"
#include "libexp/stack.h"

#define STACK	(96 * 1024)
#define CALLS	4000

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct run {
	const char *name;
	diff_fn *diff;
	uint64_t seed;
	unsigned int deltas, wholes, bad, small, bases_bad;
};

/* One call: the copy of regs and size bytes at regs' rsp, read back. */
static void call(struct run *r, struct tr_stack_base *b, const uint64_t *regs,
		 uint32_t size, uint8_t *rec, __u64 *base_regs, uint8_t *base,
		 uint32_t *base_size, uint16_t *base_num, bool tiny)
{
	struct exp_rec_tcall *t = (struct exp_rec_tcall *)rec;
	static uint8_t stack[LWPROF_STACK_MAX];
	__u64 got[EXP_TR_NR_REGS];
	struct exp_tcall v;
	unsigned int at;
	uint32_t n, known;
	bool delta;

	memset(t, 0, sizeof(*t));
	n = stack_copy(r->diff, b, regs, size, (uint8_t *)t->fields, &delta);
	t->hdr.type = EXP_REC_TCALL;
	t->hdr.flags = EXP_TCF_STACK | (delta ? EXP_TCF_DELTA : 0);
	t->hdr.size = sizeof(*t) + n;
	t->event = EXP_TR_MALLOC;
	t->pid = t->tid = 1;
	if (exp_tcall_check(t, t->hdr.size, &known, &at) || known != t->hdr.size ||
	    exp_tcall_view((const void *)t, &v) || v.st->size != size) {
		r->bad++;
		return;
	}
	if (!delta) {
		r->wholes++;
		if (v.st->base != (uint16_t)(*base_num + 1))
			r->bases_bad++;
		*base_num = v.st->base;
		memcpy(base_regs, v.words, 8 * EXP_TR_NR_REGS);
		memcpy(base, v.words + EXP_TR_NR_REGS, size);
		*base_size = size;
	} else {
		r->deltas++;
		if (v.st->base != *base_num)
			r->bases_bad++;
		if (tiny && n > 64)
			r->small++;	/* a word or two changed: a small delta */
	}
	if (!exp_tstack_apply(&v, base_regs, base, *base_size, got, stack) ||
	    memcmp(got, regs, sizeof(got)) ||
	    memcmp(stack, (const void *)regs[EXP_TR_RSP], size))
		r->bad++;
}

static void run(struct run *r, uint64_t *mem)
{
	static uint8_t bbytes[LWPROF_STACK_MAX], base[LWPROF_STACK_MAX];
	static uint8_t rec[2 * LWPROF_STACK_MAX];
	struct tr_stack_base b = { .bytes = bbytes };
	uint64_t regs[EXP_TR_NR_REGS], x;
	__u64 base_regs[EXP_TR_NR_REGS];
	const uint64_t top = (uint64_t)(mem + STACK / 8);
	uint32_t i, k, size = 2048, base_size = 0;
	uint16_t base_num = 0;
	bool tiny, clean = false;	/* only tiny changes since the last base */

	for (i = 0; i < STACK / 8; i++)
		mem[i] = rnd(&r->seed);
	for (i = 0; i < EXP_TR_NR_REGS; i++)
		regs[i] = rnd(&r->seed);
	regs[EXP_TR_RSP] = top - 4096;
	for (i = 0; i < CALLS; i++) {
		x = rnd(&r->seed);
		tiny = x % 8 < 5 && size >= 32;
		if (tiny) {	/* a loop: a counter in a register and a word */
			regs[0]++;
			((uint64_t *)regs[EXP_TR_RSP])[3]++;
		} else if (x % 8 == 5) {	/* deeper or shallower, another size */
			regs[EXP_TR_RSP] = top - 8 * (16 + x / 8 % 4000);
			size = 8 * (x / 65536 % ((top - regs[EXP_TR_RSP]) / 8 + 1));
			if (size > LWPROF_STACK_MAX)
				size = LWPROF_STACK_MAX;
		} else if (x % 8 == 6) {	/* many words, some registers */
			for (k = 0; k < x / 8 % 300; k++)
				((uint64_t *)regs[EXP_TR_RSP])[rnd(&r->seed) % (size / 8 + 1)] =
					rnd(&r->seed);
			regs[x / 8 % EXP_TR_NR_REGS == EXP_TR_RSP ? 0 : x / 8 % EXP_TR_NR_REGS] ^= x;
		}	/* else: nothing changed */
		if (!tiny && x % 8 != 7)
			clean = false;
		call(r, &b, regs, size, rec, base_regs, base, &base_size, &base_num,
		     tiny && clean);
		clean = clean || !b.deltas;	/* a whole copy is a clean base */
	}
}

int main(void)
{
	struct run runs[] = {
		{ .name = "AVX-512", .seed = 0x1234 },
		{ .name = "AVX2", .seed = 0x5678 },
		{ .name = "SSE2", .diff = diff_sse2, .seed = 0x9abc },
	};
	uint64_t *mem = aligned_alloc(64, STACK);
	unsigned int i;

	if (!mem)
		t_fatal("aligned_alloc");
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		runs[0].diff = diff_avx512;
	if (__builtin_cpu_supports("avx2"))
		runs[1].diff = diff_avx2;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct run *r = &runs[i];

		if (!r->diff) {
			printf("skip: %s: not on this CPU\n", r->name);
			continue;
		}
		run(r, mem);
		t_check(!r->bad, "%s: %u copies checked and rebuilt to the bytes and registers taken (%u wrong)",
			r->name, r->deltas + r->wholes, r->bad);
		t_check(r->deltas > r->wholes * 2, "%s: %u deltas, %u whole", r->name,
			r->deltas, r->wholes);
		t_check(!r->small, "%s: a delta of a word and a register is at most 64 bytes (%u larger)",
			r->name, r->small);
		t_check(!r->bases_bad, "%s: whole copies count their base up, deltas name it (%u wrong)",
			r->name, r->bases_bad);
	}
	free(mem);
	return t_done();
}
