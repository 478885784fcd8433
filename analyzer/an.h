/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwprof print: the analyzer's shared types.  An experiment directory
 * (docs/experiment-format.md) is read into one struct an: threads, address
 * spaces and their mappings, load objects, functions, pcs, interned call
 * stacks and a compact sample table.  Views aggregate the samples that pass
 * the filter per stack, then spread the sums over functions, lines, pcs and
 * objects (analyzer/compute.c).  Every function returns 0 or a negative
 * errno; on failure an->run->err holds the one-line message.
 */
#ifndef LWPROF_AN_H
#define LWPROF_AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lwprof.h"
#include "lwprof_record.h"
#include "libexp/trace.h"
#include "metric.h"

#define AN_ERRLEN 512

/* ---- small containers (util.c) ---- */

/* A growable array of fixed-size elements. */
struct an_vec {
	void *p;
	size_t n, cap, esz;
};

int an_vec_grow(struct an_vec *v, size_t need);
void *an_vec_push(struct an_vec *v);	/* zeroed new element or NULL */
/* qsort() the elements; an empty vector's p is NULL, which qsort() may not get. */
void an_vec_sort(struct an_vec *v, int (*cmp)(const void *, const void *));
#define AN_VEC(v, type, i) (((type *)(v).p)[i])

/*
 * An open-addressing hash table of ids.  The table stores (hash, id); the
 * caller compares keys through eq(ctx, id, key).
 */
struct an_hslot {
	uint64_t hash;		/* 0: empty */
	uint32_t id;
	uint32_t aux;		/* the owner's: see an->raws_t */
};

struct an_htab {
	struct an_hslot *s;
	size_t n, cap;		/* cap is a power of two */
};

typedef bool (*an_eq_fn)(void *ctx, uint32_t id, const void *key);
/* id of key, or UINT32_MAX */
uint32_t an_htab_find(struct an_htab *h, uint64_t hash, an_eq_fn eq,
		      void *ctx, const void *key);
int an_htab_add_aux(struct an_htab *h, uint64_t hash, uint32_t id,
		    uint32_t aux);
static inline int an_htab_add(struct an_htab *h, uint64_t hash, uint32_t id)
{
	return an_htab_add_aux(h, hash, id, 0);
}
void an_htab_free(struct an_htab *h);

