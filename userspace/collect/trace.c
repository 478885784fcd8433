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

/* cmd as execvp would find it, into path. */
static int which(const char *cmd, char *path, size_t len)
{
	const char *p = getenv("PATH"), *end;
	size_t n;

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return access(path, X_OK) ? -errno : 0;
	}
	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		n = end - p;
		snprintf(path, len, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd);
		if (!access(path, X_OK))
			return 0;
	}
	return -ENOENT;
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
	if (which(o->argv[0], cmd, sizeof(cmd)))
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
	const char *old = getenv("LD_PRELOAD");
	__u32 stack = o->stack_set ? o->stack_bytes : COLLECT_TRACE_STACK;
	__u64 sync_ns = o->sync_ns;
	int err;

	if (!rec_tracing(o))
		return 0;
	if (find_lib(lib, sizeof(lib)) || !realpath(e->path, dir)) {
		snprintf(msg, len, "the tracing library or the experiment's path: %s",
			 strerror(errno));
		return -ENOENT;
	}
	if (o->sync == SYNC_CALIBRATE)
		sync_ns = calibrate(e);
	/* k: the source records tasks and mappings: the library must not */
	snprintf(v, sizeof(v), "%s%s%s%s,%llu,%u", o->heap ? "h" : "",
		 o->sync != SYNC_OFF ? "s" : "", o->io ? "i" : "",
		 source_tasks ? "k" : "", (unsigned long long)sync_ns, stack);
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "",
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
	exp_note(e, EXP_K_TRACE, "%s%s%s%s%s", o->heap ? "heap" : "",
		 o->heap && o->sync != SYNC_OFF ? "," : "",
		 o->sync != SYNC_OFF ? "sync" : "",
		 (o->heap || o->sync != SYNC_OFF) && o->io ? "," : "",
		 o->io ? "io" : "");
	if (o->sync != SYNC_OFF)
		exp_note(e, EXP_K_SYNC_THRESHOLD_NS, "%llu", (unsigned long long)sync_ns);
	exp_note(e, EXP_K_TRACE_STACK_BYTES, "%u", stack);
	exp_note(e, EXP_K_TRACE_LIBRARY, "%s", lib);
	return 0;
}

static void adopt_warn(void *arg, const char *msg)
{
	exp_warn(arg, "%s", msg);
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

void collect_trace_adopt(const struct rec_opts *o, struct exp_writer *e,
			 struct archiver *a)
{
	unsigned long long files = 0, recs = 0, calls = 0;
	struct exp_untraced_list untraced = { 0 };
	const struct lwprof_rec *rec;
	char why[PATH_MAX + 256];
	struct exp_file *v;
	struct exp_reader f;
	void *zbuf = NULL;
	size_t i, n, k;
	int ret;

	if (!rec_tracing(o))
		return;
	ret = exp_files_list(e->dirfd, e->path, &v, &n);
	if (ret) {
		exp_warn(e, "tracing: reading the experiment: %s", strerror(-ret));
		return;
	}
	for (k = 0; k < n; k++) {
		if (v[k].id < EXP_FILE_TRACE)
			continue;
		files++;
		ret = exp_reader_open(&f, e->dirfd, v[k].name, adopt_warn, e);
		while (!ret || ret == 1) {
			ret = exp_reader_next(&f, &rec);
			if (ret <= 0)
				break;
			recs++;
			calls += rec->type == EXP_REC_TRACE ||
				 rec->type == EXP_REC_TRACE_FREE ||
				 (rec->type == EXP_REC_TCALL &&
				  f.hdr.minor >= EXP_MINOR_TCALL);
			if ((rec->type == EXP_REC_THEAP || rec->type == EXP_REC_TZ) &&
			    f.hdr.minor >= EXP_MINOR_THEAP &&
			    (zbuf || (zbuf = malloc(EXP_TZ_MAX))))
				calls += theap_calls(rec, zbuf);
			if (rec->type == LWPROF_REC_MMAP || rec->type == LWPROF_REC_TASK)
				archiver_rec(a, rec);
			if (rec->type == EXP_REC_TRACE_UNTRACED &&
			    f.hdr.minor >= EXP_MINOR_UNTRACED &&
			    exp_untraced_add(&untraced, (const void *)rec))
				exp_warn(e, "tracing: out of memory");
		}
		if (ret < 0)
			exp_warn(e, "tracing: %s", f.msg);
		exp_reader_close(&f);
	}
	exp_files_free(v, n);
	free(zbuf);
	e->records += recs;
	exp_note(e, EXP_K_TRACE_FILES, "%llu", files);
	exp_note(e, EXP_K_TRACE_CALLS, "%llu", calls);
	if (!files)
		exp_warn(e, "tracing: no trace files: the command never loaded the tracing library (static, set-user-ID, or LD_PRELOAD removed from its environment)");
	/* the programs the library saw it could not enter: once each */
	for (i = 0; i < untraced.n; i++) {
		exp_untraced_str(&untraced.v[i], why, sizeof(why));
		exp_warn(e, "tracing: %s", why);
	}
	exp_untraced_free(&untraced);
}
