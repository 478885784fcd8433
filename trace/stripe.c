// SPDX-License-Identifier: GPL-2.0
/*
 * The striped tables of the heap's bookkeeping (live.c's blocks,
 * heapsum.c's counts): open addressing with linear probing, in memory
 * of their own (mmap: never the program's allocator), doubled at half
 * full under their stripe's spin flag.  A slot is used when its first 8
 * bytes are not all zero: both tables' entries start with a word that
 * is never 0 (an address; a stack id and an event).
 */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "trace.h"

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

void *tr_table_new(uint32_t cap, size_t esz)
{
	void *p = mmap(NULL, cap * esz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void tr_table_free(struct tr_stripe *s, size_t esz)
{
	if (s->t)
		munmap(s->t, s->cap * esz);
	*s = (struct tr_stripe){ 0 };
}

bool tr_slot_used(const void *e)
{
	uint64_t w;

	memcpy(&w, e, 8);
	return w;
}

void tr_table_put(void *t, uint32_t cap, size_t esz, const void *e,
		  uint32_t home)
{
	uint8_t *p = t;
	uint32_t i;

	for (i = home & (cap - 1); tr_slot_used(p + i * esz); i = (i + 1) & (cap - 1))
		;
	memcpy(p + i * esz, e, esz);
}

bool tr_stripe_grow(struct tr_stripe *s, size_t esz, uint32_t first,
		    uint32_t (*home)(const void *e))
{
	uint32_t cap = s->cap ? 2 * s->cap : first, i;
	uint8_t *t = tr_table_new(cap, esz), *old = s->t;

	if (!t)
		return false;
	for (i = 0; i < s->cap; i++)
		if (tr_slot_used(old + i * esz))
			tr_table_put(t, cap, esz, old + i * esz, home(old + i * esz));
	if (old)
		munmap(old, s->cap * esz);
	s->t = t;
	s->cap = cap;
	return true;
}
