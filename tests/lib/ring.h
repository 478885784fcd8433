/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small reader of lwprof's sampling rings for the guest tests (and
 * scripts/bench-sample): ATTACH, RING_SETUP, mmap every ring, SAMPLE_START,
 * then a plain poll()/copy loop that appends each ring's bytes to a
 * growing buffer, as the recorder appends them to cpu.N.rec.  Afterwards a
 * test walks the records with lwr_next().
 *
 * Also: a child that runs a function (or execs a program) when told to,
 * so a test can attach to it before it starts, and the usage records
 * (READ_USAGE), collected until every thread has its final one.
 * Header-only, like test.h.
 */
#ifndef LWPROF_RING_H
#define LWPROF_RING_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lwprof.h"
#include "libexp/sample.h"
#include "test.h"

/*
 * Load lwprof.ko ($LWPROF_KO) for a test, unless it is loaded; the test
 * unloads it at its end with lwr_module_unload() (0, or -errno).
 */
static inline int lwr_module_load(void)
{
	const char *ko = getenv("LWPROF_KO");
	int fd, ret;

	if (!access(LWPROF_DEVICE_PATH, F_OK))
		return 0;
	fd = open(ko ? ko : "lwprof.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret ? -errno : 0;
}

static inline int lwr_module_unload(void)
{
	return syscall(SYS_delete_module, "lwprof", O_NONBLOCK) ? -errno : 0;
}

/* The loaded module's kernel gaps (LWPROF_GAP_*, ABI 1.6; none before). */
static inline uint64_t lwr_gaps(void)
{
	struct lwprof_abi_version v = { 0 };
	int fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (ioctl(fd, LWPROF_IOC_ABI_VERSION, &v))
		v.gaps = 0;
	close(fd);
	return v.gaps;
}

/* The tid of one of process pid's io_uring workers (iou-wrk-PID), or 0. */
static inline int lwr_io_worker(pid_t pid)
{
	char path[300], comm[64];
	struct dirent *d;
	DIR *dir;
	int tid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "iou-wrk-", 8))
			tid = atoi(d->d_name);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/* A test's first and last steps: load the module; unload it, a check. */
static inline void lwr_test_begin(void)
{
	int ret = lwr_module_load();

	if (ret) {
		errno = -ret;
		t_fatal("load lwprof.ko");
	}
}

static inline int lwr_test_end(void)
{
	int ret = lwr_module_unload();

	t_check(ret == 0, "lwprof.ko unloads (%s)", strerror(-ret));
	return t_done();
}

struct lwr_buf {
	unsigned char *p;
	size_t len, cap;
};

struct lwr {
	int fd;
	unsigned int nr;		/* rings */
	size_t mmap_size, data_size;
	void **maps;
	struct lwr_buf *bufs;		/* per ring: every byte read */
	int keep;			/* 0: count bytes, do not keep them */
	uint64_t bytes;			/* read, all rings */
};

static inline uint64_t lwr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int lwr_attach(int fd, unsigned int flags, int pid)
{
	struct lwprof_attach a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.pid = pid;
	return ioctl(fd, LWPROF_IOC_ATTACH, &a);
}

/*
 * Open /dev/lwprof, attach (pid, or flags LWPROF_ATTACH_MACHINE), set up
 * rings of data_pages pages and map them.  -errno on failure (r->fd stays
 * open if the failure came after open, for tests of the errors).
 */
static inline int lwr_open(struct lwr *r, unsigned int flags, int pid,
			   unsigned int data_pages)
{
	struct lwprof_ring_setup rs;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->keep = 1;
	r->fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (lwr_attach(r->fd, flags, pid))
		return -errno;
	memset(&rs, 0, sizeof(rs));
	rs.data_pages = data_pages;
	if (ioctl(r->fd, LWPROF_IOC_RING_SETUP, &rs))
		return -errno;
	r->nr = rs.nr_rings;
	r->mmap_size = rs.mmap_size;
	r->data_size = rs.data_size;
	r->maps = calloc(r->nr, sizeof(*r->maps));
	r->bufs = calloc(r->nr, sizeof(*r->bufs));
	if (!r->maps || !r->bufs)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++) {
		r->maps[i] = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, r->fd, (off_t)i * r->mmap_size);
		if (r->maps[i] == MAP_FAILED) {
			r->maps[i] = NULL;
			return -errno;
		}
	}
	return 0;
}

