// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp: "capture FILE deltas=N ...": a capture's stack as a chain of
 * delta stack copies (struct lwprof_sdelta), encoded here independently
 * of the module and the analyzer, to test the reader's rebuilding and its
 * handling of a missing base (see gen_exp.c for the statement).
 */
#include "gen_exp.h"
#include "capture.h"
#include "sdelta_enc.h"

#define BS LWPROF_SDELTA_BLOCK

/*
 * The delta of cur against base (both size bytes from sp) into out:
 * blocks that differ, and those in force (a bitmap, or NULL), are
 * literal.  Returns the area's bytes.
 */
size_t gen_sdelta_encode(uint8_t *out, uint64_t sp, uint32_t size,
			 const uint8_t *cur, const uint8_t *base, uint64_t base_t,
			 uint64_t force)
{
	return sdelta_encode(out, sp, size, cur, sp, size, base, base_t, force);
}

int gen_capture_delta(struct gen *g, char **kv, int nkv)
{
	uint64_t user[LWPROF_MS_COUNT] = { 10000000 };
	uint64_t sleep[LWPROF_MS_COUNT] = { [7] = 10000000 };
	uint64_t t = g->start_ns + 1000000, base_t = t, sp;
	const char *base = "ok";
	int deltas = 0, damage = 0, err, i;
	uint8_t *stack = NULL, *spoilt = NULL, *area = NULL;
	struct lwprof_capture c;
	size_t n;

	for (i = 1; i < nkv; i++) {
		if (!strncmp(kv[i], "deltas=", 7))
			deltas = atoi(kv[i] + 7);
		else if (!strncmp(kv[i], "base=", 5))
			base = kv[i] + 5;
		else if (!strcmp(kv[i], "damage=1"))
			damage = 1;
		else if (!strncmp(kv[i], "t=", 2))
			t = base_t = g->start_ns + strtoull(kv[i] + 2, NULL, 0);
		else
			return -EINVAL;
	}
	err = gen_capture_read(g, kv[0], &c, &stack);
	if (err)
		return err;
	sp = c.regs[LWPROF_REG_SP];
	spoilt = malloc(c.stack_size);
	area = malloc(c.stack_size * 2 + 4096);
	err = -ENOMEM;
	if (!spoilt || !area)
		goto out;
	memcpy(spoilt, stack, c.stack_size);
	for (uint64_t a = sp; a < sp + c.stack_size; a++)
		if ((a / BS) % 2)
			spoilt[a - sp] ^= 0x5a;
	err = 0;
	if (strcmp(base, "lost"))
		err = gen_sample(g, 0, c.pid, c.tid, t, sleep, -1, 0,
				 LWPROF_RS_SBASE, &c.regs[LWPROF_REG_IP], 1,
				 c.regs, spoilt, c.stack_size);
	if (!strcmp(base, "stale"))
		base_t = t - 1;
	for (i = 0; !err && i < deltas; i++) {
		t += 10000000;
		n = gen_sdelta_encode(area, sp, c.stack_size, stack, i ? stack : spoilt,
			   base_t, i >= 2);
		if (damage && !i)
			((struct lwprof_sdelta *)area)->nr_literal++;
		err = n ? gen_sample(g, 0, c.pid, c.tid, t, user, -1, 0,
				     LWPROF_RS_SDELTA | LWPROF_RS_SBASE,
				     &c.regs[LWPROF_REG_IP], 1, c.regs, area, n) :
			  -ENOMEM;
		base_t = t;
	}
out:
	free(stack);
	free(spoilt);
	free(area);
	return err;
}
