// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect: record an experiment (docs/design/experiment-format.md).
 *
 *   lwprof collect [options] CMD [ARGS...]     exit status: CMD's
 *   lwprof collect [options] -P PID [-t DUR]   a running process
 *   lwprof collect [options] -a [-t DUR | CMD] the whole machine
 *
 * The records come from a recording source (backend/backend.h: lwprof.ko's rings, or perf's).
 * One io_uring runs everything: a multishot poll on the source's poll_fd
 * (/dev/lwprof: the rings reached their watermark), a timer (250 ms, or
 * the source's period) that flushes whatever the rings hold, a poll on a
 * signalfd (SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP), a pidfd poll (-P), the -t deadline, and the writes of
 * drain.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
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

#include "collector/proto.h"
#include "libexp/format.h"
#include "userspace/collect/collect.h"

#define FLUSH_NS	250000000LL	/* the timed flush */
#define SETTLE_NS	2000000000ULL	/* for the last threads to go */
#define SETTLE_TICK_NS	5000000LL
#define USAGE_TICKS	4		/* read exited threads every 4 flushes */

enum state { RUNNING, SETTLING, STOPPING, DONE };

struct run {
	const struct rec_opts *o;
	struct rec_source *src;
	struct exp_writer e;
	struct drain *d;
	struct archiver *arch;
	struct io_uring *ring;
	struct lwprof_usage_set usage;
	int sfd, pidfd;
	char **argv;		/* what the child execs (collect -j may add options) */
	pid_t child;		/* 0 once reaped (or none) */
	pid_t child_pid;	/* the command's process, reaped or not */
	int status;		/* the child's wait status */
	enum state state;
	__u64 settle_end;
	unsigned int ticks, kills, spill_err, stop_said;
	int write_err;
	char msg[320];		/* why setup failed */
	struct __kernel_timespec flush_ts, settle_ts, deadline_ts;
	struct __kernel_timespec gs_ts, tstart_ts;
	struct gsamp gs;	/* global sample packets, the pause state */
	__u64 gs_next;		/* when the next -S packet is due */
	struct ctl ctl;		/* the collector API's channel */
	bool halted;		/* recording stopped, the command runs on */
	bool no_exec;		/* the command could not be run */
	struct flight *fl;	/* --flight: the records in memory */
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int arm_poll(struct io_uring *ring, int fd, int kind, int multishot)
{
	struct io_uring_sqe *sqe = drain_sqe(ring);

	if (!sqe)
		return -EBUSY;
	if (multishot)
		io_uring_prep_poll_multishot(sqe, fd, POLLIN);
	else
		io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, UD_MAKE(kind, 0));
	return 0;
}

/* A timeout ns from now, or (flags IORING_TIMEOUT_ABS) at monotonic ns. */
static int arm_timeout_at(struct io_uring *ring, struct __kernel_timespec *ts,
			  long long ns, int kind, unsigned int flags)
{
	struct io_uring_sqe *sqe = drain_sqe(ring);

	if (!sqe)
		return -EBUSY;
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
	io_uring_prep_timeout(sqe, ts, 0, flags);
	io_uring_sqe_set_data64(sqe, UD_MAKE(kind, 0));
	return 0;
}

static int arm_timeout(struct io_uring *ring, struct __kernel_timespec *ts,
		       long long ns, int kind)
{
	return arm_timeout_at(ring, ts, ns, kind, 0);
}

/* The next -S packet on the grid from the start: late ones do not drift. */
static int arm_gsample(struct run *r)
{
	__u64 now = mono_ns();

	do
		r->gs_next += r->o->sample_ns;
	while (r->gs_next <= now);
	return arm_timeout_at(r->ring, &r->gs_ts, r->gs_next, UD_GSAMPLE,
			      IORING_TIMEOUT_ABS);
}

/*
 * The source's threads (r->usage.live: how many still run), if it knows;
 * said once: another session ended ours (ABI 1.7).
 */
static int read_usage(struct run *r)
{
	int err;

	if (!r->src->ops->usage)
		return 0;
	err = r->src->ops->usage(r->src, &r->usage);
	if (r->usage.stopped && !r->stop_said++) {
		fprintf(stderr, "lwprof collect: recording ended early: %s; the command runs on\n",
			exp_stop_why(r->usage.stopped));
		exp_warn(&r->e, "recording ended early: %s",
			 exp_stop_why(r->usage.stopped));
	}
	return err;
}

/*
 * Threads the module stopped recording (ABI 1.7, LWPROF_TU_STOPPED): their
 * final rows say why, and so does log.txt.
 */
static void note_stopped(struct exp_writer *e,
			 const struct lwprof_thread_usage *tu, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tu[i].flags & LWPROF_TU_STOPPED)
			exp_warn(e, "pid %u tid %u (%.16s) not recorded from then on: %s",
				 tu[i].pid, tu[i].tid, tu[i].comm,
				 exp_stop_why(LWPROF_TU_WHY(tu[i].flags)));
}

