/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwprof collect's engine (docs/design/architecture.md): its options and
 * counters, the loop that drives a backend's record part (run.c) and
 * drains its rings with io_uring (drain.c) into the experiment
 * (libexp/writer.h), the archives, the sample points, the collector API's
 * channel, the flight recorder and tracing.  It sees a backend through
 * backend/backend.h only.  Every function returns 0 (or a count) or a
 * negative errno; none exits.
 */
#ifndef LWPROF_COLLECT_H
#define LWPROF_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "libexp/format.h"
#include "libexp/writer.h"
#include "lwprof.h"
#include "userspace/backend/backend.h"

#define COLLECT "lwprof collect"

#define COLLECT_CLOCK_ON_NS	10000000ULL	/* -p on: 10 ms */
#define COLLECT_CLOCK_HI_NS	1000000ULL	/* -p hi: 1 ms */
#define COLLECT_CLOCK_LO_NS	100000000ULL	/* -p lo: 100 ms */
#define COLLECT_STACK_DEFAULT	8192		/* bytes of user stack */
/*
 * Ring data pages per CPU: 1 MiB, four times the module's default, since
 * a sample with its 8 KiB stack copy is about 8.5 KB: bursts of counter
 * overflows (page faults at exec) would fill 256 KiB in a few hundred us.
 * A user the module lets lock less gets the most it allows
 * (backend/module/ringsize.c).
 */
#define COLLECT_RING_PAGES	256
#define COLLECT_SAMPLE_NS	1000000000ULL	/* -S on: a packet a second */
#define COLLECT_FLIGHT_CAP	(256ULL << 20)	/* --flight SECONDS: at most */

/* opts.c: parse argv; 0, or 2 (usage error, said) or 1. */
int collect_parse(int argc, char **argv, struct rec_opts *o);
void collect_usage(FILE *f);

/* Parse "10ms", "2.5" (ms), "500us", "1s", "200ns" into ns. */
int collect_parse_time(const char *s, const char *bare_unit, __u64 *ns);

/* counters.c */
/* Parse one -h argument and append its counters to o; msg on error. */
int counters_parse(const char *arg, struct rec_opts *o, char *msg,
		   size_t len);
/* lwprof collect -h: the lists for this machine. */
void counters_list(FILE *f);
/* "cycles, insts, ..." for error messages. */
void counters_names(FILE *f);

/* archive.c: copying one load object into archives/. */
struct amap {
	__u32 maj, min;
	__u64 ino;
	char *path;		/* as mapped; "[vdso]" for the vDSO */
	__u32 pid;		/* a process that mapped it, at ... */
	__u64 start, end;	/* ... these addresses */
	int fd;			/* the file, held open; or -1 */
	int err;		/* why it could not be opened, or 0 */
	struct exp_archive arch;	/* its index.txt entry, once archived
					 * (arch.file set; arch.orig is path) */
	char *warn;		/* or why it was not */
	bool other;		/* mapped by a process not the command's */
	__u64 child_ns;		/* the command's last MMAP record of it */
};
/* Open a's file now and keep it (a->fd), or say why not (a->err). */
void archive_pin(struct amap *a);
/* Set a->line, or a->warn; adir is the archives/ directory. */
void archive_one(int adir, struct amap *a);
void archive_vdso(int adir, struct amap *a);
/* With -K: copies of /proc/kallsyms and /proc/modules; warnings go to e. */
void archive_kallsyms(struct exp_writer *e);

/*
 * archiver.c: archives/.  start (archives/; child: the command's process,
 * or 0), rec (an MMAP or TASK record the drain saw: a mapping's file is
 * opened and held; the command's first exec is noted), finish (with
 * rescan: look for those records in the files too, when the drain may
 * have missed some; copy every file mapped by the command after its exec
 * or by another process, index.txt, warnings to e; frees), cancel (free,
 * for a run that never started).
 */
struct archiver;
int archiver_start(struct exp_writer *e, int child, struct archiver **ap);
void archiver_rec(struct archiver *a, const struct lwprof_rec *rec);
int archiver_finish(struct archiver *a, bool rescan);
void archiver_cancel(struct archiver *a);

/* The drain (drain.c): rings[i] into the file fds[i]. */
struct drain;
struct io_uring;
struct io_uring_sqe;
struct rec_ring;

int drain_create(struct drain **dp, const struct rec_ring *rings,
		 unsigned int nr, const int *fds);
/*
 * Call fn(arg, rec) for each record of the types in the mask (bit
 * LWPROF_REC_*) as the drain first sees it (before its write is queued),
 * rec whole even where it wraps at the ring's end.
 */
void drain_watch(struct drain *d, unsigned int types,
		 void (*fn)(void *arg, const struct lwprof_rec *rec),
		 void *arg);
