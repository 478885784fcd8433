/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf backend (docs/design/perf-backend.md), for machines without
 * lwprof.ko: what its files share.  Its record part: record.c opens the
 * events and implements struct rec_ops; conv.c reads perf's mmap rings,
 * puts the records of all CPUs in time order, thr.c keeps every thread's
 * microstate clock and writes lwprof records (uapi/lwprof_record.h, built
 * by rec.c, stack copies by delta.c) into rings of its own (out.c);
 * proc.c reads /proc, wake.c the wake-up tracepoint, notes.c says in
 * log.txt what it gives.  Its usage part: usage.c reads every thread
 * from /proc and taskstats (taskstats.c), with tracepoint counts
 * (pcnt.c).  Every function returns 0 or a negative errno.
 */
#ifndef LWPROF_BACKEND_PERF_H
#define LWPROF_BACKEND_PERF_H

#include <linux/perf_event.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <stdbool.h>

#include "userspace/backend/backend.h"

/* perf.c; its parts: record.c, usage.c */
extern const struct backend_ops backend_perf;
extern const struct rec_ops perf_rec_ops;
extern const struct usage_ops perf_usage_ops;

/* What an event's samples are (by its id). */
enum pev_role {
	ROLE_CLOCK, ROLE_SWITCH, ROLE_COUNTER, ROLE_WAKEUP, ROLE_SCHED_SWITCH,
	ROLE_WAKEUP_NEW
};

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
	/* The converter's (conv.c): */
	__u64 rd;		/* records below are indexed */
	__u64 keep;		/* records from here on are not converted */
	unsigned char *wrap;	/* the record that wraps around the end */
	__u32 wrap_cap;
};

struct pconv;

struct psrc {
	struct rec_source s;
	const struct rec_opts *o;
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
	/* sched:sched_wakeup on every CPU (wake.c), or why not: */
	bool wake;
	__u32 wake_pid_off;	/* the woken task's pid in its raw data */
	__u64 wake_id;		/* the tracepoint's */
	char wake_why[160];
	/* and sched:sched_wakeup_new (a new thread's first), with it: */
	bool wake_new;
	__u32 wnew_pid_off;
	__u64 wnew_id;
	/* and sched:sched_switch with it, where the kernel has it: */
	bool sched_switch;
	__u32 sw_prev_off, sw_next_off;	/* prev_pid, next_pid */
	__u64 sw_id;
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
 * wake.c: can sched:sched_wakeup be sampled on every CPU?  p->wake,
 * or p->wake_why; and sched:sched_wakeup_new and sched:sched_switch with
 * it (p->wake_new, p->sched_switch).  The attr of tracepoint id
 * (p->wake_id, p->wnew_id, p->sw_id); a wake-up's sample (either kind,
 * told by its id's role): the time and the woken thread; a switch's: the
 * time, the threads that leave and take the CPU.
 */
void pwake_setup(struct psrc *p);
void pwake_attr(const struct psrc *p, struct perf_event_attr *a, __u64 id);
int pwake_sample(const struct psrc *p, const struct perf_event_header *h,
		 bool new_task, __u64 *time, __u32 *tid);
int psw_sample(const struct psrc *p, const struct perf_event_header *h,
	       __u64 *time, __u32 *prev, __u32 *next);

/* notes.c: the backend and its metrics into log.txt. */
int perf_notes(struct psrc *p, struct exp_writer *e);

/* parse.c: the event of id (NULL: not ours), once the ids are sorted */
const struct pev_id *psrc_id(const struct psrc *p, __u64 id);
void psrc_ids_sort(struct psrc *p);

/*
 * proc.c: /proc.  The kernel functions of the futex system calls
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

/* out.c: the rings of converted records. */
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

/* conv.c */
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
	__u64 wake_unseen;	/* blocked threads back on CPU, no wake-up seen */
};

void pconv_totals(const struct pconv *c, struct ptotals *t);

/* The monotonic clock, as perf stamps our events. */
__u64 perf_now_ns(void);

/*
 * ---- the converter inside: conv.c reads and orders perf's records,
 * thr.c turns them into lwprof records and keeps each thread's
 * microstate clock, rec.c builds lwprof sample records ----
 */

/* The user registers perf copies: AX..IP (bits 0-8) and R8..R15 (16-23). */
#define PERF_UREGS_MASK	0xff01ffULL
#define PERF_NR_UREGS	17

/* A PERF_RECORD_SAMPLE of the source's sample_type, parsed. */
struct psample {
	__u16 misc;
	__u64 id, ip, time, period;
	__u32 pid, tid, cpu;
	__u64 nr;		/* callchain entries, context markers included */
	const __u64 *chain;
	__u64 abi;		/* PERF_SAMPLE_REGS_ABI_*; NONE: no regs */
	const __u64 *regs;	/* PERF_NR_UREGS, in perf's bit order */
	const unsigned char *stack;
	__u64 dyn;		/* bytes of stack[] that are the copy */
};

/* The sample_id_all trailer of the other records. */
struct ptrail {
	__u32 pid, tid, cpu;
	__u64 time, id;
};

