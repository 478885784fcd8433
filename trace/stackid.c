// SPDX-License-Identifier: GPL-2.0
/*
 * Interned stacks of heap calls (libexp/trace.h, EXP_REC_TSTACK): the
 * library walks the stack of each allocation itself (libunwind's
 * unw_backtrace, which keeps each pc's frame rule in a per-thread cache,
 * so a walk of a known stack reads no unwinding tables), and gives each
 * distinct stack an id: its leaf's in a tree of frames, whose nodes are
 * defined once, as the first stack through them comes (stacks share
 * their callers' frames, as heaptrack's trace tree does).
 *
 * Each thread keeps its own table (no lock on the hot path): open
 * addressing over the stacks' hashes (with the call's event: a stack id
 * says which call it is), the pcs in an arena beside it to tell stacks
 * of one hash apart.  Ids are the process's (one counter), so an id is
 * one thread's: two threads that make the same stack define it under
 * two ids, each in its own records.  A full table starts again empty:
 * the stacks used after are defined again, under new ids.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "trace.h"

#define SLOTS_MIN	256u		/* per thread, powers of 2 */
#define SLOTS_MAX	(1u << 15)
#define NODES_MIN	1024u
#define NODES_MAX	(1u << 16)
#define ARENA_WORDS	(1u << 20)	/* pcs (and a length word each) */
#define WALK_MAX	(EXP_TSTACK_MAX + 16)	/* libunwind's and our frames first */

struct slot {
	uint64_t hash;
	uint32_t id;		/* 0: free */
	uint32_t off;		/* its length word in the arena */
};

/* A frame of the stacks' tree: its pc under its parent (0: the root). */
struct node {
	uint64_t pc;
	uint32_t parent;
	uint32_t id;		/* 0: free */
};

#define TRUNC_ROOT	UINT32_MAX	/* the parent of a cut stack's outermost */

/* The tables start small and double to their most (stripe.c's memory). */
struct tr_stab {
	struct slot *slot;
	uint32_t nslot, used;
	struct node *node;
	uint32_t nnode, nodes;
	uint32_t top;		/* arena words */
	uint64_t arena[ARENA_WORDS];	/* touched as used (MAP_NORESERVE) */
};

static uint32_t next_id;	/* the last id given */
static uint64_t self_lo, self_hi;	/* this library's code */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t me = (uint64_t)arg, lo, hi;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		lo = info->dlpi_addr + p->p_vaddr;
		hi = lo + p->p_memsz;
		if (me >= lo && me < hi) {
			self_lo = lo;
			self_hi = hi;
			return 1;
		}
	}
	return 0;
}

