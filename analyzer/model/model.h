/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyzer's model, the bottom layer of lwprof print (docs/design/
 * analyzer.md): what experiments are read into, one struct an of threads,
 * address spaces and their mappings, load objects, functions, pcs,
 * interned call stacks and a compact sample table; the containers it is
 * made of; the metrics as data (base values, value layouts, the
 * registry).  load/ fills it, symbols/ names its addresses, report/ and
 * export/ read it.  Every function returns 0 or a negative errno; on
 * failure an->run->err holds the one-line message.
 */
#ifndef LWPROF_ANALYZER_MODEL_H
#define LWPROF_ANALYZER_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lwprof.h"
#include "lwprof_record.h"
#include "libexp/exp.h"
#include "libexp/trace.h"

#define AN_ERRLEN 512

/* ---- small containers (containers.c) ---- */

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
int an_htab_add(struct an_htab *h, uint64_t hash, uint32_t id);	/* aux 0 */
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

/*
 * ---- metrics as data (docs/design/analyzer.md, "Metrics") ----
 *
 * A record decoder (load/decode.c) turns each record into base values:
 * (base id, value) pairs, a base being one kind of quantity a record
 * carries (the time of one microstate, the wall time, the events of one
 * counter).  A sample keeps the id of its "value layout", the interned
 * list of the bases it has values for, and those values in that order.
 * The registry (metric.c) lists the metrics: each its er_print keyword,
 * title, unit, how it is shown and the bases that feed it (their sum); a
 * family row makes one metric per counter.  A new kind of data adds base
 * kinds, registry rows and a decoder; the views only read the metrics'
 * list.
 */
/* What a base value is: the kind of record field, and which one. */
enum an_base_kind {
	AN_B_MSTATE,	/* idx: LWPROF_MS_* (ns) */
	AN_B_WALL,	/* the process's wall time (ns), on its main thread */
	AN_B_COUNTER,	/* idx: the counter of log.txt (events) */
	AN_B_IDLE,	/* a CPU's idle time (ns): SYSTEM of LWPROF_RS_IDLE packets */
	AN_B_TRACE,	/* idx: enum an_trace_base, the traced calls' */
	AN_B_OMP,	/* idx: enum an_omp_base (ns; load/omp.c) */
};

/*
 * OpenMP's bases: work, wait, the others' wait at a barrier a thread
 * came to last (its blame), and the wait in each microstate.
 */
enum an_omp_base {
	AN_OMP_B_WORK, AN_OMP_B_WAIT, AN_OMP_B_BLAME,
	AN_OMP_B_MS,	/* + LWPROF_MS_*: a wait's time in it (the module's) */
	AN_OMP_B_COUNT = AN_OMP_B_MS + LWPROF_MS_COUNT
};

/* The traced calls' bases (load/trace.c), in this order (layouts list them so). */
enum an_trace_base {
	AN_T_ALLOC_CNT, AN_T_ALLOC_BYTES, AN_T_LEAK_CNT, AN_T_LEAK_BYTES,
	AN_T_SYNC_NS, AN_T_SYNC_CNT,
	AN_T_READ_BYTES, AN_T_READ_CNT, AN_T_READ_NS,
	AN_T_WRITE_BYTES, AN_T_WRITE_CNT, AN_T_WRITE_NS,
	AN_T_OTHER_CNT, AN_T_OTHER_NS, AN_T_ERR_CNT, AN_T_ERR_NS,
	/* MPI calls (load/mpi.c): time, point-to-point sends started and
	 * receives completed, their bytes, the other calls; Late Sender and
	 * Wait at Barrier, found once every rank is read */
	AN_T_MPI_NS, AN_T_MPI_SEND, AN_T_MPI_SBYTES, AN_T_MPI_RECV,
	AN_T_MPI_RBYTES, AN_T_MPI_OTHER, AN_T_MPI_LATE, AN_T_MPI_BARWAIT,
	AN_T_MPI_NXNWAIT,
	AN_T_COUNT
};

struct an_base {
	uint32_t kind, idx;
};

enum an_unit {
	AN_U_TIME,	/* nanoseconds, shown as seconds */
	AN_U_COUNT,	/* events; cycles shown as time at a known clock rate */
	AN_U_BYTES,
};