/* A record not yet converted, where it lies in perf's ring (or wrap). */
struct pend {
	__u64 time, seq;
	__u64 pos;		/* its position in the CPU's ring */
	__u32 cpu;
	const unsigned char *rec;
};

/* One thread's clock: the time since its last packet, by microstate. */
struct pthr {
	struct pthr *next;
	__u32 pid, tid;
	__u64 last_ns;		/* accounted up to here */
	__u64 out_ns;		/* its switch-out sample's time, or 0 */
	__u64 sw_out_ns;	/* its sched_switch away, or 0 */
	__u64 acc[LWPROF_MS_COUNT];
	bool on;		/* on a CPU */
	bool lock_out;		/* the last switch-out was in a futex wait */
	bool blocked;		/* off CPU blocked, its wake-up not yet seen */
	bool unborn;		/* new, its sched_wakeup_new not yet seen */
	bool parked_on;		/* parked holds the switch-out packet */
	__u8 off_ms;		/* the microstate off CPU */
	__u8 last_mode;		/* USER or SYSTEM: where the last sample was */
	char comm[16];
	/* The switch-out packet, waiting for its time (thr.c): */
	unsigned char *parked;
	__u32 parked_cap;
	/*
	 * The last stack copy it sent, the base of its next delta
	 * (delta.c): base_size bytes at base_sp, in a window of the
	 * stack from base_org; base_size 0: none.
	 */
	__u32 base_size, base_ring;
	unsigned char *base;
	__u64 base_org, base_sp, base_time;
	/* thr.c's guard: traceable up to ok_ns, as of pass */
	__u64 ok_ns, exec_ns;
	unsigned int pass;
	__u8 deny;		/* LWPROF_STOP_*: found untraceable */
	bool stopped;		/* its STOP record is out: nothing more */
};

#define PTHR_BUCKETS	1024

struct pconv {
	struct psrc *p;
	struct pend *pend;
	size_t nr_pend, cap_pend;
	__u64 seq;
	struct pthr *bucket[PTHR_BUCKETS];
	unsigned char *scratch;	/* a sample being built */
	size_t scratch_len;	/* the largest sample */
	unsigned char *compact;	/* a sample made compact (prec_put()) */
	__u64 written;		/* records put into our rings */
	__u64 samples, switches, perf_lost, throttled;
	__u64 wakeups;		/* sched_wakeup ends of blocked states */
	__u64 wake_unseen;	/* wake-ups no sched_wakeup sample told */
	unsigned int pass;	/* pconv_pass()es begun */
	bool guard;		/* the recorder is not root: thr.c's guard */
};

/* parse.c: a record's trailer, a sample: 0 or -EINVAL (not its size) */
int pconv_trailer(const struct perf_event_header *h, struct ptrail *t);
int pconv_sample(const struct psrc *p, const struct perf_event_header *h,
		 struct psample *s);

/* thr.c */
void pconv_record(struct pconv *c, const struct perf_event_header *h,
		  __u32 ring);
void pthr_close_all(struct pconv *c, __u64 end_ns);
void pthr_free_all(struct pconv *c);

/*
 * rec.c.  A sample record is begun where it will be built
 * (prec_begin(): in its ring, or c->scratch), given its fixed part,
 * registers and frames (prec_head(): kind, counter, value, the flags
 * beyond what s says; with kstack the kernel frames too; returns where
 * the stack copy goes), its stack copy (pdelta_stack()) and ended
 * (prec_end(): false if it was dropped, the ring full).
 */
struct lwprof_rec_sample *prec_begin(struct pconv *c, __u32 cpu);
unsigned char *prec_head(struct pconv *c, struct lwprof_rec_sample *r,
			 const struct psample *s, __u16 kind, __u16 counter,
			 __u64 value, __u16 flags);
bool prec_end(struct pconv *c, struct lwprof_rec_sample *r);
/* Did s's kernel chain pass through a futex wait? */
bool prec_futex(const struct psrc *p, const struct psample *s);
/* An executable mapping, for prec_mmap(). */
struct pmap {
	__u32 pid, tid, maj, min, prot;
	__u64 time, start, len, pgoff, ino;
	const char *path;	/* a file, "[vdso]", or anything else: anon */
	size_t path_len;
};

union prec_mmap_buf {
	struct lwprof_rec_mmap r;
	unsigned char b[sizeof(struct lwprof_rec_mmap) + 4096 + 8];
};

/* The MMAP record of m in *u ("//anon" for what is not a file); returns it. */
struct lwprof_rec_mmap *prec_mmap(union prec_mmap_buf *u, const struct pmap *m);
/* The ring of CPU cpu (clamped to the rings there are). */
__u32 prec_ring(const struct pconv *c, __u32 cpu);
/*
 * Put rec into the ring of CPU cpu; false if it was dropped.  A sample
 * goes as a compact sample (rec.c says which registers).
 */
bool prec_put(struct pconv *c, const void *rec, __u32 cpu, __u64 time_ns);

