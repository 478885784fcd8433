/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading: the layer of lwprof print that reads experiments into the
 * model (docs/design/analyzer.md).  Each experiment is opened whole by
 * libexp (exp_open()) and its record files read through libexp's reader
 * (records.c): samples decoded into base values (decode.c) with their raw
 * stacks, tasks and mappings, traced calls (trace.c), the sample points
 * (points.c).  an_finish() then shapes the address spaces (execs, forks,
 * remaps: remap.c), has symbols/ unwind and resolve the stacks, and frees
 * what loading alone needed.
 */
#ifndef LWPROF_ANALYZER_LOAD_H
#define LWPROF_ANALYZER_LOAD_H

#include "analyzer/model/model.h"
#include "analyzer/symbols/symbols.h"

/* load.c: what the command calls, in this order */
int an_init(struct an *an, struct an_run *run);
int an_load(struct an *an, const char *dir);	/* each experiment */
int an_finish(struct an *an);	/* after the last an_load */
void an_free(struct an *an);

/* the rest is load/'s own */

/* records.c: one record file of experiment exp (its id: libexp/exp.h) */
int an_read_rec(struct an *an, uint32_t exp, uint32_t file);

/* points.c: samples.rec's packets into e->gs, and its paused windows */
int an_read_gsamples(struct an *an, struct an_exp *e);

/* remap.c: a sample resolved against the mappings of its time */
int an_split_remaps(struct an *an);

/*
 * decode.c: the decoders' bases and layouts (then the traced calls',
 * an_trace_init(), then the registry's metrics, an_metrics_init());
 * counter k's (before its metric); a sample
 * record's base values, in its layout's order, and the layout
 * (*layout): their count; -EINVAL with the reason in msg and the
 * offending field's offset in *at; or -ENOMEM.
 */
int an_decode_init(struct an *an);
uint32_t an_decode_counter(struct an *an, uint32_t k);
int an_decode_sample(struct an *an, const struct an_exp *e,
		     const struct lwprof_rec_sample *r, uint32_t *layout,
		     uint64_t *vals, char *msg, size_t len, uint64_t *at);

/*
 * heap.c: the heap tracer's records of one file (format 1.7), read in
 * order; an_heap_close() makes the samples and side table entries of its
 * counts (an id may be defined after the counts that name it) and frees
 * it.  0, -ENOMEM, or -EINVAL with what is wrong in *why.
 */
struct an_heapfile;
struct an_heapfile *an_heap_open(struct an *an, uint32_t exp);
int an_heap_stack(struct an_heapfile *h, const struct exp_rec_tstack *s,
		  const char **why);
int an_heap_counts(struct an_heapfile *h, const struct exp_rec_theap *r,
		   const char **why);
/* a deflated group: what is wrong at byte *at of the records inflated */
int an_heap_tz(struct an_heapfile *h, const struct exp_rec_tz *z,
	       const char **why, uint32_t *at);
int an_heap_close(struct an_heapfile *h);

/* trace.c: traced calls (any record type: libexp/trace.h's view) */
struct exp_rec_trace_file;
int an_trace_init(struct an *an);
/* whether a traced call is read as a sample (an allocation, a wait, I/O) */
bool an_trace_has_sample(const struct exp_tcall *t);
/* a traced call's values for its sample: their count (0: no sample) */
int an_trace_decode(struct an *an, const struct exp_tcall *t,
		    uint32_t *layout, uint64_t *vals);
int an_trace_add(struct an *an, uint32_t exp, const struct exp_tcall *t,
		 uint32_t sample, uint32_t unw);
/* an entry of a slice's heap counts (heap.c), *v whole */
int an_trace_add_count(struct an *an, const struct an_tev *v);
int an_trace_file(struct an *an, uint32_t exp, const struct exp_rec_trace_file *f);
/* an experiment's files are read: leaks, descriptors' names */
int an_trace_exp_done(struct an *an, uint32_t exp);
void an_trace_release(struct an *an);

/*
 * omp.c: OpenMP's bases (an_init); a record of libexp/omp.h; after the
 * stacks are resolved, the model's tables and the metrics' rows.
 */
struct an_omp_load;
int an_omp_init(struct an *an);
int an_omp_rec(struct an *an, uint32_t exp, const struct lwprof_rec *h);
int an_omp_finish(struct an *an);
/* before resolving: each stack in its process's last address space */
int an_omp_rehome(struct an *an);
/* load.c: the generation of pid at time t (execs before it) */
uint32_t an_gen_at(struct an *an, uint32_t exp, uint32_t pid, uint64_t t);
void an_omp_load_free(struct an_omp_load *l);
/* java.c: a record of a JVMTI agent's file (libexp/java.h) */
int an_java_rec(struct an *an, uint32_t exp, const struct lwprof_rec *h);

/*
 * mpi.c: MPI calls (libexp/mpi.h).  an_mpi_decode(): a call's values for
 * its sample; an_mpi_add(): its entry of an->mpi; an_mpi_req(): a
 * request a wait completed, for the call after it; an_mpi_finish():
 * once every experiment is read, each experiment's rank, messages
 * matched with their receives, Late Sender and Wait at Barrier (samples
 * of their own on the calls' stacks).
 */
struct exp_rec_mpi;
struct exp_rec_mpi_req;
int an_mpi_decode(struct an *an, const struct exp_rec_mpi *m,
		  uint32_t *layout, uint64_t *vals);
int an_mpi_add(struct an *an, uint32_t exp, const struct exp_rec_mpi *m,
	       const struct exp_tcall *t, uint32_t sample, uint32_t unw);
int an_mpi_req(struct an *an, uint32_t exp, const struct exp_rec_mpi_req *q);
int an_mpi_finish(struct an *an);
void an_mpi_release(struct an *an);

#endif