/* Metric flags: where the views use a metric without being told. */
#define AN_MF_STATE	0x1	/* one microstate: a default column when it has data */
#define AN_MF_THREAD	0x2	/* part of the thread time: -overview shows its share */
#define AN_MF_ALWAYS	0x4	/* a default column always (the counters) */
#define AN_MF_DATA	0x8	/* listed only where a sample has its bases (idle) */
#define AN_MF_TRACE	0x10	/* a traced call's: a default column when it has data */

/* A metric of the experiments loaded (an->metrics), from a registry row. */
struct an_metric {
	char kw[64];		/* er_print's keyword */
	char title[96];		/* "User CPU Time", "cycles Events" */
	enum an_unit unit;
	bool as_time;		/* shown in seconds */
	double div;		/* shown value = sum of the bases / div */
	uint32_t flags;		/* AN_MF_* */
	uint32_t *bases;	/* the bases it sums */
	uint32_t nbases;
};

/* The first metric of the registry: the total thread time. */
#define AN_M_TOTAL 0

/* The static metrics (report/'s columns); the others index an->metrics. */
#define AN_M_NAME	(INT_MAX - 2)
#define AN_M_SIZE	(INT_MAX - 1)
#define AN_M_ADDRESS	INT_MAX

/* ---- the experiment as written (libexp/exp.h) ---- */

/* A global sample packet (samples.rec, format 1.4; libexp/format.h). */
#define AN_GS_NSTAT 12	/* exp_rec_gsample's counts, minflt to stime */
struct an_gs {
	uint64_t time;
	uint32_t kind, flags;
	char *name;		/* or NULL */
	uint64_t paused_ns;
	uint64_t stat[AN_GS_NSTAT];
};
/*
 * A span: the run between two sample points (spans.c), what er_print
 * calls a sample (-sample_list, -sample_select).
 */
struct an_span {
	uint32_t exp, num;	/* num from 1 within its experiment */
	uint64_t start, end;
	int32_t gs_begin, gs_end;	/* its packets, or -1 (no packets) */
};
/*
 * An experiment loaded: libexp's, opened whole (its log, usage rows,
 * archives, record files), and what the analyzer counted reading it.
 */
struct an_exp {
	struct exp *x;
	const struct exp_info *log;	/* exp_info(x) */
	const struct exp_usage *usage;	/* exp_usage(x) */
	size_t nusage;
	char *name;		/* as given on the command line */
	uint64_t lost_read;	/* LOST records' counts */
	uint64_t nsamples, nrecords;
	uint64_t ncalls;	/* traced calls with a stack (read as samples) */
	uint64_t ncounted;	/* more heap calls a slice's counts stand for */
	/* the heap's counts (format 1.10): the peak in use its process said,
	 * when, and whether more than one process said one */
	uint64_t heap_peak, heap_peak_ns;
	uint32_t heap_pid;
	bool heap_multi;
	struct an_vec gs;	/* struct an_gs, by time */
	struct an_vec pauses;	/* uint64_t [from, to) pairs, by time */
	uint64_t paused_ns;
	uint64_t dropped_paused;	/* packets wholly in paused time */
	struct exp_untraced_list untraced;	/* 1.5: programs not traced */
	uint32_t revoked;	/* 1.6: the session was ended by another (why) */
	uint64_t revoked_ns;
	int32_t rank;		/* its MPI rank (log.txt, its MPI records), or -1 */
};

/*
 * A traced call (load/trace.c, libexp/trace.h): the side table the trace
 * views read besides the sample its metrics went into.
 */
struct an_tev {
	uint32_t sample;	/* its sample, or UINT32_MAX (a free has none) */
	uint32_t exp, pid, tid;
	uint16_t event;
	uint8_t kind;		/* AN_TEV_* */
	int32_t fd;
	uint32_t file;		/* string id of the descriptor's file, or UINT32_MAX */
	uint64_t t0, t1, addr, addr2, bytes;
	int64_t ret;
	uint64_t freed;		/* a call's allocation: when freed; 0 never (a leak) */
	uint32_t unw;		/* its an_unw_ref in ld->deferred, or UINT32_MAX */
	uint32_t ms;		/* its microstates in an->tev_ms, or UINT32_MAX */
	uint32_t count;		/* the calls it stands for (a call: 1) */
	uint32_t leaks;		/* of its allocations, never freed */
};

/*
 * What a side table entry is: one call (every record but the heap's
 * counts), or the counts of a slice (format 1.10): count blocks made (t1
 * the first of those calls, t0 the slice's start, addr the stack id,
 * bytes each block's size), or freed (t1 the first of those frees, t0
 * the start of the slice the blocks were made in; event the call that
 * freed them, addr and bytes their allocation's stack id and size, an id
 * 0 for blocks not made while traced).
 */