static int put_usage(void *arg, const struct lwprof_thread_usage *tu,
		     size_t n)
{
	int err = exp_append_usage(arg, tu, n);

	if (!err)
		note_stopped(arg, tu, n);
	return err;
}

/*
 * Exited threads' totals go to usage.txt as they are read, so that a long
 * run keeps only the live threads (docs/design/reliability.md).  On an error they
 * stay in the set: if the file could not be made, the final exp_write_usage
 * tries again; if writing it failed, that error ends it (no usage.txt,
 * with a warning), so that no row is written twice.
 */
static void spill_usage(struct run *r)
{
	int err = lwprof_usage_spill(&r->usage, put_usage, &r->e);

	if (err && !r->spill_err++)
		exp_warn(&r->e, "writing " EXP_USAGE " during the run: %s (the exited threads' totals stay in memory)",
			 strerror(-err));
}

/* A new mapping (hold its file now, while it is surely there), an exec. */
static void on_rec(void *arg, const struct lwprof_rec *rec)
{
	archiver_rec(arg, rec);
}

static void halt(struct run *r, const char *why);

/*
 * The flight recorder's window as an experiment; its archiver is told
 * the command's process as the run's is (0 without a command: -P, -a).
 */
static void snapshot(struct run *r, __u64 now)
{
	if (r->src->ops->sync && !r->halted)
		r->src->ops->sync(r->src);
	flight_write(r->fl, &r->e, r->o, r->o->argv ? r->child_pid : 0,
		     r->src->abi_major, r->src->abi_minor, &r->gs, now);
}

/* The experiment's bytes so far: record files and samples.rec. */
static __u64 exp_bytes(struct run *r)
{
	return drain_bytes(r->d) + r->e.samples_bytes +
	       (__u64)r->e.nr_files * sizeof(struct exp_file_header);
}

static void on_ctl(struct run *r);

static void kick(struct run *r)
{
	int err;

	if (r->fl) {
		/* a pause the target asked for first: its samples are not kept */
		on_ctl(r);
		flight_take(r->fl, mono_ns());
		return;
	}
	err = drain_kick(r->d);

	if (err && !r->write_err) {
		r->write_err = err;
		exp_warn(&r->e, "draining the rings: %s", strerror(-err));
	}
	if (r->o->limit_bytes && !r->halted && exp_bytes(r) >= r->o->limit_bytes) {
		exp_warn(&r->e, "the data limit (-L %llu MB) was reached %.3f s into the run: recording stopped",
			 (unsigned long long)(r->o->limit_bytes >> 20),
			 (mono_ns() - r->e.start_ns) / 1e9);
		halt(r, "data limit");
	}
}

/* Messages of the collector API (collector/proto.h), as they come. */
static void on_ctl(struct run *r)
{
	struct lwprof_ctl_msg m;
	__u64 now = mono_ns();

	while (ctl_read(&r->ctl, &m) > 0)
		if (!r->halted &&
		    ctl_apply(&r->gs, r->o, &m, r->e.start_ns, now) > 0)
			halt(r, "collector_terminate_expt");
}

/* Stop the source: the experiment's data ends here. */
static void end_recording(struct run *r)
{
	__u64 t = mono_ns();	/* the data ends as the source is asked */

	if (r->halted)
		return;
	r->halted = true;
	r->src->ops->stop(r->src, &r->e);
	/*
	 * The run ends where its data does, not when the stop returns: the
	 * module sends each CPU's last idle packet first, then waits for
	 * every probe to finish (an RCU grace period, tens of milliseconds
	 * on PREEMPT_RT in the test guest), time no packet holds.
	 */
	r->e.end_ns = t;
	clock_gettime(CLOCK_REALTIME, &r->e.end_rt);
	gs_end(&r->gs, t, NULL);
}