/*
 * delta.c: s's stack copy at q, the end of r's frames, as a delta
 * against t's previous copy in the same ring where that is smaller, else
 * whole; r's size and flags follow, and the copy is t's next base.  If r
 * then does not reach its file, pdelta_lost(t): it is no base.
 */
void pdelta_stack(struct pconv *c, struct pthr *t, struct lwprof_rec_sample *r,
		  unsigned char *q, const struct psample *s);
void pdelta_lost(struct pthr *t);

/*
 * ---- usage.c: thread usage without the module, for ptime and top:
 * every thread's /proc/PID/task/TID/{stat,schedstat,status}, and the
 * kernel's taskstats exit records (exact final totals of the threads that
 * exit) where the caller may register for them (CAP_NET_ADMIN).  Records
 * come as the module's struct lwprof_thread_usage, with the columns /proc
 * cannot fill left out of lwprof_usage_set.have. ----
 */

/* The columns this backend fills. */
#define LWPROF_PROC_HAVE	(LWPROF_HAVE_MS(LWPROF_MS_USER) | \
				 LWPROF_HAVE_MS(LWPROF_MS_SYSTEM) | \
				 LWPROF_HAVE_MS(LWPROF_MS_SLEEP) | \
				 LWPROF_HAVE_MS(LWPROF_MS_WAIT_CPU) | \
				 LWPROF_HAVE_VCSW | LWPROF_HAVE_IVCSW | \
				 LWPROF_HAVE_MINFLT | LWPROF_HAVE_MAJFLT)

struct lwprof_proc;

int lwprof_proc_open(struct lwprof_proc **p);

/*
 * Watch process pid, its threads and the processes it creates from now on
 * (and those orphaned to us when pid is our child and we are its
 * subreaper), or with LWPROF_ATTACH_MACHINE every thread.  -ESRCH: no
 * such process; -EACCES: no ptrace rights over it; -EPERM: the machine
 * without CAP_PERFMON or CAP_SYS_ADMIN.
 */
int lwprof_proc_attach(struct lwprof_proc *p, __u32 flags, int pid);

/*
 * Read the session's threads into set: the live ones as they are now,
 * zombies and the threads whose taskstats exit record came with their
 * final totals (LWPROF_TU_EXITED, once).  A thread that vanished without
 * an exit record keeps, in set, its last reading.
 */
int lwprof_proc_read(struct lwprof_proc *p, struct lwprof_usage_set *set);

/* How exited threads are counted, for the log (one line). */
const char *lwprof_proc_note(const struct lwprof_proc *p, char *buf,
			     size_t len);

void lwprof_proc_close(struct lwprof_proc *p);

/*
 * ---- pcnt.c: per-thread perf counters: the system calls
 * (raw_syscalls:sys_enter) and signals delivered (signal:signal_deliver)
 * of each thread, counted with perf_event_open(2) from when the thread is
 * first read.  Tracepoints count in the kernel, so perf's rules want
 * CAP_PERFMON (or perf_event_paranoid <= 1), and their ids come from
 * tracefs. ----
 */

struct lwprof_pcnt;

/*
 * -ENOENT: no tracefs mounted (/sys/kernel/tracing, or debugfs's
 * tracing); -EACCES: tracefs is not ours to read, or perf_event_paranoid
 * forbids kernel events to us.
 */
int lwprof_pcnt_open(struct lwprof_pcnt **pc);

/*
 * Thread tid's counts since its counters were opened, opening them now
 * (counts 0) if it has none.  They stay readable after the thread exits,
 * with its final counts.  -ESRCH: it cannot be counted (gone before we
 * could open them, or out of file descriptors).
 */
int lwprof_pcnt_read(struct lwprof_pcnt *pc, __u32 tid, __u64 *syscalls,
		     __u64 *signals);

/* Close the counters of the threads not read since the last sweep. */
void lwprof_pcnt_sweep(struct lwprof_pcnt *pc);

void lwprof_pcnt_close(struct lwprof_pcnt *pc);

/*
 * ---- taskstats.c: exit records over generic netlink
 * (TASKSTATS_CMD_GET with TASKSTATS_CMD_ATTR_REGISTER_CPUMASK): the
 * kernel sends every thread's final accounting when it exits.
 * Registering needs CAP_NET_ADMIN. ----
 */

struct lwprof_ts;

/*
 * Open a listener for the exits on every CPU.  -EPERM without
 * CAP_NET_ADMIN, -ENOENT when the kernel has no taskstats.
 */
int lwprof_ts_open(struct lwprof_ts **ts);

/*
 * Hand every exit record received so far to fn (a thread's record; the
 * fields the running kernel does not send are zero).  Returns how many
 * records the kernel dropped since the last call (a full socket buffer)
 * or a negative errno.
 */
int lwprof_ts_drain(struct lwprof_ts *ts,
		    void (*fn)(void *arg, const struct taskstats *t),
		    void *arg);

/* A live thread's accounting so far (ac_etime: its age). */
int lwprof_ts_query(struct lwprof_ts *ts, __u32 tid, struct taskstats *t);

void lwprof_ts_close(struct lwprof_ts *ts);

#endif
