/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An experiment directory opened whole (docs/design/experiment-format.md): what
 * every command that reads experiments starts from.  exp_open() reads
 * log.txt through the key table the writer writes it with (exp_keys[]:
 * one table, both directions), usage.txt and archives/index.txt, and
 * lists the record files; the copies of /proc/kallsyms and /proc/modules
 * are read on demand.  Record files are opened by their id and read
 * through libexp/reader.h; delta stack copies are rebuilt by the
 * experiment's tracker (libexp/stack.h).
 *
 * Every function returns 0 or a negative errno.  An experiment is opened
 * even when exp_open() fails (but for want of memory: *xp NULL): exp_msg()
 * then says what went wrong ("PATH: line N (byte B): what"), and it is
 * closed all the same.
 */
#ifndef LWPROF_LIBEXP_EXP_H
#define LWPROF_LIBEXP_EXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"

/* ---- log.txt: "key = value" lines after "lwprof experiment MAJOR.MINOR" ---- */

/*
 * Its keys, in the order the writer puts the fixed ones; the notes
 * (exp_note()) follow in the order the recorder adds them.  A reader
 * skips a key it does not know (a later minor's).
 */
enum exp_key {
	EXP_K_COMMAND,		/* the command line, shell-quoted words */
	EXP_K_MODE,		/* command, attach, machine */
	EXP_K_TARGET,		/* the process recorded */
	EXP_K_HOST, EXP_K_KERNEL, EXP_K_ARCH,	/* uname -n, -r, -m */
	EXP_K_CPUS,		/* online */
	EXP_K_CPUS_POSSIBLE,	/* cpu.N.rec files */
	EXP_K_CPU_MHZ,		/* harmonic mean of the CPUs' clock rates */
	EXP_K_CLOCK,		/* the records' clock: CLOCK_MONOTONIC */
	EXP_K_START_NS, EXP_K_START_TIME,	/* ns of clock, and UTC */
	EXP_K_END_NS, EXP_K_END_TIME,	/* once the recording finished */
	EXP_K_CLOCK_INTERVAL_NS,	/* clock profiling's, 0: off */
	EXP_K_COUNTER,		/* NAME,PERIOD,TYPE,CONFIG: one per counter */
	EXP_K_MAX_DEPTH, EXP_K_STACK_BYTES, EXP_K_KERNEL_STACKS,
	EXP_K_RECORDS, EXP_K_LOST,	/* written, dropped */
	EXP_K_LOST_CPU,		/* lost.cpuN: dropped by file N */
	EXP_K_EXIT,		/* status N, signal N SIGNAME [core], exited, running */
	EXP_K_WARNING,		/* one per warning */
	/* the recorder's notes */
	EXP_K_BACKEND,		/* module, perf (none: module) */
	EXP_K_ABI,		/* the records' ABI, MAJOR.MINOR */
	EXP_K_MODULE_VERSION,
	EXP_K_STACK_DELTA,	/* 1: delta stack copies */
	EXP_K_RING_PAGES,
	EXP_K_OFFCPU, EXP_K_IDLE, EXP_K_IRQ, EXP_K_KERNEL_ONLY,	/* 1.3: 1 */
	EXP_K_METRIC,		/* NAME exact|approximate|absent: why */
	EXP_K_PERF_EVENT_PARANOID, EXP_K_OFFCPU_STACKS, EXP_K_OFFCPU_WAKEUPS,
	EXP_K_PERF_MAX_STACK, EXP_K_PERF_SAMPLES, EXP_K_PERF_SWITCHES,
	EXP_K_PERF_WAKEUPS, EXP_K_PERF_PROC_SCAN,
	EXP_K_KALLSYMS_HIDDEN,	/* 1: /proc/kallsyms showed no addresses */
	EXP_K_SOURCE,		/* "tracing only" */
	EXP_K_TRACE,		/* what was traced: heap, sync, io */
	EXP_K_SYNC_CALIBRATION, EXP_K_SYNC_THRESHOLD_NS,
	EXP_K_TRACE_STACK_BYTES, EXP_K_TRACE_LIBRARY,
	EXP_K_TRACE_FILES, EXP_K_TRACE_CALLS,
	EXP_K_STOPPED,		/* 1.4: why recording stopped early */
	EXP_K_SAMPLE_PACKETS, EXP_K_PAUSED_NS,
	EXP_K_FLIGHT,		/* 1.4: the flight recorder's window */
	EXP_K_FLIGHT_PAUSED_OUT,
	EXP_K_JAVA,		/* 1.7: collect -j on: how the JVM was started */
	EXP_K_JAVA_AGENT, EXP_K_JAVA_FILES, EXP_K_JAVA_RECORDS,
	EXP_K_OPENMP,		/* 1.8: collect's OpenMP decision */
	EXP_K_OPENMP_RUNTIME,	/* 1.8: a runtime that started the OMPT tool */
	EXP_K_MPI,		/* 1.9: collect -M: the MPI implementation */
	EXP_K_MPI_RANK,		/* 1.9: the process's rank (its launcher's) */
	EXP_K_MPI_LIBRARY,
	EXP_K_COUNT
};

