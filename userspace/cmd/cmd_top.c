// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof top: Solaris's prstat -mL on Linux.  Every interval, one row per
 * thread: the share of the interval it spent in each microstate, and how
 * many context switches, system calls and signals it had.
 *
 *   lwprof top [-b] [-d SECS] [-n COUNT] [-s COL] [-l ROWS] [-p PID]
 *              [--backend module|perf|auto]
 *
 * Without the module the rows come from /proc and taskstats
 * (backend/perf/usage.c); the columns they cannot fill show "-".
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/mstate_names.h"
#include "libexp/nearest.h"
#include "userspace/backend/backend.h"
#include "userspace/cmd/cmds.h"

#define TOP "lwprof top"

/* Columns; C_CPU (USR+SYS+TRP) is the default sort key, not a column. */
enum {
	C_PID, C_TID, C_NAME, C_MS0,
	C_VCX = C_MS0 + LWPROF_MS_COUNT, C_ICX, C_SCL, C_SIG,
	C_NCOLS, C_CPU = C_NCOLS
};

static const char *const col_other[] = {
	[C_PID] = "PID", [C_TID] = "TID", [C_NAME] = "NAME", [C_VCX] = "VCX",
	[C_ICX] = "ICX", [C_SCL] = "SCL", [C_SIG] = "SIG",
};

/* A column's heading: a microstate's (libexp) or another's. */
static const char *col_name(int c)
{
	if (c >= C_MS0 && c < C_MS0 + LWPROF_MS_COUNT)
		return exp_mstate_names[lwprof_ms_order[c - C_MS0]].top;
	return col_other[c];
}

struct top_opts {
	bool batch;		/* -b */
	__u64 interval_ns;	/* -d */
	long count;		/* -n; 0: until ^C */
	int sort;		/* -s: a C_* column, or C_CPU */
	long rows;		/* -l; 0: all (batch) or the screen */
	int pid;		/* -p; 0: the whole machine */
	const struct backend_ops *backend;	/* --backend; NULL: auto */
};

struct top_row {
	__u32 pid, tid;
	char name[17];
	double pct[LWPROF_MS_COUNT];	/* in lwprof_ms_order */
	__u64 cnt[4];			/* VCX ICX SCL SIG */
	__u32 have;			/* LWPROF_HAVE_*: filled columns */
};

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	top_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lwprof top [-b] [-d SECS] [-n COUNT] [-s COL] [-l ROWS] [-p PID]\n"
		"                  [--backend module|perf|auto]\n"
		"  -p PID    only process PID (and its children); default: every thread\n"
		"            of the machine (needs CAP_PERFMON or CAP_SYS_ADMIN)\n"
		"  -d SECS   interval between refreshes (default 1, fractions allowed)\n"
		"  -n COUNT  refresh COUNT times, then exit\n"
		"  -b        batch mode: plain text, no screen control\n"
		"  -s COL    sort by column COL, descending (default USR+SYS+TRP)\n"
		"  -l ROWS   show at most ROWS threads\n"
		"columns: PID TID NAME USR SYS TRP TFL DFL KFL LCK SLP LAT STP (percent\n"
		"of the interval) VCX ICX SCL SIG (counts in the interval); - where\n"
		"the backend has none (perf: /proc and taskstats, without the module;\n"
		"auto, the default: the module if loaded)\n");
}

static int parse_col(const char *s)
{
	int i;

	for (i = 0; i < C_NCOLS; i++)
		if (!strcasecmp(s, col_name(i)))
			return i;
	return -1;
}

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v <= 0 ? -EINVAL : 0;
}

static int parse_secs(const char *s, __u64 *ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < 0.001 ||
	    d > 86400.0)
		return -EINVAL;
	*ns = (__u64)(d * 1e9);
	return 0;
}

static double row_value(const struct top_row *r, int col)
{
	switch (col) {
	case C_PID:
		return r->pid;
	case C_TID:
		return r->tid;
	case C_CPU:
		return r->pct[0] + r->pct[1] + r->pct[2];
	default:
		if (col >= C_VCX)
			return (double)r->cnt[col - C_VCX];
		return r->pct[col - C_MS0];
	}
}

static int sort_col;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	double va, vb;
	int c = 0;

	if (sort_col == C_NAME) {
		c = strcmp(b->name, a->name);
	} else {
		va = row_value(a, sort_col);
		vb = row_value(b, sort_col);
		c = va > vb ? -1 : va < vb;
	}
	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* comm, with anything that would split the column made visible. */
