/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording source of lwprof collect (docs/architecture.md, "Recording
 * sources"): what puts records (uapi/lwprof_record.h) into rings that the
 * drain writes out, one ring to one cpu.N.rec file.  The collect loop,
 * the drain, the archiver and the experiment writer see only this
 * interface; lwprof.ko's per-CPU rings are one source (source_module.c).
 *
 * The loop calls, in this order: open (before the experiment exists),
 * setup (the target is known; rings and poll_fd set), start, any number
 * of usage and sync, stop, usage, finish, and close (also after a failure
 * at any step, and then only close).  Operations that can fail return 0
 * or a negative errno and, for open, setup and start, a whole one-line
 * message in msg (len bytes).  Warnings and what log.txt should say go
 * into the experiment: exp_warn(), exp_note().
 */
#ifndef LWPROF_SOURCE_H
#define LWPROF_SOURCE_H

#include <stddef.h>

#include "collect.h"
#include "lwprof.h"

struct lwprof_usage_set;

/*
 * A ring of whole records: bytes at positions [*tail, *head) are data[pos
 * & (size - 1)], a record may wrap at the end.  Positions only grow.  The
 * source moves *head (store-release, after the bytes); the drain reads it
 * with load-acquire, writes the bytes to the file at the header's size +
 * (pos - the tail at drain_create()) and then moves *tail (store-release):
 * the source may reuse bytes below *tail once it has read it with
 * load-acquire.
 */
struct rec_ring {
	unsigned char *data;
	__u64 size;		/* bytes, a power of two */
	__u64 *head;		/* the source's */
	__u64 *tail;		/* the drain's */
};

struct rec_source {
	const struct rec_source_ops *ops;
	/* Set by setup: */
	struct rec_ring *rings;	/* one per cpu.N.rec file */
	unsigned int nr_rings;
	int poll_fd;		/* readable when the rings want draining, or
				 * -1: drained by the timed flush only */
	__u64 flush_ns;		/* the timed flush's period; 0: 250 ms */
	__u32 abi_major;	/* the records' ABI, for the files' headers */
	__u32 abi_minor;
};

struct rec_source_ops {
	const char *name;
	/* Can this source record what o asks for here?  *sp on success. */
	int (*open)(const struct collect_opts *o, struct rec_source **sp,
		    char *msg, size_t len);
	/*
	 * Attach to process pid and what it creates (0: the machine, in
	 * MODE_MACHINE); in MODE_COMMAND pid has not exec'd yet and waits
	 * for setup to return.  Set the rings, poll_fd and the ABI; notes for
	 * log.txt go into e.
	 */
	int (*setup)(struct rec_source *s, int pid, struct exp_writer *e,
		     char *msg, size_t len);
	int (*start)(struct rec_source *s, char *msg, size_t len);
	/*
	 * Optional: put what the source holds back into its rings now (a
	 * flight recorder's snapshot is about to read them); may wait a
	 * little.
	 */
	void (*sync)(struct rec_source *s);
	/*
	 * Stop recording: e->records and e->lost are the totals made and
	 * dropped.  Records already in the rings stay for the drain.
	 */
	void (*stop)(struct rec_source *s, struct exp_writer *e);
	/*
	 * Merge the target's threads' usage into u (u->live: threads still
	 * running).  NULL for a source without one: then no usage.txt, and
	 * the recording stops as soon as the target is gone.
	 */
	int (*usage)(struct rec_source *s, struct lwprof_usage_set *u);
	/*
	 * Everything is drained: e->lost_file[i] is what ring i dropped (a
	 * warning says what to do about it).
	 */
	void (*finish)(struct rec_source *s, struct exp_writer *e);
	void (*close)(struct rec_source *s);
};

/* lwprof.ko's rings (source_module.c). */
extern const struct rec_source_ops source_module;
/* None: the tracing library writes its own files (source_trace.c). */
extern const struct rec_source_ops source_trace;
/* perf_event_open(2), for machines without it (source_perf.c). */
extern const struct rec_source_ops source_perf;

/* cmd_collect.c: record what o asks for from src; the exit status. */
int collect_run(const struct collect_opts *o,
		const struct rec_source_ops *src);

#endif
