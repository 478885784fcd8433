/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf_event_open recording source (docs/perf-backend.md): what its
 * files share.  source_perf.c opens the events and implements the
 * rec_source_ops; perf_conv.c reads perf's mmap rings, puts the records of
 * all CPUs in time order, keeps every thread's microstate clock and writes
 * lwprof records (uapi/lwprof_record.h) into rings of its own; perf_out.c
 * is those rings.  Every function returns 0 or a negative errno.
 */
#ifndef LWPROF_SOURCE_PERF_H
#define LWPROF_SOURCE_PERF_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>

#include "source.h"

/* What an event's samples are (by its id). */
enum pev_role { ROLE_CLOCK, ROLE_SWITCH, ROLE_COUNTER, ROLE_WAKEUP };

struct pev_id {
	__u64 id;
	__u16 role;		/* enum pev_role */
	__u16 counter;		/* ROLE_COUNTER: index in o->counters */
};

/* A kernel address range, [start, end). */
struct krange {
	__u64 start, end;
};

#define PERF_FUTEX_FNS	4

/* One lwprof ring that the converter fills and the drain empties. */
struct pout {
	unsigned char *data;
	__u64 size;
	__u64 head, tail;	/* shared with the drain (rec_ring) */
	__u64 lost;		/* records dropped, ring full */
	__u64 lost_pending;	/* not yet announced by a LOST record */
	__u64 records;
	int kick_fd;		/* an eventfd that wakes the drain */
	bool wait;		/* when full, wait for the drain (up to 2 s) */
};

/* One CPU: the perf ring every event on it writes to, our ring. */
struct pcpu {
	int fd;			/* the event that owns the perf ring, or -1 */
	struct perf_event_mmap_page *mp;
	size_t mmap_len;
	struct pout out;
	__u64 perf_lost;	/* records perf dropped (its ring full) */
	/* The converter's (perf_conv.c): */
	__u64 rd;		/* records below are indexed */
	__u64 keep;		/* records from here on are not converted */
	unsigned char *wrap;	/* the record that wraps around the end */
	__u32 wrap_cap;
};

struct pconv;

struct psrc {
	struct rec_source s;
	const struct collect_opts *o;
	unsigned int nr_cpus;	/* possible CPUs: rings and cpu.N.rec files */
	struct pcpu *cpu;
	int *fds;		/* every event, for enable and disable */
	unsigned int nr_fds, cap_fds;
	struct pev_id *ids;	/* sorted by id */
	unsigned int nr_ids, cap_ids;
	struct perf_event_attr clock_attr, switch_attr;
	__u64 sample_type;
	__u32 stack_bytes;	/* user stack copied per sample */
	__u32 depth;		/* frames per chain asked of perf */
	__u32 ring_pages;	/* of each of our rings */
	int paranoid;		/* kernel.perf_event_paranoid */
	bool kernel;		/* kernel samples and chains allowed */
	bool switch_stacks;	/* context-switch samples (stack at switch-out) */
	bool futex;		/* lock told from sleep (kernel chain) */
	/* sched:sched_wakeup on every CPU (perf_wake.c), or why not: */
	bool wake;
	__u32 wake_pid_off;	/* the woken task's pid in its raw data */
	__u64 wake_id;		/* the tracepoint's */
	char wake_why[160];
	struct krange futex_fn[PERF_FUTEX_FNS];
	unsigned int nr_futex_fn;
	__u64 start_ns;
	int pid;		/* -P's process */
	/* What existed at start_ns, read from /proc by the converter: */
	unsigned int synth_procs, synth_threads;
	__u64 synth_ns;		/* how long that took */
	int evfd;		/* poll_fd: the converter wrote records */
	int wakefd;		/* wakes the converter: stop, or a sync */
	int syncfd;		/* the converter made the pass asked for */
	int sync_req;		/* atomic: a pass asked for (perf_sync()) */
	pthread_t thread;
	bool thread_on;
	int stop;		/* atomic: the converter's last pass, then exit */
	struct pconv *conv;
	char *warn;		/* a degradation for log.txt, or NULL */
};

/*
 * perf_wake.c: can sched:sched_wakeup be sampled on every CPU?  p->wake,
 * or p->wake_why.  Its attr for pwake_setup()'s p, and one of its
 * samples: the time and the woken thread.
 */
void pwake_setup(struct psrc *p);
void pwake_attr(const struct psrc *p, struct perf_event_attr *a);
int pwake_sample(const struct psrc *p, const struct perf_event_header *h,
		 __u64 *time, __u32 *tid);

/* perf_notes.c: the backend and its metrics into log.txt. */
int perf_notes(struct psrc *p, struct exp_writer *e);

/* source_perf.c: what the event with this id samples, or NULL. */
const struct pev_id *psrc_id(const struct psrc *p, __u64 id);

/*
 * perf_proc.c: /proc.  The kernel functions of the futex system calls
 * from /proc/kallsyms into p->futex_fn (p->futex when found); the
 * threads of process pid (TASK START records, their clocks) and its
 * executable mappings (MMAP records) into ring 0.
 */
void pproc_futex(struct psrc *p);
int pproc_threads(struct psrc *p, int pid, int **tids, unsigned int *n);
/*
 * Process pid's threads and mappings, stamped p->start_ns (a time after
 * the events were enabled): returns how many threads, or -errno.
 */
int pproc_synth_pid(struct psrc *p, int pid);
/* Every process's (-a), counted in p->synth_procs and synth_threads. */
void pproc_synth_all(struct psrc *p);

/* perf_out.c: the rings of converted records. */
int pout_init(struct pout *r, __u64 bytes);
void pout_free(struct pout *r);
/* Append a whole record (size a multiple of 8); false: dropped, no room. */
bool pout_put(struct pout *r, const void *rec, __u32 cpu, __u64 time_ns);
/*
 * Where to build a record of up to max bytes in place: free and not
 * wrapping around the end; NULL if there is no such room (or a LOST
 * record must go first): build it elsewhere and pout_put() it.
 */
void *pout_room(struct pout *r, __u32 max);
/* The record built at pout_room()'s place (its size set) goes out. */
void pout_commit(struct pout *r, const void *rec);

/* perf_conv.c */
int pconv_create(struct psrc *p, struct pconv **cp);
void pconv_destroy(struct pconv *c);
/* A thread that existed when recording began (attach): at p->start_ns. */
int pconv_thread(struct pconv *c, __u32 pid, __u32 tid, bool running,
		 const char comm[16]);
/*
 * One pass: read every CPU's perf ring, convert what is older than a
 * little before now (final: everything, and close every live thread's
 * account at end_ns).  Returns how many records were written.
 */
unsigned int pconv_pass(struct pconv *c, bool final, __u64 end_ns);
/* Counts for the log. */
struct ptotals {
	__u64 samples;		/* perf samples seen */
	__u64 switches;		/* switch records */
	__u64 perf_lost;	/* records perf dropped */
	__u64 throttled;	/* throttle records */
	__u64 wakeups;		/* wake-ups that ended a blocked state */
};

void pconv_totals(const struct pconv *c, struct ptotals *t);

/* The monotonic clock, as perf stamps our events. */
__u64 perf_now_ns(void);

#endif