uint64_t an_hash(const void *p, size_t len, uint64_t seed);
static inline uint64_t an_mix(uint64_t h, uint64_t w)
{
	h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* Interned strings: an index into an array of NUL-terminated copies. */
struct an_strtab {
	struct an_vec s;	/* char * */
	struct an_htab h;
};

uint32_t an_str_intern(struct an_strtab *t, const char *s);	/* or UINT32_MAX */
void an_str_free(struct an_strtab *t);
static inline const char *an_str(struct an_strtab *t, uint32_t i)
{
	return AN_VEC(t->s, char *, i);
}

/* ---- the experiment as written ---- */

struct an_counter {
	char name[64];
	uint64_t interval;
	uint32_t type;
	uint64_t config;
};

struct an_usage {
	uint32_t pid, tid, ppid, flags;
	uint64_t start_ns, end_ns;
	uint64_t ms[LWPROF_MS_COUNT];
	uint64_t vcsw, ivcsw, minflt, majflt, syscalls, signals;
	char comm[64];
};

/* A global sample packet (samples.rec, format 1.4; libexp/format.h). */
#define AN_GS_NSTAT 12	/* exp_rec_gsample's counts, minflt to stime */
struct an_gs {
	uint64_t time;
	uint32_t kind, flags;
	char *name;		/* or NULL */
	uint64_t paused_ns;
	uint64_t stat[AN_GS_NSTAT];
};
/* A sample: the run between two sample points (samples.c). */
struct an_smp {
	uint32_t exp, num;	/* num from 1 within its experiment */
	uint64_t start, end;
	int32_t gs_begin, gs_end;	/* its packets, or -1 (no packets) */
};
struct an_archive {
	char buildid[64];	/* "-" when none */
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	char *file;		/* full path of the copy */
	char *orig;		/* the mapped file's path */
};

struct an_exp {
	char *dir;
	char *name;		/* as given on the command line */
	int fmt_major, fmt_minor;
	char *command, *mode, *host, *kernel, *arch, *start_time, *end_time;
	char *abi, *module_version, *exit;
	char *stopped;		/* 1.4: why recording stopped early */
	char *flight;		/* 1.4: the flight recorder's window */
	uint32_t target, cpus, cpus_possible;
	double cpu_mhz;
	uint64_t start_ns, end_ns, clock_interval_ns;
	struct an_vec counters;	/* struct an_counter */
	uint32_t max_depth, stack_bytes, kernel_stacks;
	uint32_t kallsyms_hidden;	/* the recorder saw only zero addresses */
	uint64_t records, lost, lost_read;
	struct an_vec warnings;	/* char * */
	char *backend;		/* log.txt's backend: "module", "perf" (NULL: module) */
	struct an_vec metric_notes;	/* char *: "NAME STATUS: why" */
	uint32_t ms_absent;	/* bit LWPROF_MS_*: the backend cannot give it */
	struct an_vec usage;	/* struct an_usage */
	struct an_vec archives;	/* struct an_archive */
	uint64_t nsamples, nrecords;
	struct an_vec gs;	/* struct an_gs, by time */
	struct an_vec pauses;	/* uint64_t [from, to) pairs, by time */
	uint64_t paused_ns;
	uint64_t dropped_paused;	/* packets wholly in paused time */
	struct an_vec trace_files;	/* uint32_t string ids: trace.PID.rec paths */
	uint64_t sync_ns;		/* log.txt's sync_threshold_ns, or UINT64_MAX */
	char *trace, *sync_calibration;	/* log.txt's: what was traced, how */
	uint32_t trace_stack_bytes;
	uint64_t ntrace_files, trace_calls;	/* as collect counted them */
	struct exp_untraced_list untraced;	/* 1.5: programs not traced */
	uint32_t revoked;	/* 1.6: the session was ended by another (why) */
	uint64_t revoked_ns;
};

/*
 * Record files are numbered (an_unw_ref.file): cpu.N.rec is N, the i-th
 * trace file AN_FILE_TRACE + i.
 */
#define AN_FILE_TRACE	0x40000000u

/*
 * A traced call (trace.c, libexp/trace.h): the side table the trace
 * views read besides the sample its metrics went into.
 */
struct an_tev {
	uint32_t sample;	/* its sample, or UINT32_MAX (a free has none) */
	uint32_t exp, pid, tid;
	uint16_t event;
	int32_t fd;
	uint32_t file;		/* string id of the descriptor's file, or UINT32_MAX */
	uint64_t t0, t1, addr, addr2, bytes;
	int64_t ret;
	uint64_t freed;		/* an allocation: when freed; 0 never (a leak) */
	uint32_t unw;		/* its an_unw_ref in ld->deferred, or UINT32_MAX */
	uint32_t ms;		/* its microstates in an->tev_ms, or UINT32_MAX */
};

/* A descriptor's name from a trace file record. */
struct an_tname {
	uint32_t exp, pid;
	int32_t fd;
	uint64_t time;
	uint32_t name;		/* string id */
};

/* ---- what the analyzer builds ---- */

struct an_thread {
	uint32_t exp, pid, tid, ppid;
	char comm[16];
	uint64_t comm_ns, ppid_ns;	/* the times of the records they came from */
	bool has_comm;
	uint64_t first_ns, last_ns;
	uint64_t nsamples;
	uint32_t last_clock;	/* sample index of the latest clock packet */
	uint64_t last_clock_ns;
	bool has_last;
	uint32_t stop_reason;	/* 1.6: LWPROF_STOP_*: not recorded from stop_ns */
	uint64_t stop_ns;
};

/* One mapping of an address space. */
struct an_map {
	uint64_t start, end, pgoff, time_ns;
	uint32_t obj;		/* an_obj index */
};

/*
 * An address space: one process of one experiment, one exec generation,
 * and when a mapping was replaced (remap.c), one epoch between such
 * replacements.
 */
struct an_as {
	uint32_t exp, pid, gen;
	struct an_vec maps;	/* struct an_map, sorted by start once done */
	void *dwfl;		/* for DWARF unwinding (unwind.c) */
	bool dwfl_shared;	/* another space's, with the same mappings */
	bool sorted;
};

struct an_sym {
	uint64_t addr, size;	/* object vaddr */
	uint32_t func;
};

/* A load object: one file (or a pseudo one). */
struct an_obj {
	char *name;		/* basename */
	char *path;		/* original path */
	char *file;		/* the file read: archive copy or path */
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	int num;		/* NNN of addresses, from 1 */
	bool pseudo, opened, failed;
	bool kernel;		/* [kernel.kallsyms] or a module's (kernel.c) */
	int fd;
	void *elf;		/* Elf * */
	void *dwfl;		/* Dwfl * (offline, one module) */
	void *mod;		/* Dwfl_Module * */
	uint64_t mod_bias;	/* module address = vaddr + mod_bias */
	struct an_vec phdrs;	/* struct an_seg */
	struct an_vec syms;	/* struct an_sym, sorted */
	struct an_htab fnames;	/* base name -> func, for clones */
	uint32_t unknown_func;	/* <static>@... fallback per object, lazily */
};

struct an_seg {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;
};

#define AN_F_PSEUDO 0x1

struct an_func {
	uint32_t obj;
	uint32_t flags;
	uint64_t addr, size;	/* vaddr in the object */
	char *name;		/* short (display) */
	char *lname;		/* long: full demangled */
	uint32_t file;		/* source file string id, or UINT32_MAX */
	uint32_t line;		/* first line */
};

struct an_line {
	uint32_t func, file, line;
};

struct an_pc {
	uint32_t obj, func, line;	/* line: an_line index or UINT32_MAX */
	uint32_t ifunc;			/* innermost inlined function or func */
	uint32_t ret;			/* 1: a return address, 2: pseudo */
	uint64_t addr;			/* vaddr in obj (display address) */
	/*
	 * -inline on: a frame in inlined code is followed (ids pc + 1 ..
	 * pc + inl_n) by one pc per inlined call, outermost first; such a
	 * pc has inl = its level (1..), ifunc = the inlined function
	 */
	uint32_t inl, inl_n;
};

/* One inlined call at a pc (src.c): the function, and where it was called. */
struct an_inl {
	uint32_t func;
	uint32_t file;		/* string id of the call's file, or UINT32_MAX */
	uint32_t line;		/* the call's line */
};

#define AN_INL_MAX 16

/* A call stack: a node of the pc trie (root side parent). */
struct an_node {
	uint32_t parent;	/* UINT32_MAX at the root frame */
	uint32_t pc;
	uint32_t depth;
};

/* Raw stacks before resolution: per address space, the ips. */
struct an_raw {
	uint32_t as;
	uint32_t n;
	uint64_t off;		/* of the ips in an->rawips */
	uint32_t flags;		/* AN_RAW_* */
	uint32_t node;		/* resolved: an_node index or UINT32_MAX */
};

#define AN_RAW_TRUNC	0x1
#define AN_RAW_NOPROG	0x2	/* collector_not_program_related */
#define AN_RAW_UNKNOWN	0x4	/* no stack at all */
#define AN_RAW_IDLE	0x8	/* a CPU's idle packet: under <IDLE> */
#define AN_RAW_HARDIRQ	0x10	/* interrupt time: <HARDIRQ>, then kips */
#define AN_RAW_SOFTIRQ	0x20	/* ... <SOFTIRQ> */
#define AN_RAW_KBLOCK	0x40	/* kips from __schedule: all return addresses */
/* flags >> AN_RAW_KSHIFT: the last that many ips are kernel frames (kips,
 * leaf first), after the user ones */
#define AN_RAW_KSHIFT	16


/*
 * The value layouts (values.c): layout i's base count is items[first[i]],
 * its base ids follow, increasing.
 */
struct an_layouts {
	struct an_vec first;	/* uint32_t */
	struct an_vec items;	/* uint32_t */
};

/*
 * The sample decoder's bases (decode.c), made once, and the layouts of
 * the clock samples by which of their fields have values (bit i:
 * microstate i, AN_SDEC_WALL: the wall time, AN_SDEC_IDLE: idle time),
 * made on first use.
 */
#define AN_SDEC_WALL	LWPROF_MS_COUNT		/* bit of the wall time */
#define AN_SDEC_IDLE	(LWPROF_MS_COUNT + 1)	/* bit of the idle time */
#define AN_SDEC_CLOCK	(1u << (LWPROF_MS_COUNT + 2))
struct an_sdec {
	uint32_t ms[LWPROF_MS_COUNT], wall, idle;
	uint32_t clock[AN_SDEC_CLOCK];	/* UINT32_MAX: not made yet */
	struct an_vec ctr;	/* uint32_t per counter of log.txt: its base */
	struct an_vec ctr_lay;	/* uint32_t per counter: its layout */
	uint32_t none;		/* the layout of no value */
	uint32_t tlay[7];	/* trace.c: the traced calls' layouts */
};

/*
 * A packet with user and kernel frames and User CPU is two samples
 * (exp_rec.c): its User CPU on the user stack alone (USER), then the rest
 * on the whole stack (CONT: no packet of its own in the counts).
 */
#define AN_PART_USER	0x1
#define AN_PART_CONT	0x2

/* The compact sample table (struct of arrays). */
struct an_samples {
	uint64_t *time;
	uint32_t *stack;	/* an_raw index while loading, then node */
	uint32_t *thr;
	uint16_t *cpu;
	uint32_t *layout;	/* its value layout: which bases it has values for */
	uint8_t *part;		/* AN_PART_*: a packet split in two (exp_rec.c) */
	uint64_t *vals;		/* the layout's count of values per sample, in order */
	size_t n, cap, nvals, vcap;
};

/*
 * The run context: what one run of lwprof print reports besides the
 * views (the caller's: an_init's argument).
 */
struct an_run {
	char err[AN_ERRLEN];	/* the last error's one-line message */
	uint64_t nwarn;		/* warnings written to standard error */
	unsigned long nruns;	/* print's commands run */
	/* unwinding (unwind.c): samples unwound, not, from the cache; the
	 * per-pc CFI cache (unwcache.c): steps made, frames stepped,
	 * samples given to libdwfl, and with LWPROF_UNWIND=check the
	 * samples whose cached and libdwfl frames differ */
	unsigned long unwind_ok, unwind_fail, unwind_cached;
	unsigned long unwind_steps, unwind_lookups, unwind_libdwfl;
	unsigned long unwind_differ;
	bool unwind_check;
	double unwind_secs;	/* CPU time of an_unwind_all */
};

/*
 * Load-time scratch: what reading the records and an_finish() need and
 * the views do not; an_finish() frees it (an->ld is NULL after).
 */
struct an_load {
	struct an_htab thr_h;	/* (exp, pid, tid) -> thread */
	struct an_htab as_h;	/* (exp, pid, gen) -> address space */
	struct an_htab pcs_h, nodes_h;
	struct an_vec raws;	/* struct an_raw */
	/*
	 * The raw stacks' table: a slot's aux is the word offset of the
	 * stack's entry in rawips (its header, then the ips; the pool stays
	 * under 32 GiB), so a lookup touches the slot and one run of the
	 * pool, and both can be prefetched ahead of the sample needing them.
	 */
	struct an_htab raws_t;
	struct an_vec rawips;	/* uint64_t: per raw stack 2 header words, ips */
	struct an_vec deferred;	/* struct an_unw_ref: samples to unwind */
	struct an_vec exits;	/* uint32_t sample indexes of EXIT packets */
	struct an_vec tasks;	/* struct an_task_ev: exec and fork */
	struct an_sd *sd;	/* exp_stack.c: delta stack copies */
	struct an_sdec sdec;	/* decode.c */
	struct an_htab lay_h;	/* values.c: layout interning */
};

/*
 * The loaded model: the experiments, what was built from them, and the
 * metrics; views read it (and add lines, pcs' objects' symbols lazily).
 */
struct an {
	struct an_run *run;	/* the caller's run context */
	struct an_load *ld;	/* while loading, else NULL */
	struct an_vec exps;	/* struct an_exp */
	struct an_vec threads;	/* struct an_thread */
	struct an_vec as;	/* struct an_as */
	struct an_vec objs;	/* struct an_obj */
	struct an_vec funcs;	/* struct an_func */
	struct an_vec lines;	/* struct an_line */
	struct an_htab lines_h;
	struct an_vec pcs;	/* struct an_pc */
	struct an_vec nodes;	/* struct an_node */
	struct an_vec obj_keys;	/* char *, per object */
	struct an_htab obj_h;
	struct an_samples s;
	struct an_vec tev;	/* struct an_tev: the traced calls (trace.c) */
	struct an_vec tev_ms;	/* uint64_t[LWPROF_MS_COUNT]: their microstates */
	struct an_vec tnames;	/* struct an_tname */
	struct an_strtab strs;
	uint32_t f_total, f_unknown, f_trunc, f_noprog;	/* pseudo funcs */
	/* <IDLE>, <HARDIRQ>, <SOFTIRQ>: made on first use, or UINT32_MAX */
	uint32_t f_idle, f_hardirq, f_softirq;
	uint32_t o_unknown;
	uint32_t o_kernel;	/* [kernel.kallsyms], made on first use */
	struct an_vec ksyms;	/* kernel.c: struct ksym, sorted */
	struct an_vec kmods;	/* kernel.c: the core kernel, then modules */
	const char *krelease;	/* the kernel kallsyms is of (uname -r), or NULL */
	bool kdebug_walked;	/* modules' debug images looked for (kernel.c) */
	struct an_vec bases;	/* struct an_base: the base values' kinds */
	struct an_layouts lay;
	struct an_vec metrics;	/* struct an_metric: the registry's, instantiated */
	uint32_t nctr;		/* counters known */
	bool inline_funcs;	/* charge inlined code to the inlined function */
	uint64_t tmin, tmax;	/* over all experiments */
	struct an_dwfl_cbs *dwfl_cbs;	/* dwflcb.c: libdwfl's callbacks */
	/* samples.c, made on first use: every experiment's samples, the
	 * first of each experiment (exps.n + 1 entries), each sample's */
	struct an_vec smp;	/* struct an_smp */
	uint32_t *smp_first;
	uint32_t *smp_of;	/* per row of the sample table */
};

/* The function a frame's pc is charged to (-inline on: the inlined one). */
static inline uint32_t an_pc_func(const struct an *an, const struct an_pc *p)
{
	return an->inline_funcs ? p->ifunc : p->func;
}

/* Layout id's base count; its base ids follow it. */
static inline const uint32_t *an_layout(const struct an *an, uint32_t id)
{
	return (const uint32_t *)an->lay.items.p +
	       ((const uint32_t *)an->lay.first.p)[id];
}

/* Task events that shape address spaces: exec (new), fork (inherit). */
struct an_task_ev {
	uint32_t exp, pid, ppid, event;
	uint64_t time;
};

struct an_unw_ref {
	uint32_t sample;
	uint32_t exp;
	uint32_t file;		/* cpu number */
	uint64_t off;		/* of the record in its file */
	uint32_t as;
	uint32_t flags;
};

/* exp_stack.c: stack copies, whole or delta */
struct an_sd_scan {
	struct an_vec bases;	/* per tid, in the file being read */
	struct an_htab h;
	uint64_t missing;	/* deltas without their base */
};

int an_sd_sample(struct an *an, struct an_sd_scan *sc, uint32_t exp,
		 uint32_t file, uint64_t off, const struct lwprof_rec_sample *r,
		 const uint8_t *stack, uint32_t max_size, const char **msg,
		 uint64_t *at);
/*
 * A trace call record's stack (t->st, format 1.5) in the scan: 1, or 0
 * if it is a delta without its base (counted), or -ENOMEM.
 */
struct exp_tcall;
int an_sd_tcall(struct an *an, struct an_sd_scan *sc, uint32_t exp,
		uint32_t file, uint64_t off, const struct exp_tcall *t);
void an_sd_scan_end(struct an *an, struct an_sd_scan *sc, const char *path);
/* The record with the stack copy of h: its sample, or a trace call record. */
const uint8_t *an_stack_rec(const struct lwprof_rec *h);
/*
 * The sample record rec (of r's file) whole, as the module would have
 * written it without deltas: rec itself when it has no delta, else a
 * malloc'd rebuilt record (*owned, for the caller to free); NULL if it
 * cannot be rebuilt.  A trace call record (an_stack_rec()) becomes such
 * a sample: uapi's registers, its whole copy.  bases: a reader of the
 * same file (not the one rec came from) for the records its delta goes
 * back to.
 */
struct exp_reader;
const uint8_t *an_rec_whole(struct an *an, const struct an_unw_ref *r,
			    struct exp_reader *bases, const uint8_t *rec,
			    uint8_t **owned);
void an_sd_free(struct an *an);

int an_errf(struct an *an, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void an_warn(struct an *an, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* exp.c: loading */
int an_init(struct an *an, struct an_run *run);
void an_free(struct an *an);
int an_load(struct an *an, const char *dir);
int an_finish(struct an *an);	/* after the last an_load */
uint32_t an_thread_get(struct an *an, uint32_t exp, uint32_t pid,
		       uint32_t tid);
uint32_t an_as_get(struct an *an, uint32_t exp, uint32_t pid, uint32_t gen);

/* exp_log.c: the text files */
int an_read_log(struct an *an, struct an_exp *e);
int an_read_usage(struct an *an, struct an_exp *e);
int an_read_index(struct an *an, struct an_exp *e);

/* exp_rec.c: one cpu.N.rec file */
int an_read_rec(struct an *an, uint32_t exp, uint32_t cpu, const char *path);
/*
 * samples.c: samples.rec's packets into e->gs and its paused windows;
 * the unpaused part of [t0, t1]; the samples, made once (0 or -ENOMEM).
 */
int an_read_gsamples(struct an *an, struct an_exp *e, const char *path);
uint64_t an_unpaused(const struct an_exp *e, uint64_t t0, uint64_t t1);
int an_smp_build(struct an *an);
void an_smp_free(struct an *an);
int an_sample_add(struct an *an, uint64_t t, uint32_t raw, uint32_t thr,
		  uint16_t cpu, uint32_t layout, const uint64_t *vals,
		  uint32_t nv, uint8_t part);
uint32_t an_raw_intern(struct an *an, uint32_t as, const uint64_t *ips,
		       uint32_t n, uint32_t flags);

/* rawstack.c */
uint64_t an_raw_hash(uint32_t as, const uint64_t *ips, uint32_t n,
		     uint32_t flags);
void an_raw_prefetch(struct an *an, uint64_t hash, int stage);
uint32_t an_raw_intern_h(struct an *an, uint64_t hash, uint32_t as,
			 const uint64_t *ips, uint32_t n, uint32_t flags);
/* raw's ips and flags interned in address space as (or UINT32_MAX) */
uint32_t an_raw_rehome(struct an *an, uint32_t raw, uint32_t as);
uint32_t an_raw_user(struct an *an, uint32_t raw);

/* remap.c: a sample resolved against the mappings of its time */
int an_split_remaps(struct an *an);


/* obj.c: load objects and functions */
uint32_t an_obj_kernel(struct an *an, const char *name);
uint32_t an_obj_get(struct an *an, uint32_t exp, const char *path,
		    uint32_t maj, uint32_t min, uint64_t ino, bool anon);
int an_obj_open(struct an *an, uint32_t obj);
int an_obj_syms(struct an *an, uint32_t obj);	/* syms.c */
uint32_t an_obj_func(struct an *an, uint32_t obj, uint64_t vaddr);
int an_obj_vaddr(struct an *an, uint32_t obj, uint64_t off, uint64_t *vaddr);
uint32_t an_func_pseudo(struct an *an, const char *name);
uint32_t an_func_pseudo_own(struct an *an, uint32_t *f, const char *name);
void an_obj_free(struct an_obj *o);
int an_objs_init(struct an *an);
int an_objs_trunc(struct an *an);
void an_objs_free(struct an *an);
const char *an_func_name(struct an *an, uint32_t f, bool name_long);
uint32_t an_obj_fname(struct an *an, uint32_t obj, const char *full,
		      uint64_t addr, uint64_t size);

/* src.c: lines */
uint32_t an_pc_line(struct an *an, uint32_t obj, uint64_t vaddr,
		    uint32_t func, uint32_t *ifunc);
const char *an_line_file(struct an *an, uint32_t line);
int an_pc_inlines(struct an *an, uint32_t obj, uint64_t vaddr,
		  struct an_inl *out);
uint32_t an_inl_line(struct an *an, uint32_t func, const struct an_inl *call);
int an_func_src(struct an *an, uint32_t f, const char **file, int *line);

/* resolve.c: stacks */
int an_resolve(struct an *an);
uint32_t an_pc_intern(struct an *an, uint32_t obj, uint64_t vaddr, bool ret);

/* kernel.c: kernel frames */
uint32_t an_kernel_obj(struct an *an);
uint32_t an_kernel_func(struct an *an, uint64_t ip, bool ret);
uint32_t an_kernel_pc(struct an *an, uint64_t ip, bool ret);
uint32_t an_kernel_sched(struct an *an, const uint64_t *kips, uint32_t n);
void an_kernel_free(struct an *an);
int an_kernel_dwaddr(struct an *an, uint32_t obj, uint64_t look,
		     uint64_t *daddr);
int an_kdebug_vmlinux(struct an *an, uint32_t obj, const char *release);
int an_kdebug_module(struct an *an, uint32_t obj, const char *path);
void an_kdebug_modules(struct an *an, const char *release,
		       void (*found)(struct an *, const char *, const char *));
int an_kdebug_sym(struct an *an, uint32_t obj, const char *name,
		  uint64_t *addr);
void an_kdebug_close(struct an *an, uint32_t obj);

/* trace.c: traced calls (any record type: libexp/trace.h's view) */
struct exp_rec_trace_file;
int an_trace_init(struct an *an);
/* a traced call's values for its sample: their count (0: no sample) */
int an_trace_decode(struct an *an, const struct exp_tcall *t,
		    uint32_t *layout, uint64_t *vals);
int an_trace_add(struct an *an, uint32_t exp, const struct exp_tcall *t,
		 uint32_t sample, uint32_t unw);
int an_trace_file(struct an *an, uint32_t exp, const struct exp_rec_trace_file *f);
/* the microstates over a traced call (LWPROF_MS_COUNT ns), or NULL */
static inline const uint64_t *an_tev_ms(const struct an *an,
					const struct an_tev *t)
{
	return t->ms == UINT32_MAX ? NULL :
		(const uint64_t *)an->tev_ms.p + (size_t)LWPROF_MS_COUNT * t->ms;
}
/* an experiment's files are read: leaks, descriptors' names */
int an_trace_exp_done(struct an *an, uint32_t exp);
void an_trace_release(struct an *an);

/* unwind.c */
int an_unwind_all(struct an *an);
void an_unwind_free(struct an *an);


#endif
