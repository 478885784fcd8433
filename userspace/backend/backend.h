/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backends (docs/design/architecture.md): where a recording's records and
 * the threads' usage come from.  A backend is one struct backend_ops:
 * lwprof.ko (module/, /dev/lwprof) or perf_event_open(2) (perf/, for
 * machines without the module).  Its record part (struct rec_ops) puts
 * records (uapi/lwprof_record.h) into rings that collect's drain writes
 * out, one ring to one cpu.N.rec file; its usage part (struct usage_ops)
 * reads every thread's microstates and counts for ptime and top.  The
 * commands pick one (backend_parse(), backend_resolve(): --backend
 * module|perf|auto) and see only this interface.  Also here: what the
 * backends share (the usage set they fill, perf_event_open(2), /proc).
 *
 * Operations that can fail return 0 or a negative errno and, where they
 * take one, a whole one-line message in msg (len bytes).  Warnings and
 * what log.txt should say go into the experiment: exp_warn(), exp_note().
 */
#ifndef LWPROF_BACKEND_H
#define LWPROF_BACKEND_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "libexp/writer.h"
#include "lwprof.h"

struct backend_ops;

/* ---- what a recording asks for (lwprof collect's options) ---- */

enum collect_mode { MODE_COMMAND, MODE_ATTACH, MODE_MACHINE };

struct rec_opts {
	enum collect_mode mode;
	__u64 clock_ns;		/* -p; 0 = off */
	unsigned int nr_counters;
	struct exp_counter counters[LWPROF_MAX_COUNTERS];	/* -h */
	const char *output;	/* -o NAME.er */
	const char *dir;	/* -d DIR */
	int pid;		/* -P */
	__u64 duration_ns;	/* -t; 0 = none */
	bool kstack;		/* -K (and --kernel-only) */
	bool konly;		/* --kernel-only: kernel stacks, no user copies */
	bool idle, idle_set;	/* --idle on|off (set), or -a's default */
	bool irq, irq_set;	/* --irq on|off (set), or -a -K's default */
	__u32 stack_bytes;	/* -S */
	bool stack_set;		/* -S given */
	bool no_sdelta;		/* --stack-delta off */
	__u32 depth;		/* --depth */
	__u64 sample_ns;	/* -S: global sample packets every, 0 = off */
	int sig_sample;		/* -l SIGNAL, or 0 */
	int sig_pause;		/* -y SIGNAL, or 0 */
	bool start_paused;	/* -y without ,r: paused until the signal */
	__u64 limit_bytes;	/* -L: stop recording past it; 0 = none */
	__u64 start_ns;		/* -t START-END: paused until START */
	__u64 flight_bytes;	/* --flight SIZE: keep the last SIZE bytes */
	__u64 flight_ns;	/* --flight SECONDS: ... the last SECONDS */
	int sig_flight;		/* --flight's snapshot signal */
	__u32 ring_pages;	/* -m, or the default */
	bool ring_pages_set;	/* -m given: that size or none */
	char **argv;		/* CMD [ARGS], or NULL */
	/* tracing (docs/design/tracing.md) */
	bool clock_set;		/* -p given */
	bool heap;		/* -H on */
	bool io;		/* -i on */
	enum { SYNC_OFF, SYNC_CALIBRATE, SYNC_THRESHOLD } sync;	/* -s */
	__u64 sync_ns;		/* -s all: 0, -s N: N us */
	int java;		/* -j: 1 on, -1 off, 0 on for a JVM */
	const struct backend_ops *backend;	/* --backend; NULL: auto */
	/* OpenMP (docs/guide/openmp.md, userspace/collect/omp.c) */
	enum { OMP_AUTO, OMP_ON, OMP_OFF } omp;	/* --omp */
	bool omp_llvm;		/* --omp-runtime llvm */
	bool omp_on;		/* the OMPT tool starts (--omp, or what auto found) */
	int omp_rt;		/* the runtime the program links (omp.c's RT_*) */
	/* -M: MPI tracing (docs/guide/mpi.md), for this implementation */
	enum { MPI_OFF, MPI_ON, MPI_OPENMPI, MPI_MPICH } mpi;
};