/* How a key's value is read into struct exp_info. */
enum exp_key_type {
	EXP_KT_NOTE,		/* kept in no field */
	EXP_KT_STR,		/* char * */
	EXP_KT_U32,		/* uint32_t, decimal or 0x hex */
	EXP_KT_U64,		/* uint64_t */
	EXP_KT_DOUBLE,
	EXP_KT_COUNTER,		/* appended to counters[] */
	EXP_KT_METRIC,		/* appended to metrics[], absent ones in ms_absent */
	EXP_KT_WARNING,		/* appended to warnings[] */
};

struct exp_key_def {
	const char *name;	/* as log.txt spells it */
	enum exp_key_type type;
	size_t off;		/* of its field in struct exp_info */
};

/* Indexed by enum exp_key. */
extern const struct exp_key_def exp_keys[EXP_K_COUNT];

/* One counter profiled: "counter = NAME,PERIOD,TYPE,CONFIG". */
struct exp_counter {
	char name[64];		/* as given (alias, perf name or r<hex>) */
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;
	uint64_t period;
};

/* What log.txt says; a key it lacks leaves its field 0 or NULL. */
struct exp_info {
	int fmt_major, fmt_minor;
	char *command, *mode, *host, *kernel, *arch, *start_time, *end_time;
	char *abi, *module_version, *exit, *backend;
	char *stopped;		/* 1.4: why recording stopped early */
	char *flight;		/* 1.4: the flight recorder's window */
	char *trace, *sync_calibration;	/* what was traced, how */
	char *mpi, *mpi_rank;	/* 1.7: collect -M's implementation, the rank */
	uint32_t target, cpus, cpus_possible;
	uint32_t max_depth, stack_bytes, kernel_stacks;
	uint32_t perf_max_stack;	/* perf's cap of max_depth, or 0 */
	uint32_t kallsyms_hidden;	/* the recorder saw only zero addresses */
	uint32_t trace_stack_bytes;
	double cpu_mhz;
	uint64_t start_ns, end_ns, clock_interval_ns, records, lost;
	uint64_t sync_ns;	/* sync_threshold_ns, or UINT64_MAX: none */
	uint64_t trace_files, trace_calls;	/* as collect counted them */
	uint64_t sample_packets, paused_ns;	/* 1.4: samples.rec's, paused */
	char *java;		/* 1.7: collect -j on's JVM options */
	struct exp_counter *counters;
	size_t nr_counters;
	char **warnings;
	size_t nr_warnings;
	char **metrics;		/* "NAME STATUS: why" (the perf backend's) */
	size_t nr_metrics;
	uint32_t ms_absent;	/* bit LWPROF_MS_*: its metric is absent */
};

/* ---- usage.txt: the threads' precise totals ---- */

struct exp_usage {
	uint32_t pid, tid, ppid, flags;
	uint64_t start_ns, end_ns;
	uint64_t ms[LWPROF_MS_COUNT];
	uint64_t vcsw, ivcsw, minflt, majflt, syscalls, signals;
	char comm[64];
};

/* ---- archives/: copies of the load objects, index.txt lists them ---- */

/*
 * An index line: BUILDID|-  MAJOR:MINOR  INODE  SIZE  ARCHIVED_NAME
 * ORIGINAL_PATH, ARCHIVED_NAME relative to archives/.
 */
struct exp_archive {
	char buildid[2 * 64 + 1];	/* hex, "-" when none */
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	char *file;		/* read: the copy's path; written: ARCHIVED_NAME */
	char *orig;		/* the mapped file's path ("[vdso]") */
};

/*
 * ARCHIVED_NAME of an object's copy (len bytes at name): BUILDID/BASE, or
 * without a build-id (buildid NULL) nobuildid/MAJOR-MINOR-INODE/BASE.
 */
