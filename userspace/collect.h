/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwprof collect: options, counters, the io_uring drain of a recording
 * source's rings (source.h) into the experiment (libexp/writer.h) and the
 * archives.  Every function returns 0 (or a count) or a negative errno;
 * none exits.
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

#define COLLECT "lwprof collect"

#define COLLECT_CLOCK_ON_NS	10000000ULL	/* -p on: 10 ms */
#define COLLECT_CLOCK_HI_NS	1000000ULL	/* -p hi: 1 ms */
#define COLLECT_CLOCK_LO_NS	100000000ULL	/* -p lo: 100 ms */
#define COLLECT_STACK_DEFAULT	8192		/* bytes of user stack */
/*
 * Ring data pages per CPU: 1 MiB, four times the module's default, since
 * a sample with its 8 KiB stack copy is about 8.5 KB: bursts of counter
 * overflows (page faults at exec) would fill 256 KiB in a few hundred us.
 * A user the module lets lock less gets the most it allows (ringsize.c).
 */
#define COLLECT_RING_PAGES	256
#define COLLECT_SAMPLE_NS	1000000000ULL	/* -S on: a packet a second */
#define COLLECT_FLIGHT_CAP	(256ULL << 20)	/* --flight SECONDS: at most */

enum collect_mode { MODE_COMMAND, MODE_ATTACH, MODE_MACHINE };

struct collect_opts {
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
	/* tracing (docs/tracing.md) */
	bool clock_set;		/* -p given */
	bool heap;		/* -H on */
	bool io;		/* -i on */
	enum { SYNC_OFF, SYNC_CALIBRATE, SYNC_THRESHOLD } sync;	/* -s */
	__u64 sync_ns;		/* -s all: 0, -s N: N us */
	int backend;		/* --backend: enum lwprof_backend */
};

#define COLLECT_TRACE_STACK	2048	/* bytes of stack per traced call */

static inline bool collect_tracing(const struct collect_opts *o)
{
	return o->heap || o->io || o->sync != SYNC_OFF;
}

/* collect_opts.c: parse argv; 0, or 2 (usage error, said) or 1. */
int collect_parse(int argc, char **argv, struct collect_opts *o);
void collect_usage(FILE *f);

/* Parse "10ms", "2.5" (ms), "500us", "1s", "200ns" into ns. */
int collect_parse_time(const char *s, const char *bare_unit, __u64 *ns);

/* counters.c */
/* Parse one -h argument and append its counters to o; msg on error. */
int counters_parse(const char *arg, struct collect_opts *o, char *msg,
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

/*
 * ringsize.c: LWPROF_IOC_RING_SETUP with pages per ring or, if the module
 * refuses that many to this user (EPERM) and !exact, the largest power of
 * two below that it accepts; rs->data_pages is the size set up.  On EPERM
 * msg says what the user may do (the size allowed, the capability).
 */
int collect_ring_setup(int devfd, __u32 pages, bool exact,
		       struct lwprof_ring_setup *rs, char *msg, size_t len);

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
 * gsample.c: global sample packets (libexp/format.h, EXP_REC_GSAMPLE) of
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
};
int gs_stats(int pid, struct exp_rec_gsample *g);
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
int ctl_open(struct ctl *c, const struct collect_opts *o);
void ctl_child(struct ctl *c, const struct collect_opts *o);
int ctl_read(struct ctl *c, struct lwprof_ctl_msg *m);
/*
 * Do what message m asks of gs (its time kept within [start, now]): 0,
 * 1 if it asks to end recording (collector_terminate_expt), or -errno.
 */
int ctl_apply(struct gsamp *gs, const struct collect_opts *o,
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
int flight_create(struct flight **fp, const struct collect_opts *o,
		  const struct rec_ring *rings, unsigned int nr,
		  const struct gsamp *gs);
void flight_take(struct flight *f, __u64 now);
void flight_gs(void *arg, const void *rec, size_t size);
int flight_write(struct flight *f, const struct exp_writer *tmpl,
		 const struct collect_opts *o, int child, __u32 abi_major,
		 __u32 abi_minor, const struct gsamp *gs, __u64 now);
void flight_destroy(struct flight *f);

/* user_data of the SQEs of the collect loop: kind in the top byte. */
#define UD_KIND(ud)	((unsigned int)((ud) >> 56))
#define UD_MAKE(k, v)	(((__u64)(k) << 56) | (v))
enum {
	UD_POLL = 1, UD_SIGNAL, UD_FLUSH, UD_PIDFD, UD_DEADLINE, UD_WRITE,
	UD_SETTLE, UD_CTL, UD_GSAMPLE, UD_TSTART,
};

#endif