static void stop(struct run *r)
{
	if (r->state >= STOPPING)
		return;
	end_recording(r);
	r->state = STOPPING;
	kick(r);
}

/*
 * Recording ends before the command does (-L, -t END,
 * collector_terminate_expt): what was recorded is written, the command
 * runs on and collect waits for it, as Oracle's collect does.  Attached
 * to a process or the machine, the run ends here.
 */
static void halt(struct run *r, const char *why)
{
	if (r->state != RUNNING || r->halted)
		return;
	if (r->o->mode != MODE_COMMAND || r->child <= 0) {
		exp_note(&r->e, EXP_K_STOPPED, "%s", why);
		stop(r);
		return;
	}
	end_recording(r);
	exp_note(&r->e, EXP_K_STOPPED, "%s", why);
}

/* The target is gone: wait (a little) for the threads it left running. */
static void settle(struct run *r)
{
	if (r->state != RUNNING)
		return;
	if (r->o->mode == MODE_MACHINE) {
		stop(r);
		return;
	}
	r->state = SETTLING;
	r->settle_end = mono_ns() + SETTLE_NS;
	arm_timeout(r->ring, &r->settle_ts, 0, UD_SETTLE);
}

static void settle_tick(struct run *r)
{
	if (r->state != SETTLING)
		return;
	read_usage(r);
	if (!r->usage.live) {
		stop(r);
	} else if (mono_ns() >= r->settle_end) {
		exp_warn(&r->e, "%u thread%s still running 2 s after the target ended; recorded until then",
			 r->usage.live, r->usage.live == 1 ? "" : "s");
		stop(r);
	} else {
		arm_timeout(r->ring, &r->settle_ts, SETTLE_TICK_NS, UD_SETTLE);
	}
}

static void on_signal(struct run *r)
{
	struct signalfd_siginfo si;
	int st;

	while (read(r->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->child > 0 && r->gs.pid == r->child)
				gs_refresh(&r->gs);	/* its final counts */
			if (r->child > 0 && waitpid(r->child, &st, WNOHANG) ==
			    r->child) {
				r->status = st;
				r->e.exit_status = st;
				r->child = 0;
				settle(r);
			}
			continue;
		}
		if (r->fl && (int)si.ssi_signo == r->o->sig_flight) {
			snapshot(r, mono_ns());
			continue;
		}
		if ((int)si.ssi_signo == r->o->sig_sample) {
			if (!r->halted)
				gs_emit(&r->gs, EXP_GS_SIGNAL, mono_ns(),
					sigabbrev_np(si.ssi_signo));
			continue;
		}
		if ((int)si.ssi_signo == r->o->sig_pause) {
			if (!r->halted)
				gs_toggle(&r->gs, mono_ns(),
					  sigabbrev_np(si.ssi_signo));
			continue;
		}
		/* SIGINT, SIGTERM, SIGHUP: end the run cleanly. */
		if (r->child > 0) {
			kill(r->child, r->kills++ ? SIGKILL : SIGTERM);
			continue;	/* its exit ends the run */
		}
		stop(r);
	}
}

/* The timed flush's period: the source's, or FLUSH_NS. */
static __u64 flush_ns(const struct run *r)
{
	return r->src->flush_ns ? r->src->flush_ns : FLUSH_NS;
}

static void on_flush(struct run *r)
{
	kick(r);
	if (r->state == RUNNING && ++r->ticks % USAGE_TICKS == 0) {
		read_usage(r);
		/*
		 * The flight recorder writes no usage.txt (its windows are not
		 * the run): read, so that the module lets exited threads go,
		 * but not kept, so that memory does not grow with them.
		 */
		if (r->fl)
			lwprof_usage_clear(&r->usage);
		else
			spill_usage(r);
		if (r->o->mode == MODE_ATTACH && r->pidfd < 0 &&
		    kill(r->o->pid, 0) < 0 && errno == ESRCH) {
			r->e.exited = true;
			settle(r);
		}
	}
	if (r->state < STOPPING)
		arm_timeout(r->ring, &r->flush_ts, flush_ns(r), UD_FLUSH);
}