/* Was a record of a watched type (maybe) not shown to the watcher? */
bool drain_watch_missed(const struct drain *d);
/* Queue writes for everything the rings hold; submits. */
int drain_kick(struct drain *d);
/* Handle a write completion (the cqe's user_data and res). */
int drain_complete(struct drain *d, __u64 data, int res);
/* Writes in flight. */
unsigned int drain_busy(const struct drain *d);
/* Bytes queued but not written: is everything out? */
bool drain_empty(struct drain *d);
__u64 drain_bytes(const struct drain *d);
void drain_destroy(struct drain *d);
struct io_uring *drain_ring(struct drain *d);
/* An SQE, submitting what is queued if the ring is full; NULL if none. */
struct io_uring_sqe *drain_sqe(struct io_uring *ring);

/*
 * points.c: the sample points, global sample packets (libexp/format.h, EXP_REC_GSAMPLE) of
 * process pid's statistics, into e's samples.rec or, with sink set, to
 * sink (the flight recorder); and the pause state they mark.  Once halted
 * (gs_end), no packet is made.
 */
struct gsamp {
	struct exp_writer *e;
	int pid;		/* whose statistics; 0: none */
	void (*sink)(void *arg, const void *rec, size_t size);
	void *sink_arg;
	bool paused, halted;
	__u64 paused_at;	/* when the pause began */
	__u64 paused_ns;	/* paused before paused_at */
	__u64 last_from, last_to;	/* the last pause that ended: [from, to) */
	__u64 packets;
	struct exp_rec_gsample last;	/* the statistics last read */
	bool has_last;
	struct gs_thr *thr;	/* each thread's switches as last read, by tid */
	size_t nthr;
};

/* A thread's context switches as last read, and its runs then. */
struct gs_thr {
	int tid;
	unsigned long long runs, nvcsw, nivcsw;
};

void gs_refresh(struct gsamp *gs);
int gs_emit(struct gsamp *gs, int kind, __u64 t, const char *name);
int gs_pause(struct gsamp *gs, __u64 t, const char *name);
int gs_resume(struct gsamp *gs, __u64 t, const char *name);
int gs_toggle(struct gsamp *gs, __u64 t, const char *name);
int gs_end(struct gsamp *gs, __u64 t, const char *name);

/*
 * ctl.c: the collector API's channel (collector/proto.h).  ctl_open makes
 * it; ctl_child, in the child before its exec, leaves its end open and
 * names it in the environment (with the preloaded library when -l or -y
 * signals are to be caught in the target); ctl_read reads a message: 1,
 * 0 when there is none, or -errno.
 */
struct lwprof_ctl_msg;
struct ctl {
	int fd, child_fd;
	char *preload;		/* liblwprof_collector.so's path, or NULL */
};
int ctl_open(struct ctl *c, const struct rec_opts *o);
void ctl_child(struct ctl *c, const struct rec_opts *o);
int ctl_read(struct ctl *c, struct lwprof_ctl_msg *m);
/*
 * Do what message m asks of gs (its time kept within [start, now]): 0,
 * 1 if it asks to end recording (collector_terminate_expt), or -errno.
 */
int ctl_apply(struct gsamp *gs, const struct rec_opts *o,
	      const struct lwprof_ctl_msg *m, __u64 start, __u64 now);
void ctl_close(struct ctl *c);

/*
 * flight.c: the flight recorder (--flight): the rings' records copied
 * into memory, the last SIZE bytes or SECONDS kept (flight_take, at every
 * drain), but for samples wholly in gs's pause under way; flight_gs is gsamp's sink; flight_write makes the window an
 * experiment of its own, named after -o (NAME.er, NAME.2.er, ...) or the
 * first free test.N.er, with tmpl's settings and notes.
 */
struct flight;
int flight_create(struct flight **fp, const struct rec_opts *o,
		  const struct rec_ring *rings, unsigned int nr,
		  const struct gsamp *gs);
void flight_take(struct flight *f, __u64 now);
void flight_gs(void *arg, const void *rec, size_t size);
int flight_write(struct flight *f, const struct exp_writer *tmpl,
		 const struct rec_opts *o, int child, __u32 abi_major,
		 __u32 abi_minor, const struct gsamp *gs, __u64 now);
void flight_destroy(struct flight *f);

/* user_data of the SQEs of the collect loop: kind in the top byte. */
#define UD_KIND(ud)	((unsigned int)((ud) >> 56))
#define UD_MAKE(k, v)	(((__u64)(k) << 56) | (v))
enum {
	UD_POLL = 1, UD_SIGNAL, UD_FLUSH, UD_PIDFD, UD_DEADLINE, UD_WRITE,
	UD_SETTLE, UD_CTL, UD_GSAMPLE, UD_TSTART,
};

/* trace.c: collect -s/-H/-i, collect's side of tracing (docs/design/tracing.md) */
/*
 * Before the experiment exists: can the command be traced (the library
 * is there, the command is not static or set-user-ID)?  0, or -errno and
 * the reason in msg.
 */
