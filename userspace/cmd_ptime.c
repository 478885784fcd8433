// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof ptime: Solaris's ptime(1) on Linux.  Run a command (or watch a
 * process) in a microstate session and print, on stderr, where the time of
 * all its threads went: real, user, sys; with -m all ten microstates; with
 * -L one row per thread as well.
 *
 *   lwprof ptime [-m] [-L] CMD [ARGS...]   exit status: CMD's
 *   lwprof ptime [-m] [-L] -p PID          until PID exits or ^C; exit 0
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
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "dev.h"
#include "libexp/mstate_names.h"
#include "usage.h"

#define PTIME "lwprof ptime"

/* After the command exits, how long its threads may take to go. */
#define PTIME_SETTLE_NS		2000000000ULL
#define PTIME_POLL_NS		1000000L
/* While watching a process: drain exited threads this often. */
#define PTIME_DRAIN_MS		1000

struct ptime_opts {
	bool mstate;		/* -m */
	bool threads;		/* -L */
	int pid;		/* -p, or the command's */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lwprof ptime [-m] [-L] CMD [ARGS...]\n"
		"       lwprof ptime [-m] [-L] -p PID\n"
		"  -m      all ten microstates, not just real/user/sys\n"
		"  -L      one row per thread as well\n"
		"  -p PID  watch process PID until it exits (or ^C)\n"
		"Times go to stderr, in seconds.\n");
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

static int ms_columns(bool mstate)
{
	return mstate ? LWPROF_MS_COUNT : 2;
}

static void print_totals(const struct lwprof_usage_set *set,
			 const struct ptime_opts *o, __u64 real)
{
	struct lwprof_usage_sum sum;
	char b[32];
	size_t t;
	int i;

	memset(&sum, 0, sizeof(sum));
	for (t = 0; t < set->n; t++)
		lwprof_usage_add(&sum, &set->tu[t], NULL);

	fprintf(stderr, "\n%-6s %15s\n", "real", lwprof_fmt_sec(b, sizeof(b), real));
	for (i = 0; i < ms_columns(o->mstate); i++)
		fprintf(stderr, "%-6s %15s\n",
			exp_mstate_names[lwprof_ms_order[i]].ptime,
			lwprof_fmt_sec(b, sizeof(b), ms_value(&sum, i, o->mstate)));
}

static void print_threads(const struct lwprof_usage_set *set,
			  const struct ptime_opts *o)
{
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
			fprintf(stderr, " %14s", lwprof_fmt_sec(b, sizeof(b),
					ms_value(&s, i, o->mstate)));
		if (o->mstate)
			fprintf(stderr, " %7llu %7llu %7llu %7llu %8llu %7llu",
				(unsigned long long)s.vcsw,
				(unsigned long long)s.ivcsw,
				(unsigned long long)s.minflt,
				(unsigned long long)s.majflt,
				(unsigned long long)s.syscalls,
				(unsigned long long)s.signals);
		fprintf(stderr, " %.*s\n", (int)sizeof(tu->comm), tu->comm);
	}
}

/*
 * Read the session's threads into set; with settle, keep reading (every
 * millisecond, for up to two seconds) until none is live: threads finish
 * their last context switch a little after their parent can reap them.
 */
static int collect(int fd, struct lwprof_usage_set *set, bool settle)
{
	struct timespec tick = { 0, PTIME_POLL_NS };
	__u64 deadline = mono_ns() + PTIME_SETTLE_NS;
	int err;

	for (;;) {
		err = lwprof_usage_read(fd, set);
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
	return 0;
}

/*
 * Collect the session's threads into set and print them; with base, the
 * threads in it count from their records there.
 */
static int report(int fd, const struct ptime_opts *o,
		  struct lwprof_usage_set *set,
		  const struct lwprof_usage_set *base, bool settle)
{
	int err = collect(fd, set, settle);

	if (!err) {
		if (base)
			lwprof_usage_rebase(set, base);
		print_totals(set, o, lwprof_usage_real(set, o->pid));
		if (o->threads)
			print_threads(set, o);
	}
	lwprof_usage_free(set);
	return err;
}

static int attach_error(int err, int pid)
{
	char buf[128];

	fprintf(stderr, PTIME ": %s\n",
		lwprof_session_strerror(err, 0, pid, buf, sizeof(buf)));
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

static int wait_child(int pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
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

static int run_command(int fd, struct ptime_opts *o, char **argv)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct lwprof_usage_set set, base;
	int gate[2], status, err;

	if (pipe2(gate, O_CLOEXEC) < 0) {
		fprintf(stderr, PTIME ": pipe: %s\n", strerror(errno));
		return 1;
	}
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
	err = lwprof_session_attach(fd, 0, o->pid);
	if (!err)
		err = lwprof_usage_read(fd, &base);
	if (!err && write(gate[1], "g", 1) != 1)
		err = -errno;
	close(gate[1]);		/* on error, the child exits */
	status = wait_child(o->pid);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (err) {
		lwprof_usage_free(&base);
		return attach_error(err, o->pid);
	}
	if (status < 0) {
		fprintf(stderr, PTIME ": waitpid: %s\n", strerror(-status));
		lwprof_usage_free(&base);
		return 1;
	}
	lwprof_usage_init(&set);
	report(fd, o, &set, &base, true);
	lwprof_usage_free(&base);
	return exit_status(status);
}

/*
 * Wait until process pid exits (1) or SIGINT/SIGTERM arrives (0), reading
 * the session now and then so that exited threads do not pile up in the
 * module.
 */
static int watch(int fd, int pid, struct lwprof_usage_set *set)
{
	struct signalfd_siginfo si;
	struct pollfd p[2];
	sigset_t mask, old;
	int sfd, pidfd, n, ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		ret = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return ret;
	}
	/* Without pidfds (before Linux 5.3), ask kill() every 100 ms. */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	for (;;) {
		n = poll(p, pidfd < 0 ? 1 : 2, pidfd < 0 ? 100 : PTIME_DRAIN_MS);
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
		if (lwprof_usage_read(fd, set) == 0 && !set->live)
			break;	/* gone, with all its children */
	}
	if (pidfd >= 0)
		close(pidfd);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int watch_process(int fd, struct ptime_opts *o)
{
	struct lwprof_usage_set set;
	int err, exited;

	err = lwprof_session_attach(fd, 0, o->pid);
	if (err)
		return attach_error(err, o->pid);
	lwprof_usage_init(&set);
	exited = watch(fd, o->pid, &set);
	if (exited < 0) {
		fprintf(stderr, PTIME ": waiting for PID %d: %s\n", o->pid,
			strerror(-exited));
		lwprof_usage_free(&set);
		return 1;
	}
	return report(fd, o, &set, NULL, exited) ? 1 : 0;
}

int cmd_ptime(int argc, char **argv)
{
	struct ptime_opts o = { 0 };
	const char *pid_arg = NULL;
	int c, fd, ret;

	optind = 1;
	while ((c = getopt(argc, argv, "+mLp:h")) != -1) {
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
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

	fd = lwprof_session_open();
	if (fd < 0) {
		fprintf(stderr, PTIME ": %s\n", lwprof_dev_strerror(fd));
		return 1;
	}
	if (pid_arg)
		ret = watch_process(fd, &o);
	else
		ret = run_command(fd, &o, argv + optind);
	close(fd);
	return ret;
}