/* At load: where this library's code is, and libunwind's cache per thread. */
void tr_stackid_init(void)
{
	dl_iterate_phdr(find_self, (void *)(uint64_t)tr_stackid_init);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

/* A library was loaded: pcs may now be another's code. */
void tr_stackid_loaded(void)
{
	unw_flush_cache(unw_local_addr_space, 0, 0);
}

struct tr_stab *tr_stab_new(void)
{
	struct tr_stab *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return s == MAP_FAILED ? NULL : s;
}

/* Forget every stack (a forked child's file has none of them). */
void tr_stab_reset(struct tr_stab *s)
{
	if (!s)
		return;
	if (s->slot)
		munmap(s->slot, s->nslot * sizeof(*s->slot));
	if (s->node)
		munmap(s->node, s->nnode * sizeof(*s->node));
	s->slot = NULL;
	s->node = NULL;
	s->nslot = s->used = s->nnode = s->nodes = s->top = 0;
}

static inline uint32_t node_home(uint32_t parent, uint64_t pc)
{
	return ((pc ^ (uint64_t)parent << 40) * 0x9e3779b97f4a7c15ULL) >> 32;
}

/* s's slots doubled (or made); false: at their most, or no memory. */
static bool grow_slots(struct tr_stab *s)
{
	uint32_t n = s->nslot ? 2 * s->nslot : SLOTS_MIN, i, k;
	struct slot *t;

	if (n > SLOTS_MAX || !(t = tr_table_new(n, sizeof(*t))))
		return false;
	for (i = 0; i < s->nslot; i++) {
		if (!s->slot[i].id)
			continue;
		for (k = s->slot[i].hash & (n - 1); t[k].id; k = (k + 1) & (n - 1))
			;
		t[k] = s->slot[i];
	}
	if (s->slot)
		munmap(s->slot, s->nslot * sizeof(*t));
	s->slot = t;
	s->nslot = n;
	return true;
}

static bool grow_nodes(struct tr_stab *s)
{
	uint32_t n = s->nnode ? 2 * s->nnode : NODES_MIN, i, k;
	struct node *t;

	if (n > NODES_MAX || !(t = tr_table_new(n, sizeof(*t))))
		return false;
	for (i = 0; i < s->nnode; i++) {
		if (!s->node[i].id)
			continue;
		for (k = node_home(s->node[i].parent, s->node[i].pc) & (n - 1); t[k].id;
		     k = (k + 1) & (n - 1))
			;
		t[k] = s->node[i];
	}
	if (s->node)
		munmap(s->node, s->nnode * sizeof(*t));
	s->node = t;
	s->nnode = n;
	return true;
}

/*
 * Room for a new stack of n frames (at most n new nodes): the tables
 * grown as they fill, emptied when they cannot grow (the stacks used
 * after are defined again); false: no memory.
 */
static bool room(struct tr_stab *s, uint32_t n)
{
	if (s->top + n + 1 > ARENA_WORDS)
		tr_stab_reset(s);
	while (4 * (s->used + 1) > 3 * s->nslot)
		if (!grow_slots(s)) {
			if (!s->used)
				return false;
			tr_stab_reset(s);
		}
	while (4 * (s->nodes + n) > 3 * s->nnode)
		if (!grow_nodes(s)) {
			if (!s->nodes)
				return false;
			tr_stab_reset(s);
			return room(s, n);	/* the slots too */
		}
	return true;
}

static inline uint64_t hash_pcs(const uint64_t *pc, uint32_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= pc[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/*
 * The calling thread's stack from the interposed function out (its pc,
 * then its callers' return addresses) into pc; its depth, *trunc when
 * the walk stopped at EXP_TSTACK_MAX.  The walk starts in libunwind and
 * this library: their frames up to the outermost of this library's are
 * left out.
 */
static uint32_t walk(uint64_t *pc, bool *trunc)
{
	void *ip[WALK_MAX];
	int n = unw_backtrace(ip, WALK_MAX), i = 0, k;

	while (i < n && ((uint64_t)ip[i] < self_lo || (uint64_t)ip[i] >= self_hi))
		i++;
	while (i + 1 < n && (uint64_t)ip[i + 1] >= self_lo &&
	       (uint64_t)ip[i + 1] < self_hi)
		i++;
	if (i >= n)
		return 0;
	*trunc = n == WALK_MAX || n - i > EXP_TSTACK_MAX;
	for (k = 0; i < n && k < EXP_TSTACK_MAX; i++, k++)
		pc[k] = (uint64_t)ip[i];
	return k;
}

/* The slot of node (parent, pc) in s: its id, or 0 and a free slot. */
static struct node *node_slot(struct tr_stab *s, uint32_t parent, uint64_t pc)
{
	uint32_t i = node_home(parent, pc);
	struct node *nd;

	for (;; i++) {
		nd = &s->node[i & (s->nnode - 1)];
		if (!nd->id || (nd->pc == pc && nd->parent == parent))
			return nd;
	}
}

/*
 * A stack new to s (pc[0] its leaf, n frames): the nodes its path from
 * the root has in s, and a chain of the ones it does not, which get
 * ids in a row, from the root's side (heapsum.c writes it); its leaf's
 * id.
 */
static uint32_t new_stack(struct tr_stab *s, const uint64_t *pc, uint32_t n,
			  bool trunc)
{
	uint32_t parent = trunc ? TRUNC_ROOT : 0, first, k;
	uint64_t chain[EXP_TSTACK_MAX];
	struct exp_tchain c;
	struct node *nd;
	int i;

	for (i = n - 1; i >= 0; i--) {
		nd = node_slot(s, parent, pc[i]);
		if (!nd->id)
			break;
		parent = nd->id;
	}
	if (i < 0)
		return parent;	/* its path is known: a leaf of its own */
	first = __atomic_add_fetch(&next_id, i + 1, __ATOMIC_RELAXED) - i;
	c = (struct exp_tchain){ tr_thread_tid(), first,
				 parent == TRUNC_ROOT ? 0 : parent, i + 1,
				 parent == TRUNC_ROOT ? EXP_TSK_TRUNC : 0 };
	for (k = 0; i >= 0; i--, k++) {
		/* each pc as its difference from its parent's: small, deflated */
		chain[k] = pc[i] - ((uint32_t)i + 1 < n ? pc[i + 1] : 0);
		nd = node_slot(s, parent, pc[i]);
		nd->pc = pc[i];
		nd->parent = parent;
		nd->id = parent = first + k;
		s->nodes++;
	}
	tr_heapsum_chain(&c, chain);
	return parent;
}

/*
 * The id of the calling thread's stack in s (one frame of pc 0 if it
 * cannot be walked), 0 if s cannot hold it.  A stack new to s gets its
 * nodes' chain (new_stack()).
 */
uint32_t tr_stack_id(struct tr_stab *s, uint16_t event)
{
	uint64_t pc[EXP_TSTACK_MAX], h;
	struct slot *sl;
	uint32_t n, i, id;
	bool trunc = false;

	if (!s)
		return 0;
	n = walk(pc, &trunc);
	if (!n) {	/* no walk: a stack of its own, one unknown frame */
		pc[0] = 0;
		n = 1;
	}
	h = (hash_pcs(pc, n) ^ event) | trunc;
	for (i = h; s->nslot; i++) {
		sl = &s->slot[i & (s->nslot - 1)];
		if (!sl->id)
			break;
		if (sl->hash == h && s->arena[sl->off] == (n | (uint64_t)event << 32) &&
		    !memcmp(&s->arena[sl->off + 1], pc, 8 * n))
			return sl->id;
	}
	if (!room(s, n))
		return 0;
	for (i = h; s->slot[i & (s->nslot - 1)].id; i++)
		;
	sl = &s->slot[i & (s->nslot - 1)];
	id = new_stack(s, pc, n, trunc);
	if (!id)
		return 0;
	sl->hash = h;
	sl->id = id;
	sl->off = s->top;
	s->arena[s->top] = n | (uint64_t)event << 32;
	memcpy(&s->arena[s->top + 1], pc, 8 * n);
	s->top += n + 1;
	s->used++;
	return id;
}
