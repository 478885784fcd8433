// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring's workers (iou-wrk-PID) are threads of their process that the
 * kernel makes without kernel_clone() (create_io_thread()), so without
 * the fork tracepoint; a worker made while a session runs is accounted
 * all the same.
 *
 * A child, attached before it runs, makes an io_uring and reads 1 MiB of
 * /dev/zero 64 times with IOSQE_ASYNC, which hands every read to a
 * worker that the ring makes then; it then waits until the test has
 * read its threads.  The truths: the worker's tid (/proc/PID/task, comm
 * iou-wrk-PID) and its run time by /proc/PID/task/TID/schedstat.
 *  - the worker is one of the session's threads (READ_USAGE), of the
 *    child's process;
 *  - its USER+SYS+TRAP+WAIT_CPU is at least its run time by schedstat
 *    (the run queue's clock may charge a wait as run time:
 *    mstate_cpu.sh says why), and most of it SYSTEM (read_zero's copies).
 */
#include <liburing.h>

#include "ring.h"
#include "test.h"

#define READS	64
#define CHUNK	(1 << 20)

static int done_pipe[2], quit_pipe[2];

static int reader(void *arg)
{
	static char buf[CHUNK];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd = open("/dev/zero", O_RDONLY), i, bad = 0;
	char x = 'd';

	if (fd < 0 || io_uring_queue_init(8, &ring, 0))
		return 1;
	for (i = 0; i < READS; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, buf, CHUNK, 0);
		sqe->flags |= IOSQE_ASYNC;
		if (io_uring_submit(&ring) != 1 ||
		    io_uring_wait_cqe(&ring, &cqe))
			return 2;
		bad += cqe->res != CHUNK;
		io_uring_cqe_seen(&ring, cqe);
	}
	/* Alive, with its worker, until the test has read them. */
	if (write(done_pipe[1], &x, 1) != 1 || read(quit_pipe[0], &x, 1) != 1)
		return 3;
	io_uring_queue_exit(&ring);
	return bad ? 4 : 0;
}

static int run_ns(pid_t pid, int tid, uint64_t *run)
{
	char path[100], line[256];
	unsigned long long r;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "r");
	ok = f && fgets(line, sizeof(line), f) && sscanf(line, "%llu", &r) == 1;
	if (f)
		fclose(f);
	if (!ok)
		return -1;
	*run = r;
	return 0;
}

int main(void)
{
	const struct lwprof_thread_usage *w;
	struct lwprof_sample_start ss;
	struct lwr_usage us = { 0 };
	uint64_t run = 0, oncpu, sys;
	struct pollfd pfd;
	struct lwr_child c;
	struct lwr r;
	int tid, st;
	char x = 'q';

	lwr_test_begin();
	if (pipe2(done_pipe, O_CLOEXEC) || pipe2(quit_pipe, O_CLOEXEC))
		t_fatal("pipe");
	lwr_clock_req(&ss, 10000000, 0);
	if (lwr_begin(&r, &c, reader, NULL, 64, &ss))
		t_fatal("SAMPLE_START");
	t_check(lwr_io_worker(c.pid) == 0, "no io_uring worker before the child runs");
	lwr_go(&c);
	pfd.fd = done_pipe[0];
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 0) == 0 && waitpid(c.pid, &st, WNOHANG) == 0)
		lwr_poll(&r, 20);
	tid = lwr_io_worker(c.pid);
	t_check(tid > 0, "the child's reads made an io_uring worker (%d)", tid);
	if (tid <= 0 || run_ns(c.pid, tid, &run) || lwr_usage_read(&r, &us) < 0)
		t_fatal("the worker's readings");
	if (write(quit_pipe[1], &x, 1) != 1)
		t_fatal("quit");
	st = lwr_wait(&r, &c);
	lwr_stop(&r, NULL);
	t_check(WIFEXITED(st) && !WEXITSTATUS(st), "the child read %d MiB (%#x)",
		READS, st);
	w = lwr_usage_tid(&us, tid);
	t_check(w && w->pid == (__u32)c.pid,
		"the worker %d is accounted, in process %d", tid, c.pid);
	if (w) {
		oncpu = w->mstate_ns[LWPROF_MS_USER] +
			w->mstate_ns[LWPROF_MS_SYSTEM] +
			w->mstate_ns[LWPROF_MS_TRAP];
		sys = w->mstate_ns[LWPROF_MS_SYSTEM];
		printf("# worker %d: schedstat run %.3f ms; lwprof USER %.3f SYSTEM %.3f TRAP %.3f WAIT_CPU %.3f ms\n",
		       tid, run / 1e6, w->mstate_ns[LWPROF_MS_USER] / 1e6,
		       sys / 1e6, w->mstate_ns[LWPROF_MS_TRAP] / 1e6,
		       w->mstate_ns[LWPROF_MS_WAIT_CPU] / 1e6);
		/* The clocks: 100 ppm + 2 us apart at most (mstate.sh). */
		t_check(oncpu + w->mstate_ns[LWPROF_MS_WAIT_CPU] + 2000 +
			run / 10000 >= run,
			"its USER+SYS+TRAP+WAIT_CPU %.3f ms at least its run time %.3f ms",
			(oncpu + w->mstate_ns[LWPROF_MS_WAIT_CPU]) / 1e6,
			run / 1e6);
		t_check(run > 0 && sys * 2 > oncpu,
			"its time is mostly SYSTEM (%.3f of %.3f ms)", sys / 1e6,
			oncpu / 1e6);
	}
	free(us.u);
	lwr_close(&r);
	return lwr_test_end();
}
