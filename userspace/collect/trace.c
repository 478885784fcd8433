// SPDX-License-Identifier: GPL-2.0
/*
 * collect -s/-H/-i (docs/design/tracing.md): the tracing library
 * (liblwprof_trace.so) is preloaded into the command, which it follows
 * into its threads and descendants, and writes trace.PID.rec files into
 * the experiment itself.  Here collect's part: find the library, refuse
 * a command it cannot enter (static, setuid), calibrate the sync
 * threshold, set the command's environment, and at the end adopt the
 * files: check each through the one reader, count its records, hand its
 * mappings to the archiver and say what came of it in log.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libexp/reader.h"
#include "libexp/trace.h"
#include "userspace/collect/collect.h"

#define TRACE_LIB	"liblwprof_trace.so"
#define CALIB_CALLS	20000		/* uncontended locks timed */
#define CALIB_FACTOR	6		/* the threshold's factor, as Oracle's */

static const char *const lib_dirs[] = { "", "../libexec/lwprof/" };

/* The library beside this program or in ../libexec/lwprof/ from it. */
static int find_lib(char *path, size_t len)
{
	return lwprof_selfdir_find(TRACE_LIB, lib_dirs, 2, R_OK, path, len);
}

int collect_trace_check(const struct rec_opts *o, char *msg, size_t len)
{
	char lib[PATH_MAX + 64], cmd[PATH_MAX], img[PATH_MAX];
	int why;

	if (!rec_tracing(o))
		return 0;
	if (find_lib(lib, sizeof(lib))) {
		snprintf(msg, len, "-s/-H/-i need the tracing library: no %s (make, or make install)",
			 lib);
		return -ENOENT;
	}
	if (lwprof_which(o->argv[0], cmd, sizeof(cmd)))
		return 0;	/* the exec says why */
	why = exp_untraceable(cmd, img, sizeof(img));
	switch (why) {
	case 0:
		return 0;
	case EXP_UT_STATIC:
		snprintf(msg, len, "%s is statically linked: -s, -H and -i preload a library, which a static program never loads; trace a dynamically linked build, or use -p/-h alone",
			 img);
		return -ENOEXEC;
	case EXP_UT_FOREIGN:
		snprintf(msg, len, "%s is not an x86-64 program: -s, -H and -i preload an x86-64 library, which it cannot load",
			 img);
		return -ENOEXEC;
	default:	/* set-ID, capabilities: ld.so's secure mode */
		snprintf(msg, len, "%s %s, so -s, -H and -i cannot trace it", img,
			 exp_untraced_why(why));
		return -EPERM;
	}
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The threshold, as Oracle's collector sets it: the mean time of an
 * uncontended call, timed as the library times a wait (a clock read on
 * each side), times 6.
 */
static __u64 calibrate(struct exp_writer *e)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	__u64 sum = 0, t0;
	unsigned int i;

	for (i = 0; i < CALIB_CALLS; i++) {
		t0 = mono_ns();
		pthread_mutex_lock(&m);
		sum += mono_ns() - t0;
		pthread_mutex_unlock(&m);
	}
	exp_note(e, EXP_K_SYNC_CALIBRATION, "%u uncontended pthread_mutex_lock calls, mean %.1f ns, times %u",
		 CALIB_CALLS, (double)sum / CALIB_CALLS, CALIB_FACTOR);
	return sum * CALIB_FACTOR / CALIB_CALLS;
}

int collect_trace_env(const struct rec_opts *o, struct exp_writer *e,
		      bool source_tasks, char *msg, size_t len)
{
	char lib[PATH_MAX + 64], dir[PATH_MAX], v[64], *pre;
	char mlib[PATH_MAX + 64] = "";
	const char *old = getenv("LD_PRELOAD");
	__u32 stack = o->stack_set ? o->stack_bytes : COLLECT_TRACE_STACK;
	__u64 sync_ns = o->sync_ns;
	int err;

	if (!rec_tracing(o))	/* log.txt says OpenMP is off, and why */
		return collect_omp_env(o, e, NULL, msg, len);
	if (find_lib(lib, sizeof(lib)) || !realpath(e->path, dir)) {
		snprintf(msg, len, "the tracing library or the experiment's path: %s",
			 strerror(errno));
		return -ENOENT;
	}
	/* -M: the MPI wrapper library after it (it calls the tracing one) */
	if (o->mpi != MPI_OFF && collect_mpi_lib(o, mlib + 1, sizeof(mlib) - 1)) {
		snprintf(msg, len, "-M needs the MPI tracing library: no %s (make, with %s's mpicc installed)",
			 mlib + 1, collect_mpi_name(o));
		return -ENOENT;
	}
	if (mlib[1])
		mlib[0] = ':';
	if (o->sync == SYNC_CALIBRATE)
		sync_ns = calibrate(e);
	/* k: the source records tasks and mappings: the library must not */
	err = collect_omp_env(o, e, dir, msg, len);
	if (err)
		return err;
	snprintf(v, sizeof(v), "%s%s%s%s%s%s,%llu,%u", o->heap ? "h" : "",
		 o->sync != SYNC_OFF ? "s" : "", o->io ? "i" : "",
		 o->omp_on ? "o" : "", o->mpi != MPI_OFF ? "m" : "",
		 source_tasks ? "k" : "", (unsigned long long)sync_ns, stack);
	if (asprintf(&pre, "%s%s%s%s", lib, mlib, old && *old ? ":" : "",
		     old ? old : "") < 0)
		return -ENOMEM;
	err = setenv("LD_PRELOAD", pre, 1) || setenv("LWPROF_TRACE", v, 1) ||
	      setenv("LWPROF_TRACE_DIR", dir, 1) ? -errno : 0;
	free(pre);
	if (err) {
		snprintf(msg, len, "setting the command's environment: %s",
			 strerror(-err));
		return err;
	}
	exp_note(e, EXP_K_TRACE, "%s%s%s%s%s%s%s%s%s", o->heap ? "heap" : "",
		 o->heap && o->sync != SYNC_OFF ? "," : "",
		 o->sync != SYNC_OFF ? "sync" : "",
		 (o->heap || o->sync != SYNC_OFF) && o->io ? "," : "",
		 o->io ? "io" : "",
		 (o->heap || o->sync != SYNC_OFF || o->io) && o->omp_on ? "," : "",
		 o->omp_on ? "openmp" : "",
		 (o->heap || o->sync != SYNC_OFF || o->io || o->omp_on) &&
		 o->mpi ? "," : "",
		 o->mpi ? "mpi" : "");
	if (o->mpi != MPI_OFF) {
		exp_note(e, EXP_K_MPI, "%s", collect_mpi_name(o));
		if (collect_mpi_rank() >= 0)
			exp_note(e, EXP_K_MPI_RANK, "%d", collect_mpi_rank());
		exp_note(e, EXP_K_MPI_LIBRARY, "%s", mlib + 1);
	}
	if (o->sync != SYNC_OFF)
		exp_note(e, EXP_K_SYNC_THRESHOLD_NS, "%llu", (unsigned long long)sync_ns);
	exp_note(e, EXP_K_TRACE_STACK_BYTES, "%u", stack);
	exp_note(e, EXP_K_TRACE_LIBRARY, "%s", lib);
	return 0;
}