int collect_trace_check(const struct rec_opts *o, char *msg, size_t len);
/*
 * The experiment exists: calibrate the sync threshold, set this
 * process's environment for the command (LD_PRELOAD, LWPROF_TRACE,
 * LWPROF_TRACE_DIR) and note the settings for log.txt.  source_tasks:
 * the recording source writes the processes' TASK and MMAP records (the
 * module does), so the library must not write them again.
 */
int collect_trace_env(const struct rec_opts *o, struct exp_writer *e,
		      bool source_tasks, char *msg, size_t len);
/* The command is done: check, count and archive the trace files. */
void collect_trace_adopt(const struct rec_opts *o, struct exp_writer *e,
			 struct archiver *a);

/*
 * omp.c: after parsing, whether the OMPT tool starts (o->omp_on) and
 * the runtime the program links; with the experiment, the command's
 * environment for --omp-runtime llvm and log.txt's words (0, or -errno
 * and msg); a trace file's record, for log.txt: 1 if it was a runtime's.
 */
int collect_omp_resolve(struct rec_opts *o);
int collect_omp_env(const struct rec_opts *o, struct exp_writer *e,
		    const char *expdir, char *msg, size_t len);
int collect_omp_adopt(struct exp_writer *e, const struct lwprof_rec *rec);

/*
 * java.c: collect -j, the JVMTI agent in a JVM (docs/guide/java.md).
 * check: before the experiment exists, can the agent be given as asked
 * (0, or -errno and msg); env: the experiment exists: the command's argv
 * to exec (o->argv, or a new one with the agent's options) and its
 * environment, noted in log.txt; adopt: the command is done: count the
 * agent's files.
 */
int collect_java_check(const struct rec_opts *o, char *msg, size_t len);
int collect_java_env(const struct rec_opts *o, struct exp_writer *e,
		     char ***argv, char *msg, size_t len);
void collect_java_adopt(const struct rec_opts *o, struct exp_writer *e);

/*
 * adopt.c: the record files of ids [lo, hi) that a library in the
 * command wrote, read through the one reader: each record to fn (if
 * any), the records added to e's count, damage warned of (what: the
 * warning's subject); the number of files.
 */
struct exp_reader;
typedef void collect_adopt_fn(void *arg, const struct exp_reader *f,
			      const struct lwprof_rec *rec);
unsigned long long collect_adopt(struct exp_writer *e, uint32_t lo,
				 uint32_t hi, const char *what,
				 collect_adopt_fn *fn, void *arg);

/* trace_only.c: the record part of a run that only traces: no rings */
extern const struct rec_ops collect_trace_only;

/*
 * selfdir.c: the files installed beside the lwprof program: the analyzer
 * and the tracing library in the same directory (the build tree) or
 * ../libexec/lwprof/ (make install), the collector library in the same
 * directory or ../lib/.
 */
/*
 * The first of DIR/rel[i]/NAME (DIR: the directory of /proc/self/exe,
 * rel[i] "" or ending in '/') that access(mode) allows, into path; 0, or
 * -ENOENT with path set to the first candidate, or another -errno.
 */
int lwprof_selfdir_find(const char *name, const char *const *rel, size_t nrel,
			int mode, char *path, size_t len);
/* cmd as execvp would find it (PATH), into path: 0 or -errno. */
int lwprof_which(const char *cmd, char *path, size_t len);

/*
 * mpi.c: collect -M (docs/guide/mpi.md).  collect_mpi_parse() reads -M's
 * argument.  collect_mpi_prepare() (argv: collect's own, o parsed from
 * it): with the launcher's form (LAUNCHER ARGS -- PROG ARGS) it runs the
 * launcher with each rank under collect, makes the founder experiment
 * and returns the exit status (> 0, or -1 for 0); else it checks that
 * the command is an MPI program, resolves -M on to its implementation,
 * and returns 0 to record it.  collect_mpi_rank(): this process's rank
 * under a launcher, or -1.  collect_mpi_create(): the experiment of a
 * rank given -o: NAME.er/M_rRANK.er.  collect_mpi_lib(): the wrapper
 * library for o's implementation.
 */
int collect_mpi_parse(const char *arg, struct rec_opts *o);
int collect_mpi_prepare(int argc, char **argv, struct rec_opts *o);
int collect_mpi_rank(void);
int collect_mpi_create(struct exp_writer *e, const struct rec_opts *o,
		       char *path, size_t len);
int collect_mpi_lib(const struct rec_opts *o, char *path, size_t len);
const char *collect_mpi_name(const struct rec_opts *o);

/* run.c: record what o asks for with rec; the exit status. */
int collect_run(const struct rec_opts *o, const struct rec_ops *rec);

#endif