void exp_archive_name(char *name, size_t len, const char *buildid,
		      uint32_t maj, uint32_t min, uint64_t ino,
		      const char *base);

/* ---- the directory ---- */

/*
 * Record files are named by an id: cpu.N.rec is N, the i-th trace file
 * (trace.PID.rec, trace.PID.G.rec, as the directory lists them)
 * EXP_FILE_TRACE + i, the i-th Java agent's file (java.PID.rec)
 * EXP_FILE_JAVA + i, samples.rec EXP_FILE_SAMPLES.
 */
#define EXP_FILE_TRACE		0x40000000u
#define EXP_FILE_JAVA		0x50000000u
#define EXP_FILE_SAMPLES	0x7fffffffu

struct exp_file {
	uint32_t id;
	char *name;		/* in the directory */
	char *path;		/* the directory's path, then name */
};

/*
 * The record files of directory dirfd (path: how messages name it):
 * cpu.N.rec by N, then the trace files; *v malloc'd, free with
 * exp_files_free().  samples.rec is not listed.
 */
int exp_files_list(int dirfd, const char *path, struct exp_file **v,
		   size_t *n);
void exp_files_free(struct exp_file *v, size_t n);

struct exp;
typedef void exp_warn_fn(void *arg, const char *msg);

/* exp_open(): damage in log.txt, usage.txt or index.txt is a warning
 * (warn gets it) and the rest is read, for lwprof dump. */
#define EXP_OPEN_DAMAGED	0x1

/*
 * Open the experiment at dir (as given: messages name its files so): its
 * log, usage rows, archive index and record files.  A missing usage.txt
 * or index.txt is none; a missing log.txt is an error.
 */
int exp_open(struct exp **xp, const char *dir, unsigned int flags,
	     exp_warn_fn *warn, void *warn_arg);
/*
 * Show the reading of the experiment's record files on progress line p
 * (libexp/progress.h): a phase of their bytes, which every reader
 * exp_file_open() opens adds to as it reads on (not its jumps).
 */
struct exp_progress;
void exp_progress_attach(struct exp *x, struct exp_progress *p);
/* What went wrong at exp_open(). */
const char *exp_msg(const struct exp *x);
void exp_close(struct exp *x);

const char *exp_dir(const struct exp *x);
const struct exp_info *exp_info(const struct exp *x);
/* usage.txt's rows; false (no rows) when there is no usage.txt */
bool exp_usage(const struct exp *x, const struct exp_usage **v, size_t *n);
/*
 * Should the experiment have a usage.txt?  Only the module keeps precise
 * totals, and only of the threads it profiled (clock or counters); a
 * flight recorder's window has none (they would be the whole run's);
 * the perf backend's and a tracing-only run's have none.
 */
bool exp_usage_expected(const struct exp_info *log);
void exp_archives(const struct exp *x, const struct exp_archive **v,
		  size_t *n);
void exp_files(const struct exp *x, const struct exp_file **v, size_t *n);
/* Has it a samples.rec (format 1.4: global sample packets)? */
bool exp_has_samples(const struct exp *x);
/* The path of record file id (an id exp_files() lists, or samples.rec's). */
const char *exp_file_path(const struct exp *x, uint32_t id);

struct exp_reader;
/* Open record file id through r (libexp/reader.h: r->msg on failure). */
int exp_file_open(const struct exp *x, uint32_t id, struct exp_reader *r,
		  exp_warn_fn *warn, void *warn_arg);

/*
 * The copy of /proc/kallsyms, line by line: fn gets each line of the form
 * "ADDR TYPE NAME[ MODULE]" (module NULL without one) until it returns
 * non-zero, which is returned.  No copy: -ENOENT.
 */
int exp_kallsyms(const struct exp *x,
		 int (*fn)(void *arg, uint64_t addr, char type,
			   const char *name, const char *module),
		 void *arg);
/*
 * The copy of /proc/modules: fn gets each module's name, size and
 * address (NAME SIZE REFS DEPS STATE ADDR lines) until it returns
 * non-zero.  No copy: -ENOENT.
 */
int exp_modules(const struct exp *x,
		int (*fn)(void *arg, const char *name, uint64_t size,
			  uint64_t addr),
		void *arg);

struct exp_stacks;
/* The experiment's delta stack tracker, made on first use (NULL: no memory). */
struct exp_stacks *exp_stacks(struct exp *x);
/* Free it (when the stacks are all rebuilt). */
void exp_stacks_release(struct exp *x);

#endif
