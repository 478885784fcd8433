// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof ptime: Solaris's ptime(1) on Linux.  Run a command (or watch a
 * process) in a microstate session and print, on stderr, where the time of
 * all its threads went: real, user, sys; with -m all ten microstates; with
 * -L one row per thread as well.
 *
 *   lwprof ptime [-m] [-L] CMD [ARGS...]   exit status: CMD's
 *   lwprof ptime [-m] [-L] -p PID          until PID exits or ^C; exit 0
 *
 * Without the module (--backend perf, or auto when /dev/lwprof does not
 * answer) the times come from /proc and taskstats (backend/perf/usage.c); the
 * columns they cannot fill show "-".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/mstate_names.h"
#include "libexp/nearest.h"
#include "userspace/backend/backend.h"
#include "userspace/cmd/cmds.h"

#define PTIME "lwprof ptime"

/* After the command exits, how long its threads may take to go. */
#define PTIME_SETTLE_NS		2000000000ULL
#define PTIME_POLL_NS		1000000L
/* The same from /proc, where a read scans every process: 10 ms. */
#define PTIME_PROC_POLL_NS	10000000L
/* While watching a process: drain exited threads this often. */
#define PTIME_DRAIN_MS		1000
/* Without the module: read /proc this often (a thread's last reading). */
#define PTIME_PROC_MS		100
/* How long the child may take to reach its gate, and how often we look. */
#define PTIME_GATE_NS		1000000000ULL
#define PTIME_GATE_POLL_NS	20000L

struct ptime_opts {
	bool mstate;		/* -m */
	bool threads;		/* -L */
	int pid;		/* -p, or the command's */
	const struct backend_ops *backend;	/* --backend; NULL: auto */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lwprof ptime [-m] [-L] [--backend B] CMD [ARGS...]\n"
		"       lwprof ptime [-m] [-L] [--backend B] -p PID\n"
		"  -m      all ten microstates, not just real/user/sys\n"
		"  -L      one row per thread as well\n"
		"  -p PID  watch process PID until it exits (or ^C)\n"
		"  --backend module|perf|auto  the module's microstates, or /proc\n"
		"          and taskstats without it (auto: the module if loaded)\n"
		"Times go to stderr, in seconds; - where the backend has none.\n");
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The value of column i (in lwprof_ms_order) of a usage sum: without -m
 * only user and sys exist, and sys includes trap time.
 */
static __u64 ms_value(const struct lwprof_usage_sum *s, int i, bool mstate)
{
	int ms = lwprof_ms_order[i];

	if (!mstate && ms == LWPROF_MS_SYSTEM)
		return s->ms[LWPROF_MS_SYSTEM] + s->ms[LWPROF_MS_TRAP];
	return s->ms[ms];
}

/* Column i's seconds, or "-" when the backend does not fill it. */
static const char *ms_text(char *buf, size_t len, __u32 have,
			   const struct lwprof_usage_sum *s, int i, bool mstate)
{
	if (!(have & LWPROF_HAVE_MS(lwprof_ms_order[i])))
		return "-";
	return lwprof_fmt_sec(buf, len, ms_value(s, i, mstate));
}

