// SPDX-License-Identifier: GPL-2.0
/*
 * Stack copies through libexp/stack.h, against copies this test makes
 * and so knows:
 *  - a sample's delta (struct lwprof_sdelta), encoded here from random
 *    stacks (unaligned stack pointers, a copy that moved down past its
 *    base, one block changed or all): parsed, it fits its base and
 *    rebuilds the copy byte for byte; each kind of damage is named at its
 *    offset; a delta that reuses bytes its base has not does not fit;
 *  - a traced call's delta (struct exp_tstack, runs of changed words):
 *    rebuilt registers and stack equal the truth;
 *  - the tracker over a record file: a chain of deltas per thread, a
 *    delta whose base is missing (counted, and no copy), and records
 *    asked for out of order, each handed out whole as written before the
 *    deltas.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/stack.h"
#include "libexp/trace.h"
#include "sdelta_enc.h"
#include "test.h"

static uint64_t rnd_state = 0x1234567;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The delta of cur against base, with no block forced literal. */
static size_t encode(uint8_t *out, uint64_t sp, uint32_t size,
		     const uint8_t *cur, uint64_t bsp, uint32_t bsize,
		     const uint8_t *base, uint64_t base_t)
{
	return sdelta_encode(out, sp, size, cur, bsp, bsize, base, base_t, 0);
}

static void sdelta_roundtrips(void)
{
	static uint8_t base[16384], cur[16384], area[20000], out[16384];
	const struct { uint64_t bsp, sp; uint32_t bsize, size; int change; } c[] = {
		{ 0x7ffe1000, 0x7ffe1000, 8192, 8192, 1 },	/* aligned, one block */
		{ 0x7ffe1010, 0x7ffe1018, 8192, 8184, 3 },	/* unaligned */
		{ 0x7ffe2000, 0x7ffe1f00, 4096, 4352, 0 },	/* moved down past its base */
		{ 0x7ffe1234, 0x7ffe1234, 1000, 1000, -1 },	/* everything changed */
		{ 0x7ffe1000, 0x7ffe1000, 64, 64, 0 },		/* one block, unchanged */
	};
	unsigned int k, i, ok = 0, fits = 0;
	struct sdelta d;
	uint32_t at;
	size_t n;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		for (i = 0; i < c[k].bsize; i++)
			base[i] = rnd();
		/* cur: the base's bytes where they overlap, else new ones */
		for (i = 0; i < c[k].size; i++) {
			uint64_t a = c[k].sp + i;

			cur[i] = a >= c[k].bsp && a < c[k].bsp + c[k].bsize ?
				 base[a - c[k].bsp] : rnd();
			if (c[k].change < 0)
				cur[i] ^= 0x5a;
		}
		for (i = 0; i < (unsigned int)(c[k].change > 0 ? c[k].change : 0); i++)
			cur[rnd() % c[k].size] ^= 1;
		n = encode(area, c[k].sp, c[k].size, cur, c[k].bsp, c[k].bsize,
			   base, 1000 + k);
		if (sdelta_parse(area, n, &d, &at) || d.sp != c[k].sp ||
		    d.size != c[k].size || d.base_time_ns != 1000 + k)
			continue;
		fits += sdelta_fits(&d, c[k].bsp, c[k].bsize);
		memset(out, 0, sizeof(out));
		ok += sdelta_apply(&d, base, c[k].bsp, c[k].bsize, out) &&
		      !memcmp(out, cur, c[k].size);
	}
	t_check(fits == k, "every delta fits its base (%u of %u)", fits, k);
	t_check(ok == k, "every delta parses and rebuilds its copy byte for byte (%u of %u)",
		ok, k);
	/* a delta of a copy that reaches below a base it claims to reuse */
	for (i = 0; i < 4096; i++)
		base[i] = cur[i] = i;
	n = encode(area, 0x7ffe1000, 4096, cur, 0x7ffe1000, 4096, base, 1);
	sdelta_parse(area, n, &d, &at);
	t_check(!sdelta_fits(&d, 0x7ffe1040, 4032) &&
		!sdelta_apply(&d, base + 64, 0x7ffe1040, 4032, out),
		"reused blocks outside the base: no fit, no copy");
}