enum { AN_TEV_CALL, AN_TEV_MADE, AN_TEV_FREED };

/* The class of call an entry counts (a realloc's freed blocks: a free). */
static inline enum exp_trace_class an_tev_class(const struct an_tev *t)
{
	return t->kind == AN_TEV_FREED ? EXP_TC_FREE :
		exp_trace_event(t->event)->cls;
}

/* Is it a free the heap statistics count (free, munmap: not a realloc)? */
static inline bool an_tev_is_free(const struct an_tev *t)
{
	return exp_trace_event(t->event)->cls == EXP_TC_FREE;
}

/*
 * An MPI call (load/mpi.c, libexp/mpi.h), for the MPI views; ranks are
 * world ranks, -1 none.  late: Late Sender, the time its receive waited
 * for the send to start; barwait: Wait at Barrier, for the last rank to
 * enter (both found by an_mpi_finish()).
 */
struct an_mcall {
	uint32_t exp, pid, tid;
	uint32_t sample;	/* its sample, or UINT32_MAX */
	uint32_t unw;		/* its an_unw_ref in ld->deferred, or UINT32_MAX */
	uint16_t func;		/* enum exp_mpi_func */
	int32_t rank, root, dst, stag, src, rtag;
	uint32_t comm, nsend, nrecv;
	uint64_t t0, t1, sbytes, rposted, rbytes, req;
	uint32_t ms;		/* its microstates in an->mpi_ms, or UINT32_MAX */
	uint64_t late, barwait;
	uint64_t nxnwait;	/* Wait at NxN: an MPI_Allreduce's, MPI_Alltoall's ... */
	uint32_t nstart;	/* MPI_Start(all): the sends it started, as an_mreqs */
};

/*
 * A request an MPI call (call, an index of an->mpi) completed; or, start
 * set, a persistent send an MPI_Start or MPI_Startall started: a message
 * of its own, to peer.
 */
struct an_mreq {
	uint32_t exp, pid, tid, call;
	uint64_t req;
	uint16_t kind, cancelled;
	int32_t peer, tag;
	uint64_t bytes;
	bool start;
};

/* A message matched: its send's and its receive's calls (an->mpi). */
struct an_mmsg {
	uint32_t send, recv;
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
 * and when a mapping was replaced (load/remap.c), one epoch between such
 * replacements.
 */
struct an_as {
	uint32_t exp, pid, gen;
	struct an_vec maps;	/* struct an_map, sorted by start once done */
	void *dwfl;		/* for DWARF unwinding (symbols/unwind.c) */
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
	bool kernel;		/* [kernel.kallsyms] or a module's (symbols/kernel.c) */
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

/* One inlined call at a pc (symbols/lines.c): the function, and where it was called. */
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
 * The sample decoder's bases (load/decode.c), made once, and the layouts of
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
	uint32_t tlay[7];	/* load/trace.c: the traced calls' layouts */
};

/*
 * A packet with user and kernel frames and User CPU is two samples
 * (load/records.c): its User CPU on the user stack alone (USER), then the rest
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
	uint8_t *part;		/* AN_PART_*: a packet split in two (load/records.c) */
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
	/* unwinding (symbols/unwind.c): samples unwound, not, from the cache; the
	 * per-pc CFI cache (symbols/unwcache.c): steps made, frames stepped,
	 * samples given to libdwfl, and with LWPROF_UNWIND=check the
	 * samples whose cached and libdwfl frames differ */
	unsigned long unwind_ok, unwind_fail, unwind_cached;
	unsigned long unwind_steps, unwind_lookups, unwind_libdwfl;
	unsigned long unwind_differ;
	bool unwind_check;
	double unwind_secs;	/* CPU time of an_unwind_all */
	struct exp_progress *progress;	/* a terminal's progress line, or NULL */
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
	struct an_sdec sdec;	/* load/decode.c */
	struct an_htab lay_h;	/* values.c: layout interning */
	/* the times of the records counted but not decoded (an->need) */
	uint64_t skip_tmin, skip_tmax;
	struct an_omp_load *omp;	/* load/omp.c's, until an_finish() */
};