/*
 * The heap calls a slice's counts stand for (its allocations and frees),
 * of a heap record or those a deflated one holds (buf: EXP_TZ_MAX bytes).
 */
static unsigned long long theap_calls(const struct lwprof_rec *r, void *buf)
{
	const struct exp_rec_theap *h = (const void *)r;
	unsigned long long n = 0;
	const char *why;
	long len, off;
	__u32 i;

	if (r->type == EXP_REC_TZ) {
		len = buf ? exp_tz_inflate((const void *)r, buf, &why) : -1;
		for (off = 0; off < len; off += r->size) {
			r = (const void *)((const __u8 *)buf + off);
			if (r->type == EXP_REC_THEAP &&
			    r->size >= sizeof(struct exp_rec_theap) &&
			    r->size >= exp_theap_size((const void *)r))
				n += theap_calls(r, NULL);
		}
		return n;
	}
	for (i = 0; i < h->nent; i++)
		if (!(h->e[i].flags & EXP_THE_FREE) ||
		    exp_trace_event(h->e[i].event)->cls == EXP_TC_FREE)
			n += h->e[i].count;
	return n;
}

struct adopt {
	struct exp_writer *e;
	struct archiver *a;
	void *zbuf;			/* EXP_TZ_MAX: deflated heap records inflated */
	unsigned long long calls;
	unsigned long long omp_rts;	/* OpenMP runtimes that started the tool */
	struct exp_untraced_list untraced;
};

static void adopt_rec(void *arg, const struct exp_reader *f,
		      const struct lwprof_rec *rec)
{
	struct adopt *t = arg;

	t->calls += rec->type == EXP_REC_TRACE ||
		    rec->type == EXP_REC_TRACE_FREE ||
		    (rec->type == EXP_REC_TCALL && f->hdr.minor >= EXP_MINOR_TCALL);
	if ((rec->type == EXP_REC_THEAP || rec->type == EXP_REC_TZ) &&
	    f->hdr.minor >= EXP_MINOR_THEAP &&
	    (t->zbuf || (t->zbuf = malloc(EXP_TZ_MAX))))
		t->calls += theap_calls(rec, t->zbuf);
	if (rec->type == LWPROF_REC_MMAP || rec->type == LWPROF_REC_TASK)
		archiver_rec(t->a, rec);
	if (f->hdr.minor >= EXP_MINOR_OMP)
		t->omp_rts += collect_omp_adopt(t->e, rec);
	if (rec->type == EXP_REC_TRACE_UNTRACED &&
	    f->hdr.minor >= EXP_MINOR_UNTRACED &&
	    exp_untraced_add(&t->untraced, (const void *)rec))
		exp_warn(t->e, "tracing: out of memory");
}

void collect_trace_adopt(const struct rec_opts *o, struct exp_writer *e,
			 struct archiver *a)
{
	struct adopt t = { .e = e, .a = a };
	char why[PATH_MAX + 256];
	unsigned long long files;
	size_t i;

	if (!rec_tracing(o))
		return;
	files = collect_adopt(e, EXP_FILE_TRACE, EXP_FILE_JAVA, "tracing",
			      adopt_rec, &t);
	free(t.zbuf);
	exp_note(e, EXP_K_TRACE_FILES, "%llu", files);
	exp_note(e, EXP_K_TRACE_CALLS, "%llu", t.calls);
	if (o->omp_on && !t.omp_rts)
		exp_note(e, EXP_K_OPENMP_RUNTIME, "none started the OMPT tool (no OpenMP runtime with OMPT ran): OpenMP metrics absent");
	if (!files)
		exp_warn(e, "tracing: no trace files: the command never loaded the tracing library (static, set-user-ID, or LD_PRELOAD removed from its environment)");
	/* the programs the library saw it could not enter: once each */
	for (i = 0; i < t.untraced.n; i++) {
		exp_untraced_str(&t.untraced.v[i], why, sizeof(why));
		exp_warn(e, "tracing: %s", why);
	}
	exp_untraced_free(&t.untraced);
}