static void sdelta_damage(void)
{
	uint8_t cur[256], base[256], area[600], bad[600];
	struct lwprof_sdelta h;
	struct sdelta d;
	const char *why;
	uint32_t at;
	size_t n;
	int i;

	for (i = 0; i < 256; i++)
		cur[i] = base[i] = i;
	cur[100] = 0xff;	/* block 1 literal of 4 */
	n = encode(area, 0x1000, 256, cur, 0x1000, 256, base, 7);
	memcpy(&h, area, sizeof(h));
	why = sdelta_parse(area, 10, &d, &at);
	t_check(why && at == 0 && strstr(why, "shorter than its header"),
		"cut inside its header: %s at %u", why, at);
	memcpy(bad, area, n);
	((struct lwprof_sdelta *)bad)->size = 0;
	why = sdelta_parse(bad, n, &d, &at);
	t_check(why && at == 16 && strstr(why, "bad size"), "size 0: %s at %u", why, at);
	memcpy(bad, area, n);
	((struct lwprof_sdelta *)bad)->nr_blocks = 5;
	why = sdelta_parse(bad, n, &d, &at);
	t_check(why && at == 20 && strstr(why, "block count"), "wrong block count: %s at %u",
		why, at);
	memcpy(bad, area, n);
	((struct lwprof_sdelta *)bad)->nr_literal = 2;
	why = sdelta_parse(bad, n, &d, &at);
	t_check(why && at == 22 && strstr(why, "literal count"), "wrong literal count: %s at %u",
		why, at);
	memcpy(bad, area, n);
	bad[sizeof(h)] |= 0x80;		/* bit 7: past the 4 blocks */
	why = sdelta_parse(bad, n, &d, &at);
	t_check(why && at == sizeof(h) && strstr(why, "bits past the last block"),
		"a bitmap bit past the blocks: %s at %u", why, at);
	why = sdelta_parse(area, n - 8, &d, &at);
	t_check(why && at == sizeof(h) + 8 && strstr(why, "literal bytes"),
		"literal bytes cut: %s at %u", why, at);
	t_check(!sdelta_parse(area, n, &d, &at) && d.nr_literal == 1 &&
		sdelta_literal(&d, 1) && !sdelta_literal(&d, 0),
		"the sound one: block 1 alone literal");
}

/* A trace call record with a stack (whole, or delta of runs) into buf. */
static const struct lwprof_rec *tcall(uint8_t *buf, uint16_t base_no,
				      uint32_t size, const uint64_t *image,
				      const struct exp_trun *runs,
				      uint16_t nr_runs)
{
	struct exp_rec_tcall *t = (void *)buf;
	struct exp_tstack *st = (void *)(t + 1);
	uint64_t *w;
	uint32_t i, k, nw = 0;

	memset(buf, 0, 4096);
	t->hdr.type = EXP_REC_TCALL;
	t->hdr.flags = EXP_TCF_STACK | (runs ? EXP_TCF_DELTA : 0);
	t->event = EXP_TR_MALLOC;
	t->pid = t->tid = 9;
	t->fd = -1;
	t->time_ns = 5;
	st->size = size;
	st->base = base_no;
	st->nr_runs = nr_runs;
	if (runs) {
		memcpy(st + 1, runs, nr_runs * sizeof(*runs));
		w = (uint64_t *)((uint8_t *)(st + 1) + ((4 * nr_runs + 7) & ~7u));
		for (i = 0; i < nr_runs; i++)
			for (k = 0; k < runs[i].len; k++)
				w[nw++] = image[runs[i].pos + k];
	} else {
		w = (uint64_t *)(st + 1);
		nw = EXP_TR_NR_REGS + size / 8;
		memcpy(w, image, 8 * nw);
	}
	t->hdr.size = (uint8_t *)(w + nw) - buf;
	return &t->hdr;
}