static void row_name(char *dst, const char *comm)
{
	int i;

	for (i = 0; i < 16 && comm[i]; i++)
		dst[i] = comm[i] > ' ' && comm[i] < 127 ? comm[i] : '_';
	dst[i] = 0;
}

/*
 * One row from a thread's record now and at the last refresh (old, or
 * NULL when it is new): percentages of the time it covered since then.
 */
static void make_row(struct top_row *r, const struct lwprof_thread_usage *tu,
		     const struct lwprof_thread_usage *old, __u32 have)
{
	struct lwprof_usage_sum s;
	__u64 from = old ? old->end_ns : tu->start_ns;
	double span = tu->end_ns > from ? (double)(tu->end_ns - from) : 0;
	int i;

	memset(&s, 0, sizeof(s));
	lwprof_usage_add(&s, tu, old);
	r->pid = tu->pid;
	r->tid = tu->tid;
	row_name(r->name, tu->comm);
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		r->pct[i] = span > 0 ?
			100.0 * s.ms[lwprof_ms_order[i]] / span : 0;
	r->cnt[0] = s.vcsw;
	r->cnt[1] = s.ivcsw;
	r->cnt[2] = s.syscalls;
	r->cnt[3] = s.signals;
	r->have = lwprof_usage_have(have, tu);
	if (old)
		r->have &= lwprof_usage_have(have, old);
}

static long screen_rows(void)
{
	struct winsize ws;
	const char *lines;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row)
		return ws.ws_row;
	lines = getenv("LINES");
	return lines && atol(lines) > 0 ? atol(lines) : 24;
}

/* Whether column c (C_MS0 on) is filled by the backend. */
static bool col_have(int c, __u32 have)
{
	static const __u32 cnt_bit[] = {
		LWPROF_HAVE_VCSW, LWPROF_HAVE_IVCSW, LWPROF_HAVE_SYSCALLS,
		LWPROF_HAVE_SIGNALS,
	};

	if (c < C_VCX)
		return have & LWPROF_HAVE_MS(lwprof_ms_order[c - C_MS0]);
	return have & cnt_bit[c - C_VCX];
}

static void print_table(struct top_row *rows, size_t n,
			const struct top_opts *o)
{
	char stamp[32];
	time_t now = time(NULL);
	size_t i, max = n;
	int c;

	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
	sort_col = o->sort;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	if (o->rows > 0 && (size_t)o->rows < max)
		max = o->rows;
	if (!o->batch) {
		long fit = screen_rows() - 3;	/* title, header, cursor */

		fputs("\033[H\033[2J", stdout);
		if (fit < 1)
			fit = 1;
		if ((size_t)fit < max)
			max = fit;
	}
	printf("%s  %zu threads\n", stamp, n);
	printf("%7s %7s %-16s", col_name(C_PID), col_name(C_TID),
	       col_name(C_NAME));
	for (c = C_MS0; c < C_NCOLS; c++)
		printf(c < C_VCX ? " %5s" : " %6s", col_name(c));
	putchar('\n');
	for (i = 0; i < max; i++) {
		const struct top_row *r = &rows[i];

		printf("%7u %7u %-16s", r->pid, r->tid, r->name);
		for (c = 0; c < LWPROF_MS_COUNT; c++) {
			if (col_have(C_MS0 + c, r->have))
				printf(" %5.1f", r->pct[c]);
			else
				printf(" %5s", "-");
		}
		for (c = 0; c < 4; c++) {
			if (col_have(C_VCX + c, r->have))
				printf(" %6llu", (unsigned long long)r->cnt[c]);
			else
				printf(" %6s", "-");
		}
		putchar('\n');
	}
	if (o->batch)
		putchar('\n');
	fflush(stdout);
}

/*
 * One refresh: read the session into cur, print the rows against prev,
 * then make cur the next prev without the threads that exited.
 */
static int refresh(struct lwprof_usage_src *src, struct lwprof_usage_set *prev,
		   struct lwprof_usage_set *cur, const struct top_opts *o)
{
	struct lwprof_usage_set tmp;
	struct top_row *rows;
	size_t i, n;
	int err;