/*
 * What the commands need decoded of the records (an->need, set before
 * the first an_load(); docs/design/analyzer.md "What is read").  None
 * (0): no record file is opened, the log's counts stand for them.
 * Otherwise every record is read and counted, and tasks, mappings, stops
 * and lost records are always taken; a kind not needed is counted only:
 * no values, stacks, unwinding or side table.  Traced sync waits and I/O
 * calls are samples whatever the views; only with AN_NEED_CALLS does each
 * also get its entry of the side table (an->tev: its descriptor, file,
 * times, microstates), which the views that list, time or name calls
 * read.  A view that sums metrics per stack needs AN_NEED_ALL alone.
 */
enum {
	AN_NEED_SAMPLES = 1,	/* clock and counter packets */
	AN_NEED_HEAP = 2,	/* traced heap calls, the heap tracer's records */
	AN_NEED_IO = 4,		/* traced I/O calls */
	AN_NEED_SYNC = 8,	/* traced sync waits */
	AN_NEED_MPI = 16,	/* MPI calls */
	AN_NEED_TRACE = AN_NEED_HEAP | AN_NEED_IO | AN_NEED_SYNC | AN_NEED_MPI,
	AN_NEED_ALL = AN_NEED_SAMPLES | AN_NEED_TRACE,
	AN_NEED_CALLS = 32,	/* each sync wait and I/O call in an->tev */
	AN_NEED_EVERY = AN_NEED_ALL | AN_NEED_CALLS,
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
	struct an_vec tev;	/* struct an_tev: the traced calls (load/trace.c) */
	struct an_vec tev_ms;	/* uint64_t[LWPROF_MS_COUNT]: their microstates */
	struct an_vec tnames;	/* struct an_tname */
	struct an_vec mpi;	/* struct an_mcall: MPI calls (load/mpi.c) */
	struct an_vec mpi_req;	/* struct an_mreq */
	struct an_vec mpi_ms;	/* uint64_t[LWPROF_MS_COUNT]: their microstates */
	struct an_vec mpi_msgs;	/* struct an_mmsg: messages matched */
	struct an_strtab strs;
	uint32_t f_total, f_unknown, f_trunc, f_noprog;	/* pseudo funcs */
	/* <IDLE>, <HARDIRQ>, <SOFTIRQ>: made on first use, or UINT32_MAX */
	uint32_t f_idle, f_hardirq, f_softirq;
	uint32_t o_unknown;
	uint32_t o_kernel;	/* [kernel.kallsyms], made on first use */
	struct an_vec ksyms;	/* symbols/kernel.c: struct ksym, sorted */
	struct an_vec kmods;	/* symbols/kernel.c: the core kernel, then modules */
	const char *krelease;	/* the kernel kallsyms is of (uname -r), or NULL */
	bool kdebug_walked;	/* modules' debug images looked for (symbols/kernel.c) */
	struct an_vec bases;	/* struct an_base: the base values' kinds */
	struct an_layouts lay;
	struct an_vec metrics;	/* struct an_metric: the registry's, instantiated */
	uint32_t nctr;		/* counters known */
	bool inline_funcs;	/* charge inlined code to the inlined function */
	uint32_t need;		/* AN_NEED_*: an_init() sets AN_NEED_ALL */
	uint64_t tmin, tmax;	/* over all experiments */
	struct an_dwfl_cbs *dwfl_cbs;	/* symbols/dwflcb.c: libdwfl's callbacks */
	/* spans.c, made on first use: every experiment's spans, the
	 * first of each experiment (exps.n + 1 entries), each sample's */
	struct an_vec spans;	/* struct an_span */
	uint32_t *span_first;
	uint32_t *span_of;	/* per row of the sample table */
	struct an_vm *vm;	/* viewmode/: the mode and the machine stacks */
	struct an_omp *omp;	/* load/omp.c: OpenMP's regions and waits, or NULL */
	struct an_java *java;	/* JVMs' methods and Java stacks (java.h), or NULL */
};

struct an_java;

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

/*
 * Is sample i a traced call's (or a leak's): values of a call, not of a
 * clock or counter packet?
 */
static inline bool an_sample_traced(const struct an *an, size_t i)
{
	const uint32_t *l = an_layout(an, an->s.layout[i]);
	uint32_t j;

	for (j = 1; j <= l[0]; j++)
		if (((const struct an_base *)an->bases.p)[l[j]].kind == AN_B_TRACE)
			return true;
	return false;
}

/* Task events that shape address spaces: exec (new), fork (inherit). */
struct an_task_ev {
	uint32_t exp, pid, ppid, event;
	uint64_t time;
};

struct an_unw_ref {
	uint32_t sample;
	uint32_t exp;
	uint32_t file;		/* the record file's id (libexp/exp.h) */
	uint64_t off;		/* of the record in its file */
	uint32_t as;
	uint32_t flags;
};