static void handle(struct run *r, struct io_uring_cqe *cqe)
{
	__u64 ud = io_uring_cqe_get_data64(cqe);
	int more = cqe->flags & IORING_CQE_F_MORE;
	int err;

	switch (UD_KIND(ud)) {
	case UD_POLL:
		if (cqe->res >= 0)
			kick(r);
		if (!more && cqe->res >= 0)
			arm_poll(r->ring, r->src->poll_fd, UD_POLL, 1);
		break;
	case UD_SIGNAL:
		on_signal(r);
		if (!more)
			arm_poll(r->ring, r->sfd, UD_SIGNAL, 1);
		break;
	case UD_FLUSH:
		on_flush(r);
		break;
	case UD_SETTLE:
		settle_tick(r);
		break;
	case UD_PIDFD:
		r->e.exited = true;
		settle(r);
		break;
	case UD_DEADLINE:
		halt(r, "-t END");
		break;
	case UD_TSTART:
		gs_resume(&r->gs, mono_ns(), "-t START");
		break;
	case UD_GSAMPLE:
		if (r->state == RUNNING && !r->halted) {
			gs_emit(&r->gs, EXP_GS_PERIODIC, mono_ns(), NULL);
			arm_gsample(r);
		}
		break;
	case UD_CTL:
		on_ctl(r);
		if (!more)
			arm_poll(r->ring, r->ctl.fd, UD_CTL, 1);
		break;
	case UD_WRITE:
		err = drain_complete(r->d, ud & ((1ULL << 56) - 1), cqe->res);
		if (err && !r->write_err) {
			r->write_err = err;
			exp_warn(&r->e, "writing the experiment: %s; records were lost",
				 strerror(-err));
		}
		kick(r);
		break;
	}
}

static void loop(struct run *r)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int err;

	while (r->state != DONE) {
		err = io_uring_submit_and_wait(r->ring, 1);
		if (err < 0 && err != -EINTR && err != -ETIME) {
			exp_warn(&r->e, "io_uring: %s", strerror(-err));
			stop(r);
			break;
		}
		n = 0;
		io_uring_for_each_cqe(r->ring, head, cqe) {
			handle(r, cqe);
			n++;
		}
		io_uring_cq_advance(r->ring, n);
		if (r->state != STOPPING || drain_busy(r->d))
			continue;
		if (!drain_empty(r->d))
			kick(r);
		if (drain_empty(r->d)) {
			r->state = DONE;
		} else if (!drain_busy(r->d)) {
			/* Nothing in flight and nothing more can go: give up. */
			exp_warn(&r->e, "the rings could not be written out completely");
			r->state = DONE;
		}
	}
}

/*
 * The child: wait for the go, then become CMD; if it cannot, errno to
 * xerr (close-on-exec: the parent reads nothing when the exec worked).
 */