static inline void lwr_close(struct lwr *r)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++) {
		if (r->maps && r->maps[i])
			munmap(r->maps[i], r->mmap_size);
		if (r->bufs)
			free(r->bufs[i].p);
	}
	free(r->maps);
	free(r->bufs);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

static inline struct lwprof_ring_ctl *lwr_ctl(struct lwr *r, unsigned int i)
{
	return r->maps[i];
}

/* Copy out what ring i holds, then hand the space back. */
static inline int lwr_drain_one(struct lwr *r, unsigned int i)
{
	struct lwprof_ring_ctl *ctl = lwr_ctl(r, i);
	unsigned char *data = (unsigned char *)ctl + ctl->data_offset;
	uint64_t head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
	uint64_t tail = ctl->tail, n = head - tail, off, first;
	struct lwr_buf *b = &r->bufs[i];

	if (!n)
		return 0;
	if (r->keep) {
		if (b->len + n > b->cap) {
			size_t cap = (b->len + n) * 2;
			unsigned char *p = realloc(b->p, cap);

			if (!p)
				return -ENOMEM;
			b->p = p;
			b->cap = cap;
		}
		off = tail & (r->data_size - 1);
		first = r->data_size - off < n ? r->data_size - off : n;
		memcpy(b->p + b->len, data + off, first);
		memcpy(b->p + b->len + first, data, n - first);
		b->len += n;
	}
	r->bytes += n;
	/* Release: our reads of [tail, head) come before the module reuses it. */
	__atomic_store_n(&ctl->tail, head, __ATOMIC_RELEASE);
	return 1;
}

static inline int lwr_drain(struct lwr *r)
{
	unsigned int i;
	int got = 0, ret;

	for (i = 0; i < r->nr; i++) {
		ret = lwr_drain_one(r, i);
		if (ret < 0)
			return ret;
		got |= ret;
	}
	return got;
}

/* Wait up to ms for POLLIN, then drain; -errno on a poll error. */
static inline int lwr_poll(struct lwr *r, int ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	if (poll(&p, 1, ms) < 0 && errno != EINTR)
		return -errno;
	if (p.revents & (POLLERR | POLLNVAL))
		return -EIO;
	return lwr_drain(r);
}

static inline int lwr_start(struct lwr *r, struct lwprof_sample_start *ss)
{
	return ioctl(r->fd, LWPROF_IOC_SAMPLE_START, ss) ? -errno : 0;
}

/* Stop sampling and read what is left. */
static inline int lwr_stop(struct lwr *r, struct lwprof_sample_stop *st)
{
	struct lwprof_sample_stop tmp;

	if (!st)
		st = &tmp;
	memset(st, 0, sizeof(*st));
	if (ioctl(r->fd, LWPROF_IOC_SAMPLE_STOP, st))
		return -errno;
	return lwr_drain(r) < 0 ? -ENOMEM : 0;
}

/* A simple SAMPLE_START request: clock interval, user stack bytes. */
static inline void lwr_clock_req(struct lwprof_sample_start *ss,
				 uint64_t clock_ns, unsigned int stack_bytes)
{
	memset(ss, 0, sizeof(*ss));
	ss->clock_ns = clock_ns;
	ss->stack_bytes = stack_bytes;
}

/*
 * Walk ring i's records: *pos starts at 0; returns the next record or NULL
 * at the end.  A record whose size is impossible ends the walk (*pos is
 * then left short of the ring's length: lwr_check() reports it).
 */
