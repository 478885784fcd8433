// SPDX-License-Identifier: GPL-2.0
/*
 * The process's live heap blocks (heapsum.c's): each block made and not
 * yet freed, by address, with its allocation's stack id, size and slice,
 * so that a free is counted against the allocation it ends.
 *
 * The address picks one of STRIPES tables (stripe.c), each behind its
 * own spin flag (held for a probe, never across a system call but a
 * table's growth): threads that allocate at once rarely meet.  A block
 * is taken out by backward-shift deletion.  No thread holds a flag while
 * a signal handler on it can trace (tr_in is set), so a handler never
 * waits for its own thread.
 */
#include "trace.h"

#define STRIPES		1024u
#define FIRST_CAP	256u

static struct tr_stripe live[STRIPES];	/* of struct tr_block; addr 0: free */

static inline uint64_t mix(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

static uint32_t home(const void *e)
{
	return mix(((const struct tr_block *)e)->addr) >> 10;
}

void tr_live_add(const struct tr_block *b)
{
	const uint64_t h = mix(b->addr);
	struct tr_stripe *s = &live[h % STRIPES];
	struct tr_block *t;
	uint32_t i;

	tr_spin_lock(&s->lock);
	if (2 * (s->n + 1) > s->cap &&
	    !tr_stripe_grow(s, sizeof(*b), FIRST_CAP, home)) {
		tr_spin_unlock(&s->lock);
		return;	/* no memory: the block is not remembered */
	}
	/* its slot, or the slot of a block made again without its free seen */
	t = s->t;
	for (i = (h >> 10) & (s->cap - 1); t[i].addr && t[i].addr != b->addr;
	     i = (i + 1) & (s->cap - 1))
		;
	s->n += !t[i].addr;
	t[i] = *b;
	tr_spin_unlock(&s->lock);
}

/* Bring addr's slot into the cache, before the work that precedes its use. */
void tr_live_prefetch(uint64_t addr)
{
	const uint64_t h = mix(addr);
	const struct tr_stripe *s = &live[h % STRIPES];

	if (s->cap)
		__builtin_prefetch((const struct tr_block *)s->t +
				   ((h >> 10) & (s->cap - 1)));
}

bool tr_live_take(uint64_t addr, struct tr_block *b)
{
	struct tr_stripe *s = &live[mix(addr) % STRIPES];
	struct tr_block *t = NULL;
	uint32_t i, j, k, m;
	bool found = false;

	tr_spin_lock(&s->lock);
	m = s->cap - 1;
	t = s->t;
	for (i = (mix(addr) >> 10) & m; s->cap && t[i].addr; i = (i + 1) & m) {
		if (t[i].addr != addr)
			continue;
		*b = t[i];
		found = true;
		/* backward shift: the slots after it that probed past it */
		for (j = (i + 1) & m; t[j].addr; j = (j + 1) & m) {
			k = home(&t[j]) & m;
			if ((j > i && (k <= i || k > j)) ||
			    (j < i && k <= i && k > j)) {
				t[i] = t[j];
				i = j;
			}
		}
		t[i].addr = 0;
		s->n--;
		break;
	}
	tr_spin_unlock(&s->lock);
	return found;
}

/* In a forked child: the parent's blocks are not the child's to count. */
void tr_live_reset(void)
{
	uint32_t i;

	for (i = 0; i < STRIPES; i++)
		tr_table_free(&live[i], sizeof(struct tr_block));
}
