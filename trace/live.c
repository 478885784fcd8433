// SPDX-License-Identifier: GPL-2.0
/*
 * The process's live heap blocks (heapsum.c's): each block made and not
 * yet freed, by address, with its allocation's stack id, size and slice,
 * so that a free is counted against the allocation it ends.
 *
 * The address picks one of STRIPES tables, each behind its own spin
 * flag (held for a probe, never across a system call but a table's
 * growth): threads that allocate at once rarely meet.  A table is open
 * addressing with linear probing and backward-shift deletion, doubled
 * at half full.  No thread holds a flag while a signal handler on it can
 * trace (tr_in is set), so a handler never waits for its own thread.
 */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "trace.h"

#define STRIPES		1024u
#define FIRST_CAP	256u

struct stripe {
	int lock;
	uint32_t n, cap;
	struct tr_block *t;	/* cap slots; addr 0: free */
};

static struct stripe live[STRIPES];

static inline uint64_t mix(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

void tr_spin_lock(int *l)
{
	unsigned int i = 0;

	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		if (++i % 64 == 0)
			sched_yield();
}

void tr_spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static struct tr_block *table(uint32_t cap)
{
	void *p = mmap(NULL, cap * sizeof(struct tr_block), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void put(struct tr_block *t, uint32_t cap, const struct tr_block *b)
{
	uint32_t i = (mix(b->addr) >> 10) & (cap - 1);

	while (t[i].addr)
		i = (i + 1) & (cap - 1);
	t[i] = *b;
}

/* s doubled (or made); false: no memory (the block is not remembered). */
static bool grow(struct stripe *s)
{
	uint32_t cap = s->cap ? 2 * s->cap : FIRST_CAP, i;
	struct tr_block *t = table(cap);

	if (!t)
		return false;
	for (i = 0; i < s->cap; i++)
		if (s->t[i].addr)
			put(t, cap, &s->t[i]);
	if (s->t)
		munmap(s->t, s->cap * sizeof(*t));
	s->t = t;
	s->cap = cap;
	return true;
}

void tr_live_add(const struct tr_block *b)
{
	const uint64_t h = mix(b->addr);
	struct stripe *s = &live[h % STRIPES];
	uint32_t i;

	tr_spin_lock(&s->lock);
	if (2 * (s->n + 1) > s->cap && !grow(s)) {
		tr_spin_unlock(&s->lock);
		return;	/* no memory: the block is not remembered */
	}
	/* its slot, or the slot of a block made again without its free seen */
	for (i = (h >> 10) & (s->cap - 1); s->t[i].addr && s->t[i].addr != b->addr;
	     i = (i + 1) & (s->cap - 1))
		;
	s->n += !s->t[i].addr;
	s->t[i] = *b;
	tr_spin_unlock(&s->lock);
}

/* Bring addr's slot into the cache, before the work that precedes its use. */
void tr_live_prefetch(uint64_t addr)
{
	const uint64_t h = mix(addr);
	const struct stripe *s = &live[h % STRIPES];

	if (s->cap)
		__builtin_prefetch(&s->t[(h >> 10) & (s->cap - 1)]);
}

bool tr_live_take(uint64_t addr, struct tr_block *b)
{
	struct stripe *s = &live[mix(addr) % STRIPES];
	uint32_t i, j, k, m;
	bool found = false;

	tr_spin_lock(&s->lock);
	m = s->cap - 1;
	for (i = (mix(addr) >> 10) & m; s->cap && s->t[i].addr; i = (i + 1) & m) {
		if (s->t[i].addr != addr)
			continue;
		*b = s->t[i];
		found = true;
		/* backward shift: the slots after it that probed past it */
		for (j = (i + 1) & m; s->t[j].addr; j = (j + 1) & m) {
			k = (mix(s->t[j].addr) >> 10) & m;
			if ((j > i && (k <= i || k > j)) ||
			    (j < i && k <= i && k > j)) {
				s->t[i] = s->t[j];
				i = j;
			}
		}
		s->t[i].addr = 0;
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

	for (i = 0; i < STRIPES; i++) {
		if (live[i].t)
			munmap(live[i].t, live[i].cap * sizeof(struct tr_block));
		live[i] = (struct stripe){ 0 };
	}
}