static inline const struct lwprof_rec *lwr_next(struct lwr *r, unsigned int i,
						size_t *pos)
{
	const struct lwprof_rec *rec;
	struct lwr_buf *b = &r->bufs[i];

	if (*pos + sizeof(*rec) > b->len)
		return NULL;
	rec = (const struct lwprof_rec *)(b->p + *pos);
	if (rec->size < sizeof(*rec) || rec->size % 8 ||
	    *pos + rec->size > b->len)
		return NULL;
	*pos += rec->size;
	return rec;
}

/* All records of all rings, ring by ring: start with it = { 0 }. */
struct lwr_iter {
	unsigned int ring;
	size_t pos;
};

static inline const struct lwprof_rec *lwr_iter_next(struct lwr *r,
						     struct lwr_iter *it)
{
	const struct lwprof_rec *rec;

	while (it->ring < r->nr) {
		rec = lwr_next(r, it->ring, &it->pos);
		if (rec)
			return rec;
		it->ring++;
		it->pos = 0;
	}
	return NULL;
}

/* Parts of a sample (the module's: uapi's register set). */
static inline const uint64_t *lwr_regs(const struct lwprof_rec_sample *s)
{
	return (const uint64_t *)exp_sample_regs(s);
}

static inline const uint64_t *lwr_ips(const struct lwprof_rec_sample *s)
{
	return (const uint64_t *)exp_sample_ips(s, LWPROF_NR_REGS);
}

static inline const uint64_t *lwr_kips(const struct lwprof_rec_sample *s)
{
	return (const uint64_t *)exp_sample_kips(s, LWPROF_NR_REGS);
}

static inline const unsigned char *lwr_stack(const struct lwprof_rec_sample *s)
{
	return exp_sample_stack(s, LWPROF_NR_REGS);
}

/* Is the sample's size what its parts add up to? */
static inline int lwr_sample_ok(const struct lwprof_rec_sample *s)
{
	return s->hdr.size == exp_sample_known(s, LWPROF_NR_REGS);
}

/*
 * Every ring's bytes are whole records whose sizes add up (1), and every
 * sample's size matches its parts.  Returns 0 or the number of problems.
 */
static inline int lwr_check(struct lwr *r)
{
	const struct lwprof_rec *rec;
	int bad = 0;
	size_t end;

	for (unsigned int i = 0; i < r->nr; i++) {
		end = 0;
		while ((rec = lwr_next(r, i, &end)) != NULL)
			if (rec->type == LWPROF_REC_SAMPLE &&
			    !lwr_sample_ok((const void *)rec))
				bad++;
		if (end != r->bufs[i].len)
			bad++;
	}
	return bad;
}

/* LOST records' counts, all rings. */
static inline uint64_t lwr_lost(struct lwr *r)
{
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	uint64_t lost = 0;

	while ((rec = lwr_iter_next(r, &it)) != NULL)
		if (rec->type == LWPROF_REC_LOST)
			lost += ((const struct lwprof_rec_lost *)rec)->lost;
	return lost;
}

/*
 * A child process that waits until lwr_go() (so the test can attach to it
 * first), then returns fn(arg) as its exit status.
 */
struct lwr_child {
	pid_t pid;
	int go;				/* write end of the pipe */
};

