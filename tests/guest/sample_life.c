// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions that sample: their end, their rights, and who they leave out.
 *
 *  - The owner of a running session (1 ms clock, a page-fault counter,
 *    kernel stacks, rings mapped) is SIGKILLed: the module is free again
 *    (no user left in /proc/modules) and its target can be attached anew.
 *  - The module will not unload while a ring is mapped, even after the
 *    file was closed, and unloads once it is unmapped.
 *  - An unprivileged user (uid 65534) cannot attach to root's process,
 *    may sample its own child, but not with kernel stacks (-K) unless
 *    kernel.perf_event_paranoid <= 1, nor with rings above 128 pages.
 *  - A machine session with LWPROF_ATTACH_EXCLUDE_SELF leaves out every
 *    thread of the caller's process, its io_uring worker included, and
 *    samples none of them, while a child it starts is accounted and
 *    sampled; without the flag the worker is accounted.
 */
#include <dirent.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <liburing.h>
#include <linux/perf_event.h>

#include "ring.h"
#include "test.h"

static int spinner(void *arg)
{
	uint64_t end = lwr_now() + (arg ? (uint64_t)(uintptr_t)arg : 60000000000ULL);

	while (lwr_now() < end)
		;
	return 0;
}

static int sleeper(void *arg)
{
	pause();
	return 0;
}

/* Users of the module, from /proc/modules; -1 if not loaded. */
static int module_users(void)
{
	char name[64];
	int size, users = -1;
	FILE *f = fopen("/proc/modules", "r");

	while (f && fscanf(f, "%63s %d %d%*[^\n]", name, &size, &users) == 3)
		if (!strcmp(name, "lwprof"))
			break;
		else
			users = -1;
	if (f)
		fclose(f);
	return users;
}

static void owner_killed(void)
{
	struct lwprof_sample_start ss;
	struct lwr_child s, o;
	int p[2], ret;
	struct lwr r;
	char x;

	printf("# the owner is killed\n");
	if (lwr_spawn(&s, spinner, NULL) || pipe(p))
		t_fatal("fork");
	lwr_go(&s);
	o.pid = fork();
	if (!o.pid) {
		if (lwr_open(&r, 0, s.pid, 64))
			_exit(1);
		lwr_clock_req(&ss, 1000000, 8192);
		ss.flags = LWPROF_SS_KSTACK;
		ss.nr_counters = 1;
		ss.counters[0].type = PERF_TYPE_SOFTWARE;
		ss.counters[0].config = PERF_COUNT_SW_TASK_CLOCK;
		ss.counters[0].period = 100000;
		if (lwr_start(&r, &ss) || write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	t_check(read(p[0], &x, 1) == 1, "the owner started sampling");
	close(p[0]);
	t_check(module_users() == 1, "the module has one user (%d)",
		module_users());
	usleep(300000);
	kill(o.pid, SIGKILL);
	waitpid(o.pid, NULL, 0);
	t_check(module_users() == 0, "after SIGKILL none (%d)", module_users());
	ret = lwr_open(&r, 0, s.pid, 8);
	t_check(ret == 0, "its target can be attached again (%s)",
		strerror(-ret));
	lwr_close(&r);
	kill(s.pid, SIGKILL);
	waitpid(s.pid, NULL, 0);
}

static void unload_while_mapped(void)
{
	struct lwr_child s;
	struct lwr r;
	size_t size;
	void *ring;
	int ret;

	printf("# unload while mapped\n");
	if (lwr_spawn(&s, sleeper, NULL))
		t_fatal("fork");
	if (lwr_open(&r, 0, s.pid, 8))
		t_fatal("attach, ring setup and mmap");
	ring = r.maps[0];
	size = r.mmap_size;
	r.maps[0] = NULL;
	lwr_close(&r);	/* closes the file, the other rings unmapped */
	t_errno(syscall(SYS_delete_module, "lwprof", O_NONBLOCK), EWOULDBLOCK,
		"rmmod refused: a ring is still mapped");
	munmap(ring, size);
	kill(s.pid, SIGKILL);
	waitpid(s.pid, NULL, 0);
	ret = lwr_module_unload();
	t_check(ret == 0, "rmmod once it is unmapped (%s)", strerror(-ret));
	lwr_test_begin();
}

static int set_paranoid(int level)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r+");
	int old = 3;

	if (!f || fscanf(f, "%d", &old) != 1)
		t_fatal("perf_event_paranoid");
	rewind(f);
	fprintf(f, "%d\n", level);
	fclose(f);
	return old;
}

/* As uid 65534: what may it do?  Exits 0 if all was as expected. */
static int as_nobody(pid_t root_pid, int paranoid)
{
	struct lwprof_ring_setup rs;
	struct lwprof_sample_start ss;
	struct lwr_child c;
	struct lwr r;
	int ret;

	/* As after an exec: a changed uid leaves the process undumpable. */
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
	    prctl(PR_SET_DUMPABLE, 1))
		t_fatal("setresuid");
	ret = lwr_open(&r, 0, root_pid, 8);
	t_check(ret == -EPERM, "nobody: ATTACH to root's process -> EPERM (%s)",
		strerror(-ret));
	lwr_close(&r);
	ret = lwr_open(&r, LWPROF_ATTACH_MACHINE, 0, 8);
	t_check(ret == -EPERM, "nobody: ATTACH to the machine -> EPERM (%s)",
		strerror(-ret));
	lwr_close(&r);
	if (lwr_spawn(&c, sleeper, NULL))
		t_fatal("fork");
	r.fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	t_check(lwr_attach(r.fd, 0, c.pid) == 0,
		"nobody: ATTACH to its own child");
	memset(&rs, 0, sizeof(rs));
	rs.data_pages = 256;
	t_errno(ioctl(r.fd, LWPROF_IOC_RING_SETUP, &rs), EPERM,
		"nobody: rings of 256 pages");
	close(r.fd);
	ret = lwr_open(&r, 0, c.pid, 128);
	t_check(ret == 0, "nobody: rings of 128 pages (%s)", strerror(-ret));
	lwr_clock_req(&ss, 10000000, 8192);
	ss.flags = LWPROF_SS_KSTACK;
	ret = lwr_start(&r, &ss);
	if (paranoid > 1)
		t_check(ret == -EPERM,
			"nobody, perf_event_paranoid %d: -K -> EPERM (%s)",
			paranoid, strerror(-ret));
	else
		t_check(ret == 0,
			"nobody, perf_event_paranoid %d: -K allowed (%s)",
			paranoid, strerror(-ret));
	ss.flags = 0;
	if (ret)
		t_check(lwr_start(&r, &ss) == 0,
			"nobody: sampling its own child without -K");
	t_check(lwr_stop(&r, NULL) == 0, "nobody: SAMPLE_STOP");
	lwr_close(&r);
	kill(c.pid, SIGKILL);
	waitpid(c.pid, NULL, 0);
	return t_done();
}