static void tstack(void)
{
	enum { NW = EXP_TR_NR_REGS + 32 };	/* 8 registers, 256 bytes of stack */
	static const struct exp_trun runs[] = { { 0, 1 }, { 9, 2 }, { 30, 1 } };
	uint64_t bimg[NW], img[NW];
	__u64 regs[EXP_TR_NR_REGS];
	uint8_t brec[4096], rec[4096], stack[256];
	struct exp_tcall bv, v;
	const char *why;
	unsigned int at;
	__u32 known;
	int i;

	for (i = 0; i < NW; i++)
		bimg[i] = img[i] = rnd();
	bimg[EXP_TR_RSP] = img[EXP_TR_RSP] = 0x7ffd0000;
	img[0] ^= 1;		/* rbx */
	img[9] ^= 2;		/* stack words 1 and 2 */
	img[10] ^= 3;
	img[30] ^= 4;		/* stack word 22 */
	tcall(brec, 3, 256, bimg, NULL, 0);
	tcall(rec, 3, 256, img, runs, 3);
	why = exp_tcall_check((const void *)rec, ((struct lwprof_rec *)rec)->size,
			      &known, &at);
	t_check(!why, "the delta record passes its checks (%s)", why ? why : "");
	if (exp_tcall_view((const void *)brec, &bv) || !bv.st || bv.delta ||
	    exp_tcall_view((const void *)rec, &v) || !v.st || !v.delta) {
		t_check(0, "the records' views");
		return;
	}
	t_check(exp_tstack_sp(&v, bv.words[EXP_TR_RSP]) == 0x7ffd0000,
		"a delta's rsp: the base's when not literal");
	t_check(exp_tstack_fits(&v, bv.words[EXP_TR_RSP], 256),
		"it fits its base");
	t_check(exp_tstack_apply(&v, bv.words, (const uint8_t *)(bv.words + EXP_TR_NR_REGS),
				 256, regs, stack) &&
		!memcmp(regs, img, sizeof(regs)) && !memcmp(stack, img + EXP_TR_NR_REGS, 256),
		"registers and stack rebuilt as they were");
	t_check(!exp_tstack_fits(&v, bv.words[EXP_TR_RSP] + 64, 256 - 64),
		"a base that starts 64 bytes higher does not hold the reused words");
}

/* ---- the tracker over a record file ---- */

struct truth {
	uint64_t off;
	uint32_t tid;
	uint8_t copy[512];
	uint32_t size;
	int usable;		/* exp_stack_sample's answer */
};

static uint8_t *put_sample(uint8_t *p, uint32_t tid, uint64_t t, uint16_t flags,
			   uint64_t sp, const uint8_t *area, uint32_t len)
{
	struct lwprof_rec_sample *s = (void *)p;
	uint64_t *regs = (uint64_t *)(s + 1);

	memset(s, 0, sizeof(*s) + 8 * LWPROF_NR_REGS + ((len + 7) & ~7u));
	s->hdr.type = LWPROF_REC_SAMPLE;
	s->hdr.flags = LWPROF_RS_REGS | flags;
	s->hdr.size = sizeof(*s) + 8 * LWPROF_NR_REGS + ((len + 7) & ~7u);
	s->time_ns = t;
	s->pid = 1;
	s->tid = tid;
	s->kind = LWPROF_SK_CLOCK;
	s->stack_size = len;
	regs[LWPROF_REG_SP] = sp;
	memcpy(regs + LWPROF_NR_REGS, area, len);
	return p + s->hdr.size;
}

