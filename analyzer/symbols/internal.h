/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to symbols/: the libdwfl callbacks of the analyzer's sessions
 * (the load objects', offline, obj.c; the unwinder's, a process,
 * unwind.c), with one search path for separate debug files (dwflcb.c);
 * one sample being unwound, and the per-pc cache of CFI steps (unwind.c,
 * unwcache.c).
 */
#ifndef LWPROF_ANALYZER_SYMBOLS_INTERNAL_H
#define LWPROF_ANALYZER_SYMBOLS_INTERNAL_H

#include <elfutils/libdwfl.h>

#include "analyzer/symbols/symbols.h"

/* NULL: out of memory */
const Dwfl_Callbacks *an_dwfl_offline_cb(struct an *an);
const Dwfl_Callbacks *an_dwfl_proc_cb(struct an *an);

#define UNW_MAX 256

struct unw {
	struct an *an;
	struct an_as *as;
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t sp, stack_size;
	uint64_t ips[UNW_MAX + UINT16_MAX];	/* then the record's kips */
	uint32_t n;
	pid_t tid;
	bool given;
	bool cut;		/* a read past the copy's end failed */
	bool copy_full;		/* the copy is as long as asked: more above */
	struct an_htab sessions;	/* address spaces by their mappings */
};

/* The sample's memory: the stack copy, else the mapped files. */
bool unw_read(struct unw *u, uint64_t addr, uint64_t *val);

struct an_ucache;

struct an_ucache *an_ucache_new(void);
void an_ucache_free(struct an_ucache *c);
/*
 * Unwind u's sample with the cached steps (made on first use from the
 * CFI libdwfl would use).  0: u->ips/u->n hold what libdwfl's own walk
 * gives; 1: a step the cache cannot express (no CFI, an expression rule,
 * a signal frame): unwind with libdwfl instead; -ENOMEM.
 */
int an_ucache_walk(struct an_ucache *c, Dwfl *d, uint32_t as, struct unw *u);
/* steps made, and walks given up to libdwfl */
void an_ucache_counts(struct an_ucache *c, unsigned long *steps,
		      unsigned long *lookups);

#endif