/* containers.c */
int an_errf(struct an *an, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void an_warn(struct an *an, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* samples.c: the sample table's rows; threads and address spaces by key */
int an_sample_add(struct an *an, uint64_t t, uint32_t raw, uint32_t thr,
		  uint16_t cpu, uint32_t layout, const uint64_t *vals,
		  uint32_t nv, uint8_t part);
uint32_t an_thread_get(struct an *an, uint32_t exp, uint32_t pid,
		       uint32_t tid);
uint32_t an_as_get(struct an *an, uint32_t exp, uint32_t pid, uint32_t gen);

/* rawstack.c: raw stacks, interned per address space */
uint64_t an_raw_hash(uint32_t as, const uint64_t *ips, uint32_t n,
		     uint32_t flags);
void an_raw_prefetch(struct an *an, uint64_t hash, int stage);
uint32_t an_raw_intern_h(struct an *an, uint64_t hash, uint32_t as,
			 const uint64_t *ips, uint32_t n, uint32_t flags);
uint32_t an_raw_intern(struct an *an, uint32_t as, const uint64_t *ips,
		       uint32_t n, uint32_t flags);
/* raw's ips and flags interned in address space as (or UINT32_MAX) */
uint32_t an_raw_rehome(struct an *an, uint32_t raw, uint32_t as);
uint32_t an_raw_user(struct an *an, uint32_t raw);

/*
 * spans.c: the unpaused part of [t0, t1] (e->pauses); the spans of every
 * experiment, made once (0 or -ENOMEM), and freed.
 */
uint64_t an_unpaused(const struct an_exp *e, uint64_t t0, uint64_t t1);
int an_spans_build(struct an *an);
void an_spans_free(struct an *an);

/* the microstates over a traced call (LWPROF_MS_COUNT ns), or NULL */
static inline const uint64_t *an_tev_ms(const struct an *an,
					const struct an_tev *t)
{
	return t->ms == UINT32_MAX ? NULL :
		(const uint64_t *)an->tev_ms.p + (size_t)LWPROF_MS_COUNT * t->ms;
}

/* the microstates over an MPI call (LWPROF_MS_COUNT ns), or NULL */
static inline const uint64_t *an_mcall_ms(const struct an *an,
					  const struct an_mcall *c)
{
	return c->ms == UINT32_MAX ? NULL :
		(const uint64_t *)an->mpi_ms.p + (size_t)LWPROF_MS_COUNT * c->ms;
}

/* metric.c: the registry, and each metric's facts */
int an_metrics_init(struct an *an);
/* counter an->nctr of log.txt, its metric (mhz > 0: cycles as time) */
int an_metric_add_counter(struct an *an, const char *name, double mhz);
const char *an_counter_name(struct an *an, uint32_t k);
void an_metrics_free(struct an *an);
int an_metric_count(struct an *an);
const char *an_metric_kw(struct an *an, int m);
const char *an_metric_title(struct an *an, int m);
bool an_metric_is_time(struct an *an, int m);
enum an_unit an_metric_unit(struct an *an, int m);
const char *an_metric_unit_name(struct an *an, int m);	/* "sec.", "bytes", "events" */
uint32_t an_metric_flags(struct an *an, int m);	/* AN_MF_* */
bool an_metric_present(struct an *an, int m);	/* AN_MF_DATA: has data */
/*
 * Is metric m a microstate that no experiment read could record (log.txt's
 * "metric = NAME absent": the perf backend's)?  Shown as absent, not 0.
 */
bool an_metric_absent(struct an *an, int m);
int an_metric_find(struct an *an, const char *kw);	/* a metric, or -1 */
/* ... or a static one (AN_M_NAME, _SIZE, _ADDRESS), or -1 */
int an_metric_lookup(struct an *an, const char *kw);
uint64_t an_metric_raw(struct an *an, int m, const uint64_t *base);
double an_metric_val(struct an *an, int m, const uint64_t *base);

/* values.c: bases and value layouts */
/* at most this many base values per sample record */
#define AN_SAMPLE_VALUES_MAX (LWPROF_MS_COUNT + 2)
uint32_t an_base_id(struct an *an, uint32_t kind, uint32_t idx);	/* or UINT32_MAX */
/* the layout of n base ids (increasing), or UINT32_MAX */
uint32_t an_layout_intern(struct an *an, const uint32_t *ids, uint32_t n);

#endif