static void tracker(void)
{
	static uint8_t file[65536], area[1024];
	static struct truth tr[6];
	struct exp_file_header h;
	struct exp_stack_scan sc;
	struct exp_reader rd, bases;
	const struct lwprof_rec *rec;
	const uint8_t *whole;
	struct exp_stacks *st;
	uint8_t *p = file, *owned;
	char path[4200];
	int i, n = 0, ok, fd, order[] = { 2, 0, 1, 4, 3 };
	const char *why;
	uint64_t at;

	exp_file_header_init(&h, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	/* tid 7: a full copy, a delta of it, a delta of that */
	for (i = 0; i < 512; i++)
		tr[0].copy[i] = rnd();
	tr[0].size = 512;
	memcpy(tr[1].copy, tr[0].copy, 512);
	tr[1].copy[300] ^= 0xff;
	tr[1].size = 512;
	memcpy(tr[2].copy, tr[1].copy, 512);
	tr[2].copy[10] ^= 1;
	tr[2].size = 512;
	/* tid 8: a full copy; tid 7: a delta whose base (time 999) is gone */
	for (i = 0; i < 256; i++)
		tr[3].copy[i] = i;
	tr[3].size = 256;
	memcpy(tr[4].copy, tr[2].copy, 512);
	tr[4].size = 512;
	for (i = 0; i < 5; i++) {
		uint64_t t = 100 * (i + 1);

		tr[i].off = p - file;
		tr[i].tid = i == 3 ? 8 : 7;
		tr[i].usable = i != 4;
		if (i == 0 || i == 3) {
			p = put_sample(p, tr[i].tid, t, LWPROF_RS_SBASE, 0x7ff00000,
				       tr[i].copy, tr[i].size);
			continue;
		}
		n = encode(area, 0x7ff00000, 512, tr[i].copy, 0x7ff00000, 512,
			   tr[i == 4 ? 2 : i - 1].copy, i == 4 ? 999 : 100 * i);
		p = put_sample(p, 7, t, LWPROF_RS_SBASE | LWPROF_RS_SDELTA,
			       0x7ff00000, area, n);
	}
	snprintf(path, sizeof(path), "%s/cpu.0.rec", t_dir("stack"));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, file, p - file) != p - file || close(fd))
		t_fatal(path);

	st = exp_stacks_new();
	if (!st || exp_reader_open(&rd, AT_FDCWD, path, NULL, NULL))
		t_fatal("open");
	exp_stack_scan_begin(&sc, st, 0);
	ok = 0;
	for (i = 0; exp_reader_next(&rd, &rec) > 0; i++) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		ok += exp_stack_sample(&sc, rd.off, s,
				       exp_sample_stack(s, LWPROF_NR_REGS), 0,
				       &why, &at) == tr[i].usable;
	}
	t_check(i == 5 && ok == 5, "scan: every copy usable but the delta without its base (%d of %d)",
		ok, i);
	t_check(sc.missing == 1, "scan: one delta without its base counted (%llu)",
		(unsigned long long)sc.missing);
	exp_stack_scan_end(&sc);
	exp_reader_close(&rd);

	/* in an order that is not the file's: s2 before the s0 and s1 it needs */
	if (exp_reader_open(&rd, AT_FDCWD, path, NULL, NULL) ||
	    exp_reader_open(&bases, AT_FDCWD, path, NULL, NULL))
		t_fatal("open");
	ok = 0;
	for (i = 0; i < 5; i++) {
		struct truth *x = &tr[order[i]];
		const struct lwprof_rec_sample *s;

		if (exp_reader_at(&rd, x->off, &rec) != 1)
			continue;
		whole = exp_stack_whole(st, 0, x->off, &bases, exp_stack_rec(rec), &owned);
		s = (const void *)whole;
		if (!x->usable) {
			ok += !whole;
			continue;
		}
		ok += whole && s->stack_size == x->size &&
		      !(s->hdr.flags & LWPROF_RS_SDELTA) &&
		      !memcmp(exp_sample_stack(s, LWPROF_NR_REGS), x->copy, x->size);
		free(owned);
	}
	t_check(ok == 5, "whole: each copy as it was, asked for out of order; none for the one without its base (%d of 5)",
		ok);
	exp_reader_close(&rd);
	exp_reader_close(&bases);
	exp_stacks_free(st);
}

int main(void)
{
	sdelta_roundtrips();
	sdelta_damage();
	tstack();
	tracker();
	return t_done();
}