static inline int lwr_spawn(struct lwr_child *c, int (*fn)(void *), void *arg)
{
	int p[2];
	char x;

	c->pid = -1;
	c->go = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(126);
		close(p[0]);
		_exit(fn(arg));
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

static inline void lwr_go(struct lwr_child *c)
{
	if (write(c->go, "g", 1) != 1)
		perror("lwr_go");
	close(c->go);
}

/* Drain while the child runs; returns its wait status. */
static inline int lwr_wait(struct lwr *r, struct lwr_child *c)
{
	int status = 0;

	while (waitpid(c->pid, &status, WNOHANG) == 0)
		lwr_poll(r, 20);
	return status;
}

/* For lwr_spawn(): exec argv (a NULL-terminated char *[]). */
static inline int lwr_exec_fn(void *argv)
{
	char **a = argv;

	execv(a[0], a);
	perror(a[0]);
	return 127;
}

/*
 * The session's threads' usage (READ_USAGE): exited threads' final records
 * come once, so they are collected across calls.  lwr_usage_final() reads
 * until none is live (or ms pass) and returns the count, or -errno.
 */
struct lwr_usage {
	struct lwprof_thread_usage *u;
	unsigned int n, cap;
	unsigned int live;
};

#define LWR_USAGE_MAX	8192

static inline int lwr_usage_read(struct lwr *r, struct lwr_usage *us)
{
	struct lwprof_thread_usage *buf;
	struct lwprof_usage_read rd;
	unsigned int i, k;

	buf = calloc(LWR_USAGE_MAX, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	memset(&rd, 0, sizeof(rd));
	rd.buf = (uintptr_t)buf;
	rd.count = LWR_USAGE_MAX;
	if (ioctl(r->fd, LWPROF_IOC_READ_USAGE, &rd)) {
		free(buf);
		return -errno;
	}
	us->live = rd.live;
	for (i = 0; i < rd.count; i++) {
		for (k = 0; k < us->n && us->u[k].tid != buf[i].tid; k++)
			;
		if (k == us->n) {
			if (us->n == us->cap) {
				us->cap = us->cap ? us->cap * 2 : 64;
				us->u = realloc(us->u, us->cap * sizeof(*us->u));
				if (!us->u) {
					free(buf);
					return -ENOMEM;
				}
			}
			us->n++;
		}
		us->u[k] = buf[i];
	}
	free(buf);
	return us->n;
}

static inline int lwr_usage_final(struct lwr *r, struct lwr_usage *us, int ms)
{
	int ret;

	for (;;) {
		ret = lwr_usage_read(r, us);
		if (ret < 0 || !us->live || ms <= 0)
			return ret;
		lwr_poll(r, 10);
		ms -= 10;
	}
}

static inline const struct lwprof_thread_usage *
lwr_usage_tid(struct lwr_usage *us, unsigned int tid)
{
	for (unsigned int k = 0; k < us->n; k++)
		if (us->u[k].tid == tid)
			return &us->u[k];
	return NULL;
}

/*
 * A run of fn(arg) in a child under a sampling session.  lwr_begin():
 * spawn it, attach to it before it runs, rings of pages pages, SAMPLE_START
 * with ss; -errno if SAMPLE_START failed (the child is gone then), other
 * failures end the test.  lwr_finish(): let it go, drain until it exits,
 * read its threads' usage until all have exited (into us if not NULL),
 * SAMPLE_STOP (into st if not NULL), check that nothing was lost and the
 * records are whole; returns the child's wait status.
 */
static inline int lwr_begin(struct lwr *r, struct lwr_child *c,
			    int (*fn)(void *), void *arg, unsigned int pages,
			    struct lwprof_sample_start *ss)
{
	int ret;

	if (lwr_spawn(c, fn, arg))
		t_fatal("fork");
	ret = lwr_open(r, 0, c->pid, pages);
	if (ret) {
		errno = -ret;
		t_fatal("attach, ring setup and mmap");
	}
	ret = lwr_start(r, ss);
	if (ret) {
		kill(c->pid, SIGKILL);
		lwr_go(c);
		waitpid(c->pid, NULL, 0);
	}
	return ret;
}

static inline int lwr_finish(struct lwr *r, struct lwr_child *c,
			     struct lwr_usage *us, struct lwprof_sample_stop *st)
{
	struct lwr_usage tmp = { 0 };
	int status, ret;

	lwr_go(c);
	status = lwr_wait(r, c);
	ret = lwr_usage_final(r, us ? us : &tmp, 5000);
	t_check(ret > 0 && !(us ? us : &tmp)->live,
		"the session's %d threads all exited", ret);
	free(tmp.u);
	ret = lwr_stop(r, st);
	t_check(ret == 0, "SAMPLE_STOP (%s)", strerror(-ret));
	t_check(lwr_lost(r) == 0 && lwr_check(r) == 0,
		"nothing lost, whole records");
	return status;
}

#endif