/* A count, or "-" when the backend does not fill it. */
static const char *cnt_text(char *buf, size_t len, __u32 have, __u32 bit,
			    __u64 v)
{
	if (!(have & bit))
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static int ms_columns(bool mstate)
{
	return mstate ? LWPROF_MS_COUNT : 2;
}

/*
 * The totals: summed over the threads, but user and sys from the
 * command's rusage (ru, or NULL) where it has them: it counts every
 * thread and process that ever was, even those never read.
 */
static void print_totals(const struct lwprof_usage_set *set,
			 const struct ptime_opts *o, __u64 real,
			 const struct rusage *ru)
{
	struct lwprof_usage_sum sum;
	char b[32];
	size_t t;
	int i;

	memset(&sum, 0, sizeof(sum));
	for (t = 0; t < set->n; t++)
		lwprof_usage_add(&sum, &set->tu[t], NULL);
	if (ru) {
		sum.ms[LWPROF_MS_USER] = ru->ru_utime.tv_sec * 1000000000ULL +
			ru->ru_utime.tv_usec * 1000ULL;
		sum.ms[LWPROF_MS_SYSTEM] = ru->ru_stime.tv_sec * 1000000000ULL +
			ru->ru_stime.tv_usec * 1000ULL;
	}

	fprintf(stderr, "\n%-6s %15s\n", "real", lwprof_fmt_sec(b, sizeof(b), real));
	for (i = 0; i < ms_columns(o->mstate); i++)
		fprintf(stderr, "%-6s %15s\n",
			exp_mstate_names[lwprof_ms_order[i]].ptime,
			ms_text(b, sizeof(b), set->have, &sum, i, o->mstate));
}

static void print_threads(const struct lwprof_usage_set *set,
			  const struct ptime_opts *o)
{
	static const __u32 cbit[] = {
		LWPROF_HAVE_VCSW, LWPROF_HAVE_IVCSW, LWPROF_HAVE_MINFLT,
		LWPROF_HAVE_MAJFLT, LWPROF_HAVE_SYSCALLS, LWPROF_HAVE_SIGNALS,
	};
	static const int cwidth[] = { 7, 7, 7, 7, 8, 7 };
	char b[32];
	size_t t;
	int i;

	fprintf(stderr, "\n%7s %7s %14s", "PID", "TID", "REAL");
	for (i = 0; i < ms_columns(o->mstate); i++)
		fprintf(stderr, " %14s",
			exp_mstate_names[lwprof_ms_order[i]].ptime_col);
	if (o->mstate)
		fprintf(stderr, " %7s %7s %7s %7s %8s %7s", "VCX", "ICX",
			"MINF", "MAJF", "SCL", "SIG");
	fprintf(stderr, " NAME\n");

	for (t = 0; t < set->n; t++) {
		const struct lwprof_thread_usage *tu = &set->tu[t];
		struct lwprof_usage_sum s;

		memset(&s, 0, sizeof(s));
		lwprof_usage_add(&s, tu, NULL);
		fprintf(stderr, "%7u %7u %14s", tu->pid, tu->tid,
			lwprof_fmt_sec(b, sizeof(b), tu->end_ns > tu->start_ns ?
				       tu->end_ns - tu->start_ns : 0));
		for (i = 0; i < ms_columns(o->mstate); i++)
			fprintf(stderr, " %14s", ms_text(b, sizeof(b), set->have,
							 &s, i, o->mstate));
		if (o->mstate) {
			const __u64 cv[] = { s.vcsw, s.ivcsw, s.minflt,
					     s.majflt, s.syscalls, s.signals };

			for (i = 0; i < 6; i++)
				fprintf(stderr, " %*s", cwidth[i],
					cnt_text(b, sizeof(b),
						 lwprof_usage_have(set->have, tu),
						 cbit[i], cv[i]));
		}
		fprintf(stderr, " %.*s\n", (int)sizeof(tu->comm), tu->comm);
	}
}

/*
 * Read the session's threads into set; with settle, keep reading (every
 * millisecond, or 10 ms from /proc, for up to two seconds) until none is
 * live: threads finish their last context switch a little after their
 * parent can reap them, and orphans may outlive the command.
 */
static int collect(struct lwprof_usage_src *src, struct lwprof_usage_set *set,
		   bool settle)
{
	struct timespec tick = { 0, src->be->usage->polled ?
				 PTIME_PROC_POLL_NS : PTIME_POLL_NS };
	__u64 deadline = mono_ns() + PTIME_SETTLE_NS;
	size_t i;
	int err;

	for (;;) {
		err = lwprof_src_read(src, set);
		if (err) {
			fprintf(stderr, PTIME ": reading usage: %s\n",
				strerror(-err));
			return err;
		}
		if (!settle || !set->live)
			break;
		if (mono_ns() >= deadline) {
			fprintf(stderr, PTIME ": warning: %u thread%s still running after 2 s; their times are partial\n",
				set->live, set->live == 1 ? "" : "s");
			break;
		}
		nanosleep(&tick, NULL);
	}
	if (set->lost)
		fprintf(stderr, PTIME ": warning: %llu thread%s not accounted (the module ran out of memory)\n",
			(unsigned long long)set->lost, set->lost == 1 ? " was" : "s were");
	/* ABI 1.7: threads, or the whole session, the module stopped */
	if (set->stopped)
		fprintf(stderr, PTIME ": warning: accounting ended early: %s\n",
			exp_stop_why(set->stopped));
	for (i = 0; i < set->n; i++)
		if (set->tu[i].flags & LWPROF_TU_STOPPED)
			fprintf(stderr, PTIME ": warning: pid %u tid %u (%.16s) not accounted from then on: %s\n",
				set->tu[i].pid, set->tu[i].tid, set->tu[i].comm,
				exp_stop_why(LWPROF_TU_WHY(set->tu[i].flags)));
	return 0;
}

/*
 * Collect the session's threads into set and print them; with base, the
 * threads in it count from their records there.  real: the wall time to
 * show, or 0 for the main thread's lifetime; ru: the command's rusage.
 */
static int report(struct lwprof_usage_src *src, const struct ptime_opts *o,
		  struct lwprof_usage_set *set,
		  const struct lwprof_usage_set *base, bool settle, __u64 real,
		  const struct rusage *ru)
{
	int err = collect(src, set, settle);

	if (!err) {
		if (base)
			lwprof_usage_rebase(set, base);
		lwprof_src_log(src, PTIME);
		print_totals(set, o, real ? real : lwprof_usage_real(set, o->pid),
			     ru);
		if (o->threads)
			print_threads(set, o);
	}
	lwprof_usage_free(set);
	return err;
}

static int attach_error(const struct lwprof_usage_src *src, int err, int pid)
{
	char buf[160];

	fprintf(stderr, PTIME ": %s\n",
		lwprof_src_strerror(src, err, 0, pid, buf, sizeof(buf)));
	return 1;
}

/* The child: wait for the session to be there, then become CMD. */
static void child(int gate, char **argv)
{
	char c;
	ssize_t n;

	do
		n = read(gate, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(126);	/* the parent could not attach; it says why */
	execvp(argv[0], argv);
	fprintf(stderr, PTIME ": %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Wait until the child sleeps on its gate.  Then what it does before the
 * command (its close() and the read() it sleeps in) is all in the base
 * reading taken next, and taken off the command's counts.  A child slow to
 * run (a busy machine) would otherwise make those calls after the base
 * and add them to the command's: two system calls, in ptime_proc's
 * syscall check.  Between fork and the read it cannot sleep interruptibly
 * ('S'); a page fault waits in 'D'.  After PTIME_GATE_NS go on anyway.
 */
static void wait_at_gate(int pid)
{
	const struct timespec nap = { .tv_nsec = PTIME_GATE_POLL_NS };
	__u64 deadline = mono_ns() + PTIME_GATE_NS, tick;
	char path[64], buf[1024];
	struct proc_thr t;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	do {
		if (proc_read_at(AT_FDCWD, path, buf, sizeof(buf)) ||
		    proc_parse_stat(buf, &t, &tick) ||
		    (t.state != 'R' && t.state != 'D'))
			return;
		nanosleep(&nap, NULL);
	} while (mono_ns() < deadline);
}

static int wait_child(int pid, struct rusage *ru)
{
	int status;

	while (wait4(pid, &status, 0, ru) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/*
 * Wait until process pid exits (1) or, with sigs, SIGINT/SIGTERM arrives
 * (0), reading the session every ms milliseconds so that exited threads do
 * not pile up in the module (and, from /proc, have a recent reading).  Our
 * own child is left to be reaped.
 */
static int watch(struct lwprof_usage_src *src, int pid,
		 struct lwprof_usage_set *set, bool sigs, int ms)
{
	struct signalfd_siginfo si;
	struct pollfd p[2];
	sigset_t mask, old;
	int sfd = -1, pidfd, n, ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigs) {
		sigprocmask(SIG_BLOCK, &mask, &old);
		sfd = signalfd(-1, &mask, SFD_CLOEXEC);
		if (sfd < 0) {
			ret = -errno;
			sigprocmask(SIG_SETMASK, &old, NULL);
			return ret;
		}
	}
	/* Without pidfds (before Linux 5.3), ask kill() every 100 ms. */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	for (;;) {
		n = poll(p, pidfd < 0 ? 1 : 2, pidfd < 0 && ms > 100 ? 100 : ms);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (n > 0 && p[0].revents) {
			/* Take it, or it kills us once unblocked. */
			ret = read(sfd, &si, sizeof(si)) < 0 ? -errno : 0;
			break;
		}
		ret = 1;
		if (pidfd < 0 ? kill(pid, 0) < 0 && errno == ESRCH :
		    n > 0 && p[1].revents)
			break;
		if (lwprof_src_read(src, set) == 0 && !set->live)
			break;	/* gone, with all its children */
	}
	if (pidfd >= 0)
		close(pidfd);
	if (sigs) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return ret;
}

static int run_command(struct lwprof_usage_src *src, struct ptime_opts *o,
		       char **argv)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	bool proc = src->be->usage->polled;
	struct lwprof_usage_set set, base;
	__u64 t0 = 0, real = 0;
	struct rusage ru;
	int gate[2], status, err;

	if (pipe2(gate, O_CLOEXEC) < 0) {
		fprintf(stderr, PTIME ": pipe: %s\n", strerror(errno));
		return 1;
	}
	/* From /proc: orphans of the command come to us, to be read dead. */
	if (proc)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	o->pid = fork();
	if (o->pid < 0) {
		fprintf(stderr, PTIME ": fork: %s\n", strerror(errno));
		close(gate[0]);
		close(gate[1]);
		return 1;
	}
	if (!o->pid) {
		close(gate[1]);
		child(gate[0], argv);
	}
	close(gate[0]);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);

	/*
	 * The command starts when the child is let go: what it did until
	 * then (wait on the gate while the session was set up) is read now
	 * and taken off at the end.
	 */
	lwprof_usage_init(&base);
	lwprof_usage_init(&set);
	wait_at_gate(o->pid);
	err = lwprof_src_attach(src, 0, o->pid);
	if (!err)
		err = lwprof_src_read(src, &base);
	if (!err && write(gate[1], "g", 1) != 1)
		err = -errno;
	t0 = mono_ns();
	close(gate[1]);		/* on error, the child exits */
	if (proc && !err) {
		/*
		 * Read it as it runs, then once more as a zombie (its final
		 * times), and only then reap it.
		 */
		if (watch(src, o->pid, &set, false, PTIME_PROC_MS) == 1)
			real = mono_ns() - t0;
		lwprof_src_read(src, &set);
	}
	status = wait_child(o->pid, &ru);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (err) {
		lwprof_usage_free(&base);
		lwprof_usage_free(&set);
		return attach_error(src, err, o->pid);
	}
	if (status < 0) {
		fprintf(stderr, PTIME ": waitpid: %s\n", strerror(-status));
		lwprof_usage_free(&base);
		lwprof_usage_free(&set);
		return 1;
	}
	report(src, o, &set, &base, true, real, proc ? &ru : NULL);
	lwprof_usage_free(&base);
	return exit_status(status);
}

static int watch_process(struct lwprof_usage_src *src, struct ptime_opts *o)
{
	bool proc = src->be->usage->polled;
	struct lwprof_usage_set set, base;
	int err, exited;
	__u64 t0;

	err = lwprof_src_attach(src, 0, o->pid);
	if (err)
		return attach_error(src, err, o->pid);
	lwprof_usage_init(&set);
	lwprof_usage_init(&base);
	/* From /proc, threads have counted since they started: from now. */
	if (proc)
		err = lwprof_src_read(src, &base);
	t0 = mono_ns();
	exited = err ? err : watch(src, o->pid, &set, true,
				   proc ? PTIME_PROC_MS : PTIME_DRAIN_MS);
	if (exited < 0) {
		fprintf(stderr, PTIME ": waiting for PID %d: %s\n", o->pid,
			strerror(-exited));
		lwprof_usage_free(&set);
		lwprof_usage_free(&base);
		return 1;
	}
	err = report(src, o, &set, proc ? &base : NULL, exited,
		     proc ? mono_ns() - t0 : 0, NULL);
	lwprof_usage_free(&base);
	return err ? 1 : 0;
}

int cmd_ptime(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "backend", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "+:mLp:h";
	struct ptime_opts o = { .backend = NULL };
	struct lwprof_usage_src src;
	const char *pid_arg = NULL;
	int c, err, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o.mstate = true;
			break;
		case 'L':
			o.threads = true;
			break;
		case 'p':
			pid_arg = optarg;
			break;
		case 'B':
			if (backend_parse(optarg, &o.backend)) {
				fprintf(stderr, PTIME ": --backend: want module, perf or auto, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return exp_option_error(PTIME, argv, c, shortopts, lopts);
		}
	}
	if (!pid_arg == (optind >= argc)) {
		fprintf(stderr, PTIME ": %s\n", pid_arg ?
			"give either -p PID or a command, not both" :
			"no command given");
		usage(stderr);
		return 2;
	}
	if (pid_arg && lwprof_parse_pid(pid_arg, &o.pid)) {
		fprintf(stderr, PTIME ": -p: '%s' is not a process id\n", pid_arg);
		return 2;
	}

	err = lwprof_src_open(&src, o.backend);
	if (err < 0) {
		fprintf(stderr, PTIME ": %s\n", lwprof_src_open_strerror(&src, err));
		return 1;
	}
	if (pid_arg)
		ret = watch_process(&src, &o);
	else
		ret = run_command(&src, &o, argv + optind);
	lwprof_src_close(&src);
	return ret;
}