static void unprivileged(void)
{
	int level, old, status;
	struct lwr_child s;
	pid_t pid;

	if (lwr_spawn(&s, sleeper, NULL))
		t_fatal("fork");
	for (level = 2; level >= 1; level--) {
		printf("# unprivileged, perf_event_paranoid %d\n", level);
		old = set_paranoid(level);
		fflush(stdout);
		pid = fork();
		if (!pid)
			exit(as_nobody(s.pid, level));
		waitpid(pid, &status, 0);
		set_paranoid(old);
		t_check(WIFEXITED(status) && !WEXITSTATUS(status),
			"all as expected for uid 65534");
	}
	kill(s.pid, SIGKILL);
	waitpid(s.pid, NULL, 0);
}

/* An io_uring write punted to a worker thread (iou-wrk-PID). */
static void async_write(struct io_uring *ring, int fd)
{
	static char buf[4096];
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;

	io_uring_prep_write(sqe, fd, buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_ASYNC;
	io_uring_submit(ring);
	if (io_uring_wait_cqe(ring, &cqe) == 0)
		io_uring_cqe_seen(ring, cqe);
}

static void *self_spin(void *arg)
{
	spinner((void *)200000000);
	return arg;
}

static void exclude_self(void)
{
	unsigned int mine = 0, child = 0, mine_samples = 0, child_samples = 0;
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_usage us = { 0 };
	struct lwr_iter it = { 0 };
	struct io_uring ring;
	struct lwr_child c;
	pthread_t th;
	int fd, wtid, ret;
	unsigned int k;
	struct lwr r;

	printf("# a machine session without the caller\n");
	fd = open("/tmp/sample_life.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || io_uring_queue_init(8, &ring, 0))
		t_fatal("io_uring");
	async_write(&ring, fd);
	wtid = lwr_io_worker(getpid());
	t_check(wtid > 0, "an io_uring worker runs (tid %d)", wtid);

	ret = lwr_open(&r, LWPROF_ATTACH_MACHINE | LWPROF_ATTACH_EXCLUDE_SELF,
		       0, 64);
	t_check(ret == 0, "machine ATTACH with EXCLUDE_SELF (%s)",
		strerror(-ret));
	lwr_clock_req(&ss, 10000000, 0);
	t_check(lwr_start(&r, &ss) == 0, "SAMPLE_START");
	if (lwr_spawn(&c, spinner, (void *)200000000))
		t_fatal("fork");
	lwr_go(&c);
	pthread_create(&th, NULL, self_spin, NULL);
	async_write(&ring, fd);
	pthread_join(th, NULL);
	lwr_wait(&r, &c);
	lwr_usage_read(&r, &us);
	lwr_stop(&r, NULL);
	for (k = 0; k < us.n; k++) {
		mine += us.u[k].pid == (__u32)getpid();
		child += us.u[k].pid == (__u32)c.pid;
	}
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE)
			continue;
		mine_samples += s->pid == (__u32)getpid();
		child_samples += s->pid == (__u32)c.pid;
	}
	t_check(mine == 0 && mine_samples == 0,
		"no thread of this process accounted (%u) or sampled (%u) among %u",
		mine, mine_samples, us.n);
	t_check(child == 1 && child_samples >= 10,
		"its child is accounted and sampled (%u packets)", child_samples);
	lwr_close(&r);
	free(us.u);

	memset(&us, 0, sizeof(us));
	ret = lwr_open(&r, LWPROF_ATTACH_MACHINE, 0, 8);
	t_check(ret == 0, "machine ATTACH without EXCLUDE_SELF (%s)",
		strerror(-ret));
	lwr_usage_read(&r, &us);
	t_check(lwr_usage_tid(&us, wtid) != NULL,
		"then the worker (%d) is accounted", wtid);
	lwr_close(&r);
	free(us.u);
	io_uring_queue_exit(&ring);
	close(fd);
	unlink("/tmp/sample_life.data");
}

int main(void)
{
	lwr_test_begin();
	owner_killed();
	unload_while_mapped();
	unprivileged();
	exclude_self();
	return lwr_test_end();
}