static void child_main(int gate, int xerr, char **argv, const sigset_t *mask)
{
	int e;

	ssize_t n;
	char c;

	sigprocmask(SIG_SETMASK, mask, NULL);
	do
		n = read(gate, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(126);	/* the recorder failed; it says why */
	execvp(argv[0], argv);
	e = errno;
	fprintf(stderr, COLLECT ": %s: %s\n", argv[0], strerror(e));
	if (write(xerr, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

/* "what: why" into r->msg; returns err. */
static int say(struct run *r, int err, const char *what)
{
	snprintf(r->msg, sizeof(r->msg), "%s: %s", what, strerror(-err));
	return err;
}

/* The experiment's files, the drain into them and the archiver. */
static int setup_files(struct run *r)
{
	struct rec_source *src = r->src;
	int err;

	err = exp_create_files(&r->e, src->nr_rings, src->abi_major,
			       src->abi_minor);
	if (err)
		return say(r, err, "creating the record files");
	err = exp_create_samples(&r->e, src->abi_major, src->abi_minor);
	if (err)
		return say(r, err, "creating " EXP_SAMPLES);
	err = drain_create(&r->d, src->rings, src->nr_rings, r->e.fds);
	if (err)
		return say(r, err, "setting up the drain");
	r->ring = drain_ring(r->d);
	err = archiver_start(&r->e, r->child, &r->arch);
	if (err)
		return say(r, err, "creating " EXP_ARCHIVES "/");
	drain_watch(r->d, 1U << LWPROF_REC_MMAP | 1U << LWPROF_REC_TASK, on_rec,
		    r->arch);
	return 0;
}

/*
 * --flight: no files until a snapshot; the drain's io_uring only runs the
 * loop, the flight recorder takes the rings' records.
 */
static int setup_flight(struct run *r)
{
	struct rec_source *src = r->src;
	int err;

	r->e.nr_files = src->nr_rings;
	r->e.lost_file = calloc(src->nr_rings, sizeof(*r->e.lost_file));
	if (!r->e.lost_file)
		return say(r, -ENOMEM, "the flight recorder");
	err = flight_create(&r->fl, r->o, src->rings, src->nr_rings, &r->gs);
	if (err)
		return say(r, err, "the flight recorder's memory");
	r->gs.sink = flight_gs;
	r->gs.sink_arg = r->fl;
	err = drain_create(&r->d, NULL, 0, NULL);
	if (err)
		return say(r, err, "setting up the loop");
	r->ring = drain_ring(r->d);
	return 0;
}

/*
 * Attach the source to the target, open the files for its rings, start
 * draining and sampling.  On an error r->msg says what failed.
 */
static int setup(struct run *r)
{
	const struct rec_opts *o = r->o;
	struct rec_source *src = r->src;
	int err, pid;

	pid = o->mode == MODE_ATTACH ? o->pid : r->child;
	r->e.target = pid;
	if (o->mode == MODE_MACHINE)
		pid = 0;
	err = src->ops->setup(src, pid, &r->e, r->msg, sizeof(r->msg));
	if (err)
		return err;
	r->gs.e = &r->e;
	r->gs.pid = o->mode == MODE_MACHINE ? r->child : r->e.target;
	if (o->flight_bytes || o->flight_ns) {
		err = setup_flight(r);
		if (err)
			return err;
	} else {
		err = setup_files(r);
		if (err)
			return err;
	}
	if ((src->poll_fd >= 0 &&
	     arm_poll(r->ring, src->poll_fd, UD_POLL, 1)) ||
	    arm_poll(r->ring, r->sfd, UD_SIGNAL, 1) ||
	    arm_timeout(r->ring, &r->flush_ts, flush_ns(r), UD_FLUSH))
		return say(r, -EBUSY, "arming io_uring");
	if (o->mode == MODE_ATTACH) {
		r->pidfd = syscall(SYS_pidfd_open, o->pid, 0);
		if (r->pidfd >= 0 && arm_poll(r->ring, r->pidfd, UD_PIDFD, 0))
			return say(r, -EBUSY, "arming io_uring");
	}
	if ((o->duration_ns &&
	     arm_timeout(r->ring, &r->deadline_ts, o->duration_ns, UD_DEADLINE)) ||
	    (o->start_ns &&
	     arm_timeout(r->ring, &r->tstart_ts, o->start_ns, UD_TSTART)) ||
	    (r->ctl.fd >= 0 && arm_poll(r->ring, r->ctl.fd, UD_CTL, 1)))
		return say(r, -EBUSY, "arming io_uring");
	r->e.start_ns = r->gs_next = mono_ns();
	if (o->sample_ns && arm_gsample(r))
		return say(r, -EBUSY, "arming io_uring");
	clock_gettime(CLOCK_REALTIME, &r->e.start_rt);
	err = src->ops->start(src, r->msg, sizeof(r->msg));
	if (err)
		return err;
	/* sample 1 begins; -t START or -y without ,r: paused from here */
	err = gs_emit(&r->gs, EXP_GS_START, r->e.start_ns, NULL);
	if (!err && o->start_ns)
		err = gs_pause(&r->gs, r->e.start_ns, "-t START");
	else if (!err && o->sig_pause && o->start_paused)
		err = gs_pause(&r->gs, r->e.start_ns, sigabbrev_np(o->sig_pause));
	if (err)
		return say(r, err, "writing " EXP_SAMPLES);
	err = io_uring_submit(r->ring);
	return err < 0 ? say(r, err, "io_uring") : 0;
}

static void finish(struct run *r)
{
	int err;

	err = read_usage(r);
	if (err)
		exp_warn(&r->e, "reading the final usage: %s", strerror(-err));
	if (r->usage.lost)
		exp_warn(&r->e, "%llu threads were not accounted (the module ran out of memory)",
			 (unsigned long long)r->usage.lost);
	r->src->ops->finish(r->src, &r->e);
	exp_note(&r->e, EXP_K_SAMPLE_PACKETS, "%llu",
		 (unsigned long long)r->gs.packets);
	exp_note(&r->e, EXP_K_PAUSED_NS, "%llu",
		 (unsigned long long)r->gs.paused_ns);
	r->e.finished = true;
	if (r->fl) {
		/* at the end: the last window, as on the signal */
		snapshot(r, r->e.end_ns);
		return;
	}
	err = r->src->ops->usage ?
		exp_write_usage(&r->e, r->usage.tu, r->usage.n) : 0;
	if (!err)
		note_stopped(&r->e, r->usage.tu, r->usage.n);
	if (err)
		exp_warn(&r->e, "writing " EXP_USAGE ": %s", strerror(-err));
	collect_trace_adopt(r->o, &r->e, r->arch);
	collect_java_adopt(r->o, &r->e);
	archiver_finish(r->arch, drain_watch_missed(r->d));
	r->arch = NULL;
	err = exp_write_log(&r->e);
	if (err)
		fprintf(stderr, COLLECT ": writing %s/" EXP_LOG ": %s\n", r->e.path,
			strerror(-err));
}

static int exit_code(const struct run *r)
{
	if (r->o->mode != MODE_COMMAND && !r->o->argv)
		return 0;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status))
		return 128 + WTERMSIG(r->status);
	return 1;
}

static int run(struct run *r)
{
	sigset_t mask, old;
	int gate[2] = { -1, -1 }, xerr[2] = { -1, -1 }, err, st;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (r->o->sig_sample)
		sigaddset(&mask, r->o->sig_sample);
	if (r->o->sig_pause)
		sigaddset(&mask, r->o->sig_pause);
	if (r->o->flight_bytes || r->o->flight_ns)
		sigaddset(&mask, r->o->sig_flight);
	err = collect_trace_env(r->o, &r->e, r->src->ops != &collect_trace_only,
				r->msg, sizeof(r->msg));
	if (!err)
		err = collect_java_env(r->o, &r->e, &r->argv, r->msg,
				       sizeof(r->msg));
	if (err) {
		fprintf(stderr, COLLECT ": %s\n", r->msg);
		return 1;
	}
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (r->o->argv) {
		if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(xerr, O_CLOEXEC) < 0)
			return -errno;
		err = ctl_open(&r->ctl, r->o);
		if (err)
			return err;
		if ((r->o->sig_sample || r->o->sig_pause) && !r->ctl.preload)
			exp_warn(&r->e, "liblwprof_collector.so not found beside lwprof or in ../lib: -l and -y signals reach collect only (kill -SIG %d), not the command",
				 (int)getpid());
		fflush(NULL);
		r->child = r->child_pid = fork();
		if (r->child < 0)
			return -errno;
		if (!r->child) {
			close(gate[1]);
			close(xerr[0]);
			ctl_child(&r->ctl, r->o);
			child_main(gate[0], xerr[1], r->argv, &old);
		}
		close(gate[0]);
		close(xerr[1]);
		close(r->ctl.child_fd);
		r->ctl.child_fd = -1;
	}
	r->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	err = r->sfd < 0 ? say(r, -errno, "signalfd") : setup(r);
	if (!err && !r->fl) {
		err = exp_write_log(&r->e);
		if (err)
			say(r, err, "writing " EXP_LOG);
	}
	if (!err && gate[1] >= 0 && write(gate[1], "g", 1) != 1)
		err = say(r, -errno, "starting the command");
	if (gate[1] >= 0)
		close(gate[1]);		/* on error, the child exits */
	if (err) {
		fprintf(stderr, COLLECT ": %s\n", r->msg);
		if (r->child > 0)
			waitpid(r->child, &st, 0);
		if (xerr[0] >= 0)
			close(xerr[0]);
		return 1;
	}
	/*
	 * The command could not be run (it said why): nothing was recorded
	 * of it, and no experiment is left.  The exit status is the shell's:
	 * 127 for a command not found, 126 for one that cannot be run.
	 */
	if (xerr[0] >= 0) {
		int e;
		ssize_t n;

		do
			n = read(xerr[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(xerr[0]);
		if (n == sizeof(e)) {
			r->no_exec = true;
			waitpid(r->child, &st, 0);
			r->child = 0;
			sigprocmask(SIG_SETMASK, &old, NULL);
			fprintf(stderr, COLLECT ": nothing recorded: no experiment written\n");
			return e == ENOENT ? 127 : 126;
		}
	}
	loop(r);
	finish(r);
	fprintf(stderr, COLLECT ": %s: %llu records, %llu lost\n",
		r->fl ? "flight recorder" : r->e.path,
		(unsigned long long)r->e.records,
		(unsigned long long)r->e.lost);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return exit_code(r);
}

static const char *const mode_name[] = { "command", "attach", "machine" };

/* What log.txt says was asked for. */
static struct exp_settings settings(const struct rec_opts *o)
{
	return (struct exp_settings){
		.mode = mode_name[o->mode],
		.argv = o->mode != MODE_ATTACH ? o->argv : NULL,
		.clock_ns = o->clock_ns,
		.nr_counters = o->nr_counters,
		.counters = o->counters,
		.depth = o->depth,
		.stack_bytes = o->stack_bytes,
		.kstack = o->kstack,
	};
}

/* Create the experiment o names; a message if it cannot. */
static int create(struct exp_writer *e, const struct rec_opts *o)
{
	char path[PATH_MAX];
	int err = 0;

	/* the flight recorder makes its experiments when asked */
	if (o->flight_bytes || o->flight_ns)
		exp_init(e);
	else
		err = collect_mpi_create(e, o, path, sizeof(path));

	if (err == -EEXIST && o->output)
		fprintf(stderr, COLLECT ": %s already exists; choose another -o\n",
			path);
	else if (err)
		fprintf(stderr, COLLECT ": cannot create %s: %s\n", path,
			strerror(-err));
	e->who = COLLECT;
	e->set = settings(o);
	return err;
}

int collect_run(const struct rec_opts *o, const struct rec_ops *ops)
{
	char msg[320];
	struct run r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.sfd = r.pidfd = -1;
	r.ctl.fd = r.ctl.child_fd = -1;
	lwprof_usage_init(&r.usage);
	msg[0] = 0;
	if (collect_trace_check(o, msg, sizeof(msg)) ||
	    collect_java_check(o, msg, sizeof(msg))) {
		fprintf(stderr, COLLECT ": %s\n", msg);
		return 1;
	}
	if (ops->open(o, &r.src, msg, sizeof(msg))) {
		/* tracing needs no module: without -p or -h, trace alone */
		if (!rec_tracing(o) || o->clock_set || o->nr_counters ||
		    collect_trace_only.open(o, &r.src, msg, sizeof(msg))) {
			fprintf(stderr, COLLECT ": %s\n", msg);
			return 1;
		}
		fprintf(stderr, COLLECT ": no clock profiling (%s): tracing only\n",
			msg);
		ops = &collect_trace_only;
	}
	if (create(&r.e, o)) {
		ops->close(r.src);
		return 1;
	}
	if (ops == &collect_trace_only)
		r.e.set.clock_ns = 0;	/* what was recorded: no clock */
	ret = run(&r);
	if ((ret == 1 || r.no_exec) && !r.e.finished)
		exp_remove(&r.e);
	exp_free(&r.e);
	archiver_cancel(r.arch);
	drain_destroy(r.d);
	ops->close(r.src);
	lwprof_usage_free(&r.usage);
	if (r.sfd >= 0)
		close(r.sfd);
	if (r.pidfd >= 0)
		close(r.pidfd);
	ctl_close(&r.ctl);
	flight_destroy(r.fl);
	if (r.argv != o->argv)
		free(r.argv);	/* the agent option it adds lives to the exit */
	return ret;
}