	lwprof_usage_clear(cur);
	err = lwprof_src_read(src, cur);
	if (err)
		return err;
	rows = calloc(cur->n ? cur->n : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < cur->n; i++)
		make_row(&rows[i], &cur->tu[i],
			 lwprof_usage_find(prev, &cur->tu[i]), cur->have);
	print_table(rows, cur->n, o);
	free(rows);

	for (i = 0, n = 0; i < cur->n; i++)
		if (!(cur->tu[i].flags & LWPROF_TU_EXITED))
			cur->tu[n++] = cur->tu[i];
	cur->n = n;
	tmp = *prev;
	*prev = *cur;
	*cur = tmp;
	return 0;
}

static void add_ns(struct timespec *t, __u64 ns)
{
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000ULL;
	t->tv_nsec = ns % 1000000000ULL;
}

static int run(struct lwprof_usage_src *src, const struct top_opts *o)
{
	struct lwprof_usage_set prev, cur;
	struct timespec next;
	long i;
	int err;

	lwprof_usage_init(&prev);
	lwprof_usage_init(&cur);
	err = lwprof_src_read(src, &prev);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; !err && (!o->count || i < o->count); i++) {
		add_ns(&next, o->interval_ns);
		while (!top_stop && clock_nanosleep(CLOCK_MONOTONIC,
						    TIMER_ABSTIME, &next, NULL))
			;
		if (top_stop)
			break;
		err = refresh(src, &prev, &cur, o);
		if (!err && o->pid && !prev.live)
			break;	/* the process and its children are gone */
		if (!err && prev.stopped) {
			/* ABI 1.7: another session took its threads */
			fprintf(stderr, TOP ": accounting ended: %s\n",
				exp_stop_why(prev.stopped));
			break;
		}
	}
	lwprof_usage_free(&prev);
	lwprof_usage_free(&cur);
	if (err)
		fprintf(stderr, TOP ": reading usage: %s\n", strerror(-err));
	return err ? 1 : 0;
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	static const struct option lopts[] = {
		{ "backend", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = ":bd:n:s:l:p:h";
	const char *bad = NULL;
	int c;

	optind = 1;
	opterr = 0;
	while (!bad && (c = getopt_long(argc, argv, shortopts, lopts,
					NULL)) != -1) {
		switch (c) {
		case 'B':
			if (backend_parse(optarg, &o->backend))
				bad = "--backend: want module, perf or auto";
			break;
		case 'b':
			o->batch = true;
			break;
		case 'd':
			if (parse_secs(optarg, &o->interval_ns))
				bad = "-d: want seconds, 0.001 to 86400";
			break;
		case 'n':
			if (parse_long(optarg, &o->count))
				bad = "-n: want a positive count";
			break;
		case 's':
			o->sort = parse_col(optarg);
			if (o->sort < 0)
				bad = "-s: not a column name";
			break;
		case 'l':
			if (parse_long(optarg, &o->rows))
				bad = "-l: want a positive number of rows";
			break;
		case 'p':
			if (lwprof_parse_pid(optarg, &o->pid))
				bad = "-p: not a process id";
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return exp_option_error(TOP, argv, c, shortopts, lopts);
		}
	}
	if (!bad && optind < argc)
		bad = "unexpected arguments";
	if (bad) {
		fprintf(stderr, TOP ": %s\n", bad);
		usage(stderr);
		return 2;
	}
	return -1;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .interval_ns = 1000000000ULL, .sort = C_CPU,
			      .backend = NULL };
	struct sigaction sa = { .sa_handler = on_signal };
	struct lwprof_usage_src src;
	__u32 flags;
	char buf[160];
	int err;

	err = parse_opts(argc, argv, &o);
	if (err >= 0)
		return err;
	flags = o.pid ? 0 : LWPROF_ATTACH_MACHINE;

	err = lwprof_src_open(&src, o.backend);
	if (err < 0) {
		fprintf(stderr, TOP ": %s\n", lwprof_src_open_strerror(&src, err));
		return 1;
	}
	err = lwprof_src_attach(&src, flags, o.pid);
	if (err) {
		fprintf(stderr, TOP ": %s\n",
			lwprof_src_strerror(&src, err, flags, o.pid, buf,
					    sizeof(buf)));
		lwprof_src_close(&src);
		return 1;
	}
	lwprof_src_log(&src, TOP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = run(&src, &o);
	lwprof_src_close(&src);
	return err;
}
