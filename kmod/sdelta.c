// SPDX-License-Identifier: GPL-2.0
/*
 * Delta stack copies (LWPROF_SS_SDELTA, uapi/lwprof_record.h): between two
 * samples of a thread most of its stack copy (the callers' frames) is
 * unchanged, so a copy is sent as the 64-byte blocks that differ from the
 * thread's previous copy in the same ring.
 *
 * Per thread, two buffers of stack_bytes: the base (the copy the reader
 * saw last, in the record with time_ns base_time) and a spare that the
 * user stack is read into, which becomes the base once its record is in
 * the ring.  So no copy is made beyond the one from user memory, the
 * literal blocks and, for a full copy, the copy into the packet.
 *
 * The state is only touched while a packet of its thread is built and
 * written: on the thread's CPU, interrupts off, never in an NMI (a packet
 * built in an NMI gets a full copy and is not a base).  It is allocated
 * there, lazily, without any reclaim (not even waking kswapd: a context
 * switch counter fires under the runqueue lock), and not when memory is
 * low (lwprof_spare_alloc()); when that fails the packet just carries a
 * full copy.  It is freed with the thread's task.
 */
#include <linux/slab.h>

#include "sample.h"

struct lwprof_sdelta_state {
	u8 *buf[2];
	u32 cap;		/* bytes per buffer */
	u8 cur;			/* buf[cur] is the base */
	u8 valid;		/* a base exists */
	u32 cpu;		/* whose ring got the base */
	u64 sp;			/* of the base */
	u32 size;		/* bytes of the base */
	u64 time_ns;		/* of the base's record */
	u64 next_sp;		/* the copy in buf[!cur], not yet written */
	u32 next_size;
};

void lwprof_sd_free(struct lwprof_sdelta_state *sd)
{
	if (!sd)
		return;
	kfree(sd->buf[0]);
	kfree(sd);
}

static struct lwprof_sdelta_state *lwprof_sd_get(struct lwprof_smp *smp,
						 struct lwprof_thread *t)
{
	struct lwprof_sdelta_state *sd;
	u8 *buf;

	if (!t || !smp->sdelta || in_nmi())
		return NULL;
	sd = t->sd;
	if (sd)
		return sd->cap == smp->stack_bytes ? sd : NULL;
	buf = lwprof_spare_alloc(smp->session, 2 * (size_t)smp->stack_bytes);
	if (!buf)
		return NULL;
	sd = lwprof_charge_alloc(smp->session, sizeof(*sd),
				 LWPROF_NORECLAIM_GFP | __GFP_ZERO);
	if (!sd) {
		kfree(buf);
		return NULL;
	}
	sd->buf[0] = buf;
	sd->buf[1] = buf + smp->stack_bytes;
	sd->cap = smp->stack_bytes;
	t->sd = sd;
	return sd;
}

/*
 * The delta of the copy in buf[!cur] (size bytes from sp) against the
 * base, into dst: its bytes, or 0 if it would not be smaller than size.
 */
static u32 lwprof_sd_encode(const struct lwprof_sdelta_state *sd, u64 sp,
			    u32 size, u8 *dst)
{
	const u64 bs = LWPROF_SDELTA_BLOCK;
	const u8 *cur = sd->buf[!sd->cur], *base = sd->buf[sd->cur];
	u64 first = sp & ~(bs - 1), end = sp + size;
	u64 base_end = sd->sp + sd->size, lo, hi;
	struct lwprof_sdelta *h = (struct lwprof_sdelta *)dst;
	u32 nr = (ALIGN(end, bs) - first) / bs, i, lit = 0;
	u64 *bm = (u64 *)(h + 1);
	u8 *out = (u8 *)(bm + DIV_ROUND_UP(nr, 64));
	const u8 *limit = dst + size;

	if (out >= limit)
		return 0;
	memset(bm, 0, DIV_ROUND_UP(nr, 64) * sizeof(u64));
	for (i = 0; i < nr; i++) {
		lo = max(first + i * bs, sp);
		hi = min(first + (i + 1) * bs, end);
		if (lo >= sd->sp && hi <= base_end &&
		    !memcmp(cur + (lo - sp), base + (lo - sd->sp), hi - lo))
			continue;
		if (out + (hi - lo) >= limit)
			return 0;
		bm[i / 64] |= 1ULL << (i % 64);
		memcpy(out, cur + (lo - sp), hi - lo);
		out += hi - lo;
		lit++;
	}
	h->sp = sp;
	h->base_time_ns = sd->time_ns;
	h->size = size;
	h->nr_blocks = nr;
	h->nr_literal = lit;
	return out - dst;
}

/*
 * The stack part of pkt into dst: a full copy (stack_bytes at most) or,
 * with the thread's state, a delta (flags get SDELTA) or a full copy that
 * will be the next base (SBASE).  Returns the bytes written.
 */
u32 lwprof_sd_stack(struct lwprof_smp *smp, struct lwprof_pkt *pkt, u8 *dst,
		    u16 *flags)
{
	struct lwprof_sdelta_state *sd = lwprof_sd_get(smp, pkt->thr);
	u64 sp = pkt->uregs->sp;
	u32 got, n;

	if (!sd)
		return lwprof_user_stack(pkt->uregs, dst, smp->stack_bytes);
	got = lwprof_user_stack(pkt->uregs, sd->buf[!sd->cur], sd->cap);
	if (!got)
		return 0;	/* no copy; the base stays */
	sd->next_sp = sp;
	sd->next_size = got;
	pkt->sd = sd;
	*flags |= LWPROF_RS_SBASE;
	if (sd->valid && sd->cpu == smp_processor_id()) {
		n = lwprof_sd_encode(sd, sp, got, dst);
		if (n) {
			*flags |= LWPROF_RS_SDELTA;
			return n;
		}
	}
	memcpy(dst, sd->buf[!sd->cur], got);
	return got;
}

/*
 * pkt's record was written (ok) or dropped.  Written: its copy is the
 * base now.  Dropped: the reader never sees it, so the old base (named by
 * its time) still serves.
 */
void lwprof_sd_done(struct lwprof_pkt *pkt, bool ok)
{
	struct lwprof_sdelta_state *sd = pkt->sd;

	if (!sd || !ok)
		return;
	sd->cur = !sd->cur;
	sd->sp = sd->next_sp;
	sd->size = sd->next_size;
	sd->time_ns = pkt->time_ns;
	sd->cpu = smp_processor_id();
	sd->valid = 1;
}