#define COLLECT_TRACE_STACK	2048	/* bytes of stack per traced call */

static inline bool rec_tracing(const struct rec_opts *o)
{
	return o->heap || o->io || o->sync != SYNC_OFF || o->omp_on ||
	       o->mpi != MPI_OFF;
}

/* ---- recording: struct rec_ops ---- */

struct lwprof_usage_set;

/*
 * The record part calls, in this order: open (before the experiment
 * exists), setup (the target is known; rings and poll_fd set), start, any
 * number of usage and sync, stop, usage, finish, and close (also after a
 * failure at any step, and then only close).
 */

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
	const struct rec_ops *ops;
	/* Set by setup: */
	struct rec_ring *rings;	/* one per cpu.N.rec file */
	unsigned int nr_rings;
	int poll_fd;		/* readable when the rings want draining, or
				 * -1: drained by the timed flush only */
	__u64 flush_ns;		/* the timed flush's period; 0: 250 ms */
	__u32 abi_major;	/* the records' ABI, for the files' headers */
	__u32 abi_minor;
};

struct rec_ops {
	const char *name;
	/* Can this source record what o asks for here?  *sp on success. */
	int (*open)(const struct rec_opts *o, struct rec_source **sp,
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

/* ---- thread usage: the set a backend fills, struct usage_ops ---- */

/*
 * The columns a backend fills (lwprof_usage_set.have): one bit per
 * microstate (LWPROF_HAVE_MS(LWPROF_MS_*)), then the counts.  The module
 * fills them all; a column without its bit is absent and shown as "-".
 */
#define LWPROF_HAVE_MS(ms)	(1u << (ms))
#define LWPROF_HAVE_VCSW	(1u << 10)
#define LWPROF_HAVE_IVCSW	(1u << 11)
#define LWPROF_HAVE_MINFLT	(1u << 12)
#define LWPROF_HAVE_MAJFLT	(1u << 13)
#define LWPROF_HAVE_SYSCALLS	(1u << 14)
#define LWPROF_HAVE_SIGNALS	(1u << 15)
#define LWPROF_HAVE_ALL		0xffffu

/*
 * A record's flag of our own (above the uapi's LWPROF_TU_*): its syscall
 * and signal counts are unknown though its backend has them (a thread
 * that could not be counted).  lwprof_usage_have() applies it.
 */
#define LWPROF_TU_NOCOUNT	(1u << 31)

/* The columns filled for one record of a set. */
static inline __u32 lwprof_usage_have(__u32 have,
				      const struct lwprof_thread_usage *tu)
{
	if (tu->flags & LWPROF_TU_NOCOUNT)
		have &= ~(LWPROF_HAVE_SYSCALLS | LWPROF_HAVE_SIGNALS);
	return have;
}

/*
 * The threads of a session, sorted by pid, tid, start_ns.  A thread is
 * identified by (pid, tid, start_ns), so a recycled tid is another thread.
 * A later record of a thread replaces the earlier one; final (EXITED)
 * records are only ever returned once by the module, so the set keeps them.
 */
struct lwprof_usage_set {
	struct lwprof_thread_usage *tu;
	size_t n;
	size_t cap;
	__u32 live;		/* from the last read */
	__u64 lost;		/* from the last read */
	__u64 now_ns;		/* from the last read */
	__u32 have;		/* LWPROF_HAVE_* of the last read */
	__u32 stopped;		/* ABI 1.7: LWPROF_STOP_* once another session ended it */
};

/* Sums over a set's threads (or one thread). */
struct lwprof_usage_sum {
	__u64 ms[LWPROF_MS_COUNT];
	__u64 vcsw, ivcsw, minflt, majflt, syscalls, signals;
};

/*
 * The microstates in the order ptime and top show them (Solaris's ptime
 * -m order): user sys trap tflt dflt kflt lock slp lat stop.
 */
extern const int lwprof_ms_order[LWPROF_MS_COUNT];

/* Parse a positive process id; -EINVAL if s is not one. */
int lwprof_parse_pid(const char *s, int *pid);

/* Format ns as seconds with 9 decimals ("12.000000345") into buf. */
char *lwprof_fmt_sec(char *buf, size_t len, __u64 ns);

void lwprof_usage_init(struct lwprof_usage_set *set);
void lwprof_usage_free(struct lwprof_usage_set *set);

/* Drop every thread from the set. */
void lwprof_usage_clear(struct lwprof_usage_set *set);

/* Add n records to the set; keep one, the newest, per thread. */
int lwprof_usage_merge(struct lwprof_usage_set *set,
		       const struct lwprof_thread_usage *tu, size_t n);

/*
 * Hand the set's exited threads to put (runs of n records) and drop them
 * from the set, which keeps the live ones: their records are final, and
 * the module returns each only once.  On put's error the records not
 * handed over stay in the set; the error is returned.
 */
int lwprof_usage_spill(struct lwprof_usage_set *set,
		       int (*put)(void *arg,
				  const struct lwprof_thread_usage *tu,
				  size_t n),
		       void *arg);

/* The thread (pid, tid, start_ns) in set, or NULL. */
const struct lwprof_thread_usage *
lwprof_usage_find(const struct lwprof_usage_set *set,
		  const struct lwprof_thread_usage *key);

/* Add one thread's usage to sum (a = tu) or its growth since old. */
void lwprof_usage_add(struct lwprof_usage_sum *sum,
		      const struct lwprof_thread_usage *tu,
		      const struct lwprof_thread_usage *old);

/*
 * Make the threads of set that are also in base count from base's record:
 * subtract its times and counts, and start at its end_ns.
 */
void lwprof_usage_rebase(struct lwprof_usage_set *set,
			 const struct lwprof_usage_set *base);

/* end_ns - start_ns of thread tid, or of the whole set if tid is absent. */
__u64 lwprof_usage_real(const struct lwprof_usage_set *set, int tid);

/* Room for want records in *v (*cap of them): 0 or -ENOMEM. */
int lwprof_usage_grow(struct lwprof_thread_usage **v, size_t *cap,
		      size_t want);

/* Why pid may not be traced (no ptrace rights), and what would allow it. */
const char *lwprof_ptrace_refusal(int pid, char *buf, size_t len);

/* A backend's usage session is its own (void *). */
struct usage_ops {
	/*
	 * Its readings are polls of /proc: a thread that exits between two
	 * keeps its last reading unless the kernel says more, and a process
	 * has counted since it started, not since attach (else the backend
	 * keeps every thread's totals from attach on, as the module does).
	 */
	bool polled;
	/*
	 * Open a session (0 or -errno), and what to say of an error from
	 * it: both backends' one-line message.
	 */
	int (*open)(void **sp);
	const char *(*open_strerror)(int err);
	/* Attach to process pid, or to the machine with LWPROF_ATTACH_MACHINE. */
	int (*attach)(void *s, __u32 flags, int pid);
	/*
	 * What to say of an error from attach but a refusal (EPERM, EACCES:
	 * the rules are the same for both backends).
	 */
	const char *(*attach_strerror)(int err, __u32 flags, int pid,
				       char *buf, size_t len);
	/* Read the session's threads and merge them into set (set->have). */
	int (*read)(void *s, struct lwprof_usage_set *set);
	/* NULL, or what it fills and how, for the log (one line in buf). */
	const char *(*note)(void *s, char *buf, size_t len);
	void (*close)(void *s);
};

/* ---- the backends ---- */

struct backend_ops {
	const char *name;	/* as --backend spells it */
	/*
	 * Can it run here?  0, or a negative errno and why (len bytes):
	 * --backend auto takes the first backend that can.
	 */
	int (*probe)(char *why, size_t len);
	const struct rec_ops *rec;	/* collect's */
	const struct usage_ops *usage;	/* ptime's and top's */
};

/*
 * backends.c: "module", "perf" or "auto" (*b NULL) into *b; -EINVAL for
 * anything else.  Resolve want (NULL: auto, the first that can run; why
 * then says what stopped the others, for the log, else is empty).
 */
int backend_parse(const char *s, const struct backend_ops **b);
const struct backend_ops *backend_resolve(const struct backend_ops *want,
					  char *why, size_t len);

/*
 * A usage session of a resolved backend, as ptime and top use it: open
 * (want: as backend_resolve()), attach, read; the message of an error
 * from open (lwprof_src_open_strerror()) or attach; the log line (what
 * the backend fills, and why auto chose it; none for the module, which
 * fills everything).
 */
struct lwprof_usage_src {
	const struct backend_ops *be;
	void *s;
	char why[128];		/* auto chose another than the first: why */
};

int lwprof_src_open(struct lwprof_usage_src *u, const struct backend_ops *want);
const char *lwprof_src_open_strerror(const struct lwprof_usage_src *u,
				     int err);
int lwprof_src_attach(struct lwprof_usage_src *u, __u32 flags, int pid);
int lwprof_src_read(struct lwprof_usage_src *u, struct lwprof_usage_set *set);
const char *lwprof_src_strerror(const struct lwprof_usage_src *u, int err,
				__u32 flags, int pid, char *buf, size_t len);
void lwprof_src_log(const struct lwprof_usage_src *u, const char *cmd);
void lwprof_src_close(struct lwprof_usage_src *u);

/* ---- shared: perf_event_open(2) (pevent.c), /proc (proc.c) ---- */

/* An attr for event (type, config), hypervisor excluded, all else 0. */
void pevent_attr(struct perf_event_attr *a, __u32 type, __u64 config);

/* perf_event_open(a, pid, cpu, group), close-on-exec: fd or -errno. */
int pevent_open(struct perf_event_attr *a, int pid, int cpu, int group);

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

/* What one reading of a thread (or one exit record) says. */
struct proc_thr {
	__u32 pid, tid, ppid;
	char state;
	char comm[16];
	__u64 start_ns, life_ns;
	__u64 tick_ns;		/* start by /proc's starttime */
	__u64 read_ns;		/* when its schedstat was read */
	__u64 run_ns, delay_ns, utime, stime;
	__u64 vcsw, ivcsw, minflt, majflt;
};

/* CLOCK_BOOTTIME in ns: /proc's starttime counts from boot. */
__u64 proc_boot_ns(void);

/* Whether the capability is in our effective set (capget(2)). */
bool proc_has_cap(int cap);

/*
 * Ptrace read rights over pid, as the kernel checks them for /proc/PID/io:
 * -EACCES without, -ESRCH without such a process.
 */
int proc_may_trace(int pid);

/* Read a small file at dir/name (dir may be AT_FDCWD) into buf. */
int proc_read_at(int dir, const char *name, char *buf, size_t len);

/*
 * Parse a stat line into t (comm, state, ppid, faults, utime, stime) and
 * *start_tick (starttime in clock ticks since boot).
 */
int proc_parse_stat(const char *s, struct proc_thr *t, __u64 *start_tick);

/* Read the thread whose /proc/PID/task/TID directory is dir into t. */
int proc_read_thread(int dir, __u64 tick_ns, struct proc_thr *t);

/*
 * t as a usage record ending at end_ns: run time split as the kernel
 * splits it, SLEEP the rest of its life.
 */
void proc_to_usage(const struct proc_thr *t, __u64 end_ns, __u32 flags,
		   struct lwprof_thread_usage *tu);

#endif
