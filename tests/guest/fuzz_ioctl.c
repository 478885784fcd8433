// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz /dev/lwprof from user space: random ioctls (every command, wrong
 * sizes and numbers, bad pointers, random structs: tests/lib/fuzz_ioc.h),
 * mmap() with odd lengths, offsets and protections, munmap, mremap and
 * mprotect of the rings, writes of garbage into their control pages, close
 * and reopen racing the ioctls and mmaps of other threads, forks, as root
 * and as uid 65534, and workers killed with SIGKILL at random moments.
 *
 * Every call must succeed or fail with an errno its operation may return;
 * no process may die of a signal other than our SIGKILL; the module must
 * unload at the end (nothing holds it) and the kernel log stay clean
 * (tests/run checks).  A run is a sequence of rounds, each a worker
 * process (alternately root and uid 65534) with -j threads; everything is
 * drawn from the seed, which is printed: `fuzz_ioctl -s SEED -R ROUND -j 1
 * -k 0` replays one round without races.
 *
 *   fuzz_ioctl [-n CALLS] [-T SECS] [-s SEED] [-j THREADS] [-r OPS]
 *              [-R ROUND] [-k 0|1]
 *
 * -n: rounds until CALLS calls were made (default 8000, for make check);
 * -T: or until SECS seconds passed; -r: ops per thread and round (500);
 * -k 0: no kills.  $LWPROF_FUZZ_CALLS, _SECS and _SEED set -n, -T and -s.  The long run is
 * scripts/stress ioctl (docs/design/reliability.md).
 */
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"
#include "fuzz_ioc.h"
#include "fuzz_run.h"

/* An argument pointer of kind k holding struct src of size bytes. */
static uintptr_t place(struct thread *t, enum fz_ptr_kind k, const void *src,
		       size_t size)
{
	unsigned char *p;

	switch (k) {
	case FZ_P_GOOD:
		memcpy(t->b.rw, src, size);
		return (uintptr_t)t->b.rw;
	case FZ_P_MISALIGNED:
		p = t->b.rw + 1 + fz_below(&t->rng, 7);
		memcpy(p, src, size);
		return (uintptr_t)p;
	case FZ_P_STRADDLE:
		p = t->b.rw + FZ_BUF_RW - 1 - fz_below(&t->rng, size - 1);
		memcpy(p, src, t->b.rw + FZ_BUF_RW - p);
		return (uintptr_t)p;
	case FZ_P_RDONLY:
		mprotect(t->b.ro, 4096, PROT_READ | PROT_WRITE);
		memcpy(t->b.ro, src, size);
		mprotect(t->b.ro, 4096, PROT_READ);
		return (uintptr_t)t->b.ro;
	default:
		return fz_bad_ptr(&t->rng, k);
	}
}

/* Is fd (still) a /dev/lwprof file? */
static int is_dev(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode);
}

/*
 * A live mapping's address, give or take a page (0: none; always in a
 * forked child, whose copy of the lock another thread may have held).
 */
static uint64_t map_pick(struct thread *t)
{
	struct map *m = &t->w->maps[fz_below(&t->rng, NMAP)];
	uint64_t p;

	if (t->w->child)
		return 0;
	pthread_mutex_lock(&t->w->lock);
	p = (uint64_t)(uintptr_t)m->p;
	pthread_mutex_unlock(&t->w->lock);
	return p && fz_below(&t->rng, 4) == 0 ? p + 4096 * fz_below(&t->rng, 3) - 4096 : p;
}

static void op_ioctl(struct thread *t, int kind)
{
	unsigned char arg[sizeof(struct lwprof_sample_start)];
	unsigned int i = fz_below(&t->rng, FZ_NCMDS), cmd;
	enum fz_ptr_kind pk = fz_below(&t->rng, 4) ? FZ_P_GOOD :
			      fz_below(&t->rng, FZ_P_KINDS);
	fz_errset errs;
	uintptr_t p;
	char what[160];
	uint64_t t0;
	long ret;
	int fd = slot_fd(t), err;

	fz_fill(&t->rng, i, arg, &t->w->pids,
		(uintptr_t)t->b.rw + FZ_USAGE_OFF + fz_below(&t->rng, 2));
	if (fz_cmds[i].cmd == LWPROF_IOC_USTATE_CLAIM && fz_below(&t->rng, 2))
		((struct lwprof_ustate_claim *)arg)->area = map_pick(t);
	p = place(t, pk, arg, _IOC_SIZE(fz_cmds[i].cmd));
	if (kind == OP_BADSIZE) {
		cmd = fz_badsize_cmd(&t->rng, i);
		errs = FZ_E(EINVAL);
	} else if (kind == OP_FOREIGN) {
		cmd = fz_foreign_cmd(&t->rng);
		errs = FZ_E(ENOTTY);
	} else {
		cmd = fz_cmds[i].cmd;
		errs = FZ_E(EFAULT);
		if (pk <= FZ_P_RDONLY && pk != FZ_P_STRADDLE)
			errs = fz_cmds[i].errs |
			       (pk == FZ_P_RDONLY ? FZ_E(EFAULT) : 0);
		if (cmd == LWPROF_IOC_READ_USAGE)
			errs |= FZ_E(EFAULT);	/* its own buf pointer */
		if (cmd == LWPROF_IOC_SAMPLE_START &&
		    ((struct lwprof_sample_start *)arg)->nr_counters)
			errs |= FZ_PERF_ERRS;
		kind = NOPS + i;
	}
	snprintf(what, sizeof(what), "fd %d cmd %#x (%s) arg %s %#" PRIxPTR,
		 fd, cmd, kind >= NOPS ? fz_cmds[i].name : "-",
		 fz_ptr_names[pk], p);
	t0 = lwr_now();
	ret = ioctl(fd, cmd, p);
	err = errno;
	/*
	 * A number another thread closed may have been given to a microstate
	 * area since (USTATE_OPEN), which answers no ioctl: not /dev/lwprof.
	 */
	if (ret < 0 && err == ENOTTY && !is_dev(fd))
		errs |= FZ_E(ENOTTY);
	atomic_fetch_add(&t->w->st->ns[kind], lwr_now() - t0);
	errno = err;
	result(t, kind, ret, errs, what);
	atomic_fetch_add(&t->w->st->ioctls, 1);
	if (ret > 0 && cmd == LWPROF_IOC_USTATE_OPEN)
		close(ret);
	if (!ret && cmd == LWPROF_IOC_RING_SETUP && pk <= FZ_P_MISALIGNED)
		atomic_store(&t->w->st->mmap_size,
			     ((struct lwprof_ring_setup *)p)->mmap_size);
}

static int map_add(struct worker *w, void *p, size_t len, int prot, int area)
{
	int i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < NMAP && w->maps[i].p; i++)
		;
	if (i < NMAP)
		w->maps[i] = (struct map){ p, len, prot, !area, area };
	pthread_mutex_unlock(&w->lock);
	return i < NMAP ? 0 : -1;
}

static void op_mmap(struct thread *t)
{
	uint64_t *s = &t->rng;
	size_t ms = atomic_load(&t->w->st->mmap_size) ? : 4096 * 65;
	size_t lens[] = { ms, ms, ms - 4096, ms + 4096, 4096, 0, 1, 2 * ms,
			  1ULL << 46 };
	off_t offs[] = { 0, 0, ms, ms * 2, ms * 3, 4096, 4096 * 3, 1,
			 -4096, 1LL << 60 };
	int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_READ |
			PROT_WRITE, PROT_WRITE, PROT_NONE, PROT_READ | PROT_EXEC,
			PROT_READ | PROT_WRITE | PROT_EXEC };
	int flags[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE, MAP_SHARED |
			MAP_POPULATE, MAP_SHARED | MAP_NORESERVE,
			MAP_SHARED_VALIDATE | MAP_SYNC, MAP_SHARED | MAP_LOCKED };
	size_t len = FZ_PICK(s, lens);
	off_t off = FZ_PICK(s, offs);
	int prot = FZ_PICK(s, prots), fl = FZ_PICK(s, flags), fd = slot_fd(t);

	if (fz_below(s, 2)) {	/* half of them as a reader would */
		len = ms;
		off = ms * fz_below(s, 3);
		prot = PROT_READ | PROT_WRITE;
		fl = MAP_SHARED;
	}
	char what[128];
	void *p;

	snprintf(what, sizeof(what), "fd %d len %#zx off %#llx prot %#x flags %#x",
		 fd, len, (long long)off, prot, fl);
	p = mmap(NULL, len, prot, fl, fd, off);
	result(t, OP_MMAP, p == MAP_FAILED ? -1 : 0,
	       FZ_E(EINVAL) | FZ_E(EPERM) | FZ_E(EACCES) | FZ_E(ENOMEM) |
	       FZ_E(EOVERFLOW) | FZ_E(EOPNOTSUPP) | FZ_E(ENODEV) |
	       FZ_E(EAGAIN), what);
	if (p == MAP_FAILED)
		return;
	if (t->w->child || map_add(t->w, p, len, prot, 0))
		munmap(p, len);
}

/* munmap, mremap, mprotect or touch one mapping, under the lock. */
static void op_map(struct thread *t, int op)
{
	struct worker *w = t->w;
	uint64_t *s = &t->rng;
	struct map *m = &w->maps[fz_below(s, NMAP)];
	size_t len, pages;
	char what[96];
	void *p;
	int prot;

	pthread_mutex_lock(&w->lock);
	if (!m->p)
		goto out;
	pages = m->len / 4096;
	snprintf(what, sizeof(what), "%p len %#zx", m->p, m->len);
	switch (op) {
	case OP_MUNMAP:
		if (fz_below(s, 2) || pages < 2) {
			result(t, op, munmap(m->p, m->len), 0, what);
			m->p = NULL;
		} else if (fz_below(s, 2)) {
			result(t, op, munmap(m->p, 4096), 0, what);
			m->p += 4096;
			m->len -= 4096;
			m->ctl = 0;
		} else {
			m->len -= 4096;
			result(t, op, munmap(m->p + m->len, 4096), 0, what);
		}
		break;
	case OP_MREMAP:
		len = m->len + 4096 * ((long)fz_below(s, 3) - 1);
		p = mremap(m->p, m->len, len, fz_below(s, 2) ? MREMAP_MAYMOVE : 0);
		result(t, op, p == MAP_FAILED ? -1 : 0, FZ_E(EFAULT) |
		       FZ_E(EINVAL) | FZ_E(ENOMEM), what);
		if (p != MAP_FAILED) {
			m->p = p;
			m->len = len;
		}
		break;
	case OP_MPROTECT:
		prot = fz_below(s, 8);
		len = mprotect(m->p, m->len, prot);
		result(t, op, (long)len, FZ_E(EACCES) | FZ_E(EINVAL) |
		       FZ_E(ENOMEM), what);
		if (!len)
			m->prot = prot;
		break;
	default:	/* OP_TOUCH: read every page, write garbage in control */
		if (m->area && !(m->prot & PROT_READ))
			break;	/* the area's are zeros until claimed */
		if (m->prot & PROT_READ)
			for (len = 0; len < m->len; len += 4096)
				(void)*(volatile unsigned char *)(m->p + len);
		if ((m->prot & PROT_WRITE) && m->ctl) {
			struct lwprof_ring_ctl *c = (void *)m->p;

			if (fz_below(s, 2))
				c->tail = fz_below(s, 2) ? c->head : fz_rand(s);
			else
				((uint64_t *)c)[fz_below(s, 512)] = fz_rand(s);
		}
		atomic_fetch_add(&w->st->hist[op][0], 1);
		break;
	}
out:
	pthread_mutex_unlock(&w->lock);
}

static void op_fd(struct thread *t, int op)
{
	atomic_int *slot = &t->w->fds[fz_below(&t->rng, NSLOT)];
	struct pollfd pfd;
	char what[64], buf[64];
	int fd = atomic_load(slot), nfd, none = -1;
	long ret;

	snprintf(what, sizeof(what), "fd %d", fd);
	switch (op) {
	case OP_CLOSE:
		fd = atomic_exchange(slot, -1);
		if (fd >= 0)
			result(t, op, close(fd), 0, what);
		return;
	case OP_OPEN:
	case OP_DUP:
		for (nfd = 0; nfd < NSLOT && fd >= 0; nfd++) {
			slot = &t->w->fds[nfd];
			fd = atomic_load(slot);
		}
		if (fd >= 0)
			return;		/* none closed */
		fd = slot_fd(t);
		nfd = op == OP_DUP ? dup(fd) : open(LWPROF_DEVICE_PATH,
			(fz_below(&t->rng, 8) ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		result(t, op, nfd, 0, what);
		if (nfd >= 0 && !atomic_compare_exchange_strong(slot, &none, nfd))
			close(nfd);
		return;
	case OP_POLL:
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		result(t, op, poll(&pfd, 1, 0), 0, what);
		return;
	default:	/* no read or write method: -EINVAL (-EBADF read-only) */
		ret = fz_below(&t->rng, 2) ? read(fd, buf, sizeof(buf)) :
					     write(fd, buf, sizeof(buf));
		result(t, op, ret, FZ_E(EINVAL), what);
		return;
	}
}

/*
 * A microstate area's life (ABI 1.5): opened, mapped as a reader would or
 * not, a slot claimed for this thread by the mapping or by another
 * address.  A claim succeeds only while this thread is accounted (a
 * session on the worker); then its slot must be this thread's, written
 * whole (an even count).  The mapping is kept (for munmap, mremap,
 * mprotect and touch) or unmapped; the descriptor closed.
 */
static void op_ustate(struct thread *t)
{
	struct lwprof_ustate_open o = { 0 };
	struct lwprof_ustate_claim c = { 0 };
	size_t size = LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate);
	size_t lens[] = { size, size, 4096, size + 4096, 0 };
	int prots[] = { PROT_READ, PROT_READ, PROT_READ | PROT_WRITE,
			PROT_READ | PROT_EXEC, PROT_NONE };
	int flags[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE,
			MAP_SHARED | MAP_POPULATE };
	const struct lwprof_ustate *us;
	uint64_t *s = &t->rng;
	size_t len = FZ_PICK(s, lens);
	int prot = FZ_PICK(s, prots), fl = FZ_PICK(s, flags), fd, slot;
	char what[128];
	void *p;

	if (fz_below(s, 8) == 0)
		o.reserved[fz_below(s, 3)] = fz_rand(s);
	fd = ioctl(slot_fd(t), LWPROF_IOC_USTATE_OPEN, &o);
	result(t, OP_USTATE, fd, fz_errs(LWPROF_IOC_USTATE_OPEN), "USTATE_OPEN");
	if (fd < 0)
		return;
	snprintf(what, sizeof(what), "area fd %d len %#zx prot %#x flags %#x",
		 fd, len, prot, fl);
	p = mmap(NULL, len, prot, fl, fd, fz_below(s, 8) ? 0 : 4096);
	result(t, OP_USTATE, p == MAP_FAILED ? -1 : 0, FZ_E(EINVAL) |
	       FZ_E(EPERM) | FZ_E(EACCES) | FZ_E(ENOMEM), what);
	close(fd);
	if (p == MAP_FAILED)
		return;
	c.area = (uintptr_t)p + (fz_below(s, 8) ? 0 : 4096);
	slot = ioctl(slot_fd(t), LWPROF_IOC_USTATE_CLAIM, &c);
	result(t, OP_USTATE, slot, fz_errs(LWPROF_IOC_USTATE_CLAIM), "USTATE_CLAIM");
	if (slot >= LWPROF_USTATE_SLOTS) {
		atomic_fetch_add(&t->w->st->failures, 1);
		say("FAIL: seed %" PRIu64 " round %u thread %u: slot %d of %d\n",
		    t->w->seed, t->w->round, t->id, slot, LWPROF_USTATE_SLOTS);
	} else if (slot >= 0 && c.area == (uintptr_t)p && (prot & PROT_READ) &&
		   (size_t)(slot + 1) * sizeof(*us) <= len) {
		/* (by another address, it was another area's mapping there) */
		us = (const struct lwprof_ustate *)p + slot;
		if (us->tid != (uint32_t)syscall(SYS_gettid) || us->seq & 1) {
			atomic_fetch_add(&t->w->st->failures, 1);
			say("FAIL: seed %" PRIu64 " round %u thread %u: slot %d: tid %u seq %u (%s)\n",
			    t->w->seed, t->w->round, t->id, slot, us->tid, us->seq, what);
		}
	}
	if (t->w->child || fz_below(s, 2) || map_add(t->w, p, len, prot, 1))
		munmap(p, len);
}

static void run_ops(struct thread *t, unsigned int n);

/* A child shares the files (and so the sessions) but not the rings. */
static void op_fork(struct thread *t)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		t->w->child = 1;
		t->rng = fz_mix(t->rng);
		run_ops(t, 20);
		_exit(0);
	}
	result(t, OP_FORK, pid, FZ_E(EAGAIN) | FZ_E(ENOMEM), "fork");
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		atomic_fetch_add(&t->w->st->failures, 1);
		say("FAIL: seed %" PRIu64 " round %u thread %u: forked child: status %#x%s%s\n",
		    t->w->seed, t->w->round, t->id, status,
		    WIFSIGNALED(status) ? " signal " : "",
		    WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
	}
}

/* Of 200 ops, how many are each op (a forked child forks no more). */
static const unsigned char weights[NOPS] = {
	[OP_IOCTL] = 114, [OP_BADSIZE] = 10, [OP_FOREIGN] = 10, [OP_MMAP] = 16,
	[OP_MUNMAP] = 4, [OP_MREMAP] = 4, [OP_MPROTECT] = 4, [OP_TOUCH] = 10,
	[OP_CLOSE] = 6, [OP_OPEN] = 6, [OP_DUP] = 2, [OP_POLL] = 4,
	[OP_RW] = 3, [OP_FORK] = 1, [OP_USTATE] = 6,
};

static void run_ops(struct thread *t, unsigned int n)
{
	uint64_t t0;
	unsigned int r;
	int op;

	while (n--) {
		r = fz_below(&t->rng, 200);
		for (op = 0; r >= weights[op]; op++)
			r -= weights[op];
		if (t->w->child && op >= OP_MUNMAP && op <= OP_TOUCH)
			op = OP_IOCTL;
		if (t->w->child && op == OP_FORK)
			op = OP_POLL;
		t0 = lwr_now();
		switch (op) {
		case OP_IOCTL: case OP_BADSIZE: case OP_FOREIGN:
			op_ioctl(t, op);
			continue;	/* it times its call */
		case OP_MMAP:
			op_mmap(t);
			break;
		case OP_MUNMAP: case OP_MREMAP: case OP_MPROTECT: case OP_TOUCH:
			op_map(t, op);
			break;
		case OP_FORK:
			op_fork(t);
			break;
		case OP_USTATE:
			op_ustate(t);
			break;
		default:
			op_fd(t, op);
			break;
		}
		atomic_fetch_add(&t->w->st->ns[op], lwr_now() - t0);
	}
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	run_ops(t, t->w->ops);
	return NULL;
}

static void *nap(void *arg)
{
	usleep(1000);
	return arg;
}

/* A target that lives, makes threads and children, until we go. */
static pid_t spawn_helper(void)
{
	pid_t pid = fork();
	pthread_t th;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		if (!pthread_create(&th, NULL, nap, NULL))
			pthread_join(th, NULL);
		if (fork() == 0)
			_exit(0);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(2000);
	}
}

static void drop_root(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		t_fatal("drop to uid 65534");
	prctl(PR_SET_DUMPABLE, 1);	/* our helper may be traced by us */
}

static void worker_main(struct worker *w, unsigned int nthreads, int nobody)
{
	struct thread th[8];
	pthread_t tid[8];
	unsigned int i;
	int status;

	setpgid(0, 0);	/* round_run() kills the group */
	if (nobody)
		drop_root();
	pthread_mutex_init(&w->lock, NULL);
	w->pids.self = getpid();
	w->pids.parent = getppid();
	w->pids.helper = spawn_helper();
	w->pids.helper_tid = w->pids.helper + 1;
	w->pids.zombie = fork();
	if (w->pids.zombie == 0)
		_exit(0);
	for (i = 0; i < NSLOT; i++)
		w->fds[i] = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	for (i = 0; i < nthreads; i++) {
		th[i] = (struct thread){ .w = w, .id = i,
			.rng = fz_mix(w->seed ^ fz_mix(w->round * 8 + i)) };
		th[i].b.rw = mmap(NULL, FZ_BUF_RW + 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		th[i].b.ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE |
				  MAP_ANONYMOUS, -1, 0);
		if (th[i].b.rw == MAP_FAILED || th[i].b.ro == MAP_FAILED ||
		    mprotect(th[i].b.rw + FZ_BUF_RW, 4096, PROT_NONE))
			t_fatal("thread buffers");
	}
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, thread_main, &th[i]))
			t_fatal("pthread_create");
	thread_main(&th[0]);
	for (i = 1; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < NSLOT; i++)
		close(w->fds[i]);
	for (i = 0; i < NMAP; i++)
		if (w->maps[i].p)
			munmap(w->maps[i].p, w->maps[i].len);
	kill(w->pids.helper, SIGKILL);
	waitpid(w->pids.helper, &status, 0);
	waitpid(w->pids.zombie, &status, 0);
	_exit(0);
}

/*
 * Run one round in a worker process; maybe kill it at a random moment.
 * A worker that dies of anything but our SIGKILL, or does not finish in
 * limit seconds (a hang), is a failure.
 */
static void round_run(struct worker *w, unsigned int nthreads, int kills,
		      unsigned int limit)
{
	uint64_t rng = fz_mix(w->seed ^ fz_mix(~(uint64_t)w->round));
	int nobody = (w->round & 1) && !geteuid();
	uint64_t kill_ms = kills && fz_below(&rng, 4) == 0 ?
			   1 + fz_below(&rng, 500) : 0;
	uint64_t t0 = lwr_now();
	int status, killed = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		t_fatal("fork");
	if (pid == 0)
		worker_main(w, nthreads, nobody);
	setpgid(pid, 0);	/* before it can fork: no race with its own */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		uint64_t ms = (lwr_now() - t0) / 1000000;

		if ((kill_ms && ms >= kill_ms && !killed) || ms > limit * 1000ULL) {
			kill(pid, SIGKILL);
			killed = 1 + (ms > limit * 1000ULL);
		}
		usleep(1000);
	}
	/*
	 * What the worker left (its helper, children it forked, a killed
	 * worker's all) still holds files of /dev/lwprof, and the module, for
	 * as long as it lives: kill the group, reap them all (we are their
	 * subreaper), so the next round, and the unload, find them gone.
	 */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (killed == 2 || (WIFSIGNALED(status) && !killed) ||
	    (WIFEXITED(status) && WEXITSTATUS(status))) {
		atomic_fetch_add(&w->st->failures, 1);
		printf("FAIL: seed %" PRIu64 " round %u (%s): worker %s %d%s\n",
		       w->seed, w->round, nobody ? "uid 65534" : "root",
		       killed == 2 ? "hung; killed after" :
		       WIFSIGNALED(status) ? "died of signal" : "exited",
		       killed == 2 ? (int)limit : WIFSIGNALED(status) ?
		       WTERMSIG(status) : WEXITSTATUS(status),
		       killed == 2 ? " s" : "");
	}
}

static void print_hist(struct stats *st)
{
	unsigned int op, e;

	for (op = 0; op < NOPS + FZ_NCMDS; op++) {
		uint64_t n = 0;

		for (e = 0; e < NERR; e++)
			n += atomic_load(&st->hist[op][e]);
		if (!n)
			continue;
		printf("# %-14s %9" PRIu64 " %7.1f us:", op < NOPS ? op_names[op] :
		       fz_cmds[op - NOPS].name, n,
		       atomic_load(&st->ns[op]) / 1e3 / n);
		for (e = 0; e < NERR; e++)
			if (atomic_load(&st->hist[op][e]))
				printf(" %s %" PRIu64, e ? strerrorname_np(e) : "ok",
				       (uint64_t)atomic_load(&st->hist[op][e]));
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	uint64_t calls = 8000, seed = fz_mix(time(NULL) ^ getpid()), t0;
	unsigned int nthreads = 3, round = 0, only = ~0U, limit = 300, secs = 0;
	struct worker w = { .ops = 500 };
	int c, kills = 1;

	/* The long run (scripts/stress ioctl) goes through tests/run. */
	if (getenv("LWPROF_FUZZ_CALLS"))
		calls = strtoull(getenv("LWPROF_FUZZ_CALLS"), NULL, 0);
	if (getenv("LWPROF_FUZZ_SECS"))
		secs = atoi(getenv("LWPROF_FUZZ_SECS"));
	if (getenv("LWPROF_FUZZ_SEED"))
		seed = strtoull(getenv("LWPROF_FUZZ_SEED"), NULL, 0);
	while ((c = getopt(argc, argv, "n:s:j:r:R:k:T:")) != -1) {
		switch (c) {
		case 'n': calls = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'j': nthreads = atoi(optarg); break;
		case 'r': w.ops = atoi(optarg); break;
		case 'R': only = atoi(optarg); break;
		case 'k': kills = atoi(optarg); break;
		case 'T': secs = atoi(optarg); break;
		default: return 2;
		}
	}
	if (nthreads < 1 || nthreads > 8)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	w.seed = seed;
	w.st = mmap(NULL, sizeof(*w.st), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w.st == MAP_FAILED)
		t_fatal("mmap stats");
	lwr_test_begin();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		t_fatal("PR_SET_CHILD_SUBREAPER");
	printf("# seed %" PRIu64 ": replay a round with -s %" PRIu64
	       " -R ROUND -j 1 -k 0\n", seed, seed);
	t0 = lwr_now();
	for (round = only == ~0U ? 0 : only;
	     only == ~0U ? atomic_load(&w.st->calls) < calls : round == only;
	     round++) {
		w.round = round;
		round_run(&w, nthreads, kills, limit);
		if (atomic_load(&w.st->failures) > 20 ||
		    (secs && lwr_now() - t0 > secs * 1000000000ULL))
			break;
	}
	printf("# %u rounds, %" PRIu64 " calls (%" PRIu64 " ioctls) in %.1f s\n",
	       round - (only == ~0U ? 0 : only), (uint64_t)atomic_load(&w.st->calls),
	       (uint64_t)atomic_load(&w.st->ioctls),
	       (lwr_now() - t0) / 1e9);
	print_hist(w.st);
	t_check(atomic_load(&w.st->failures) == 0,
		"%d unexpected results or deaths (seed %" PRIu64 ")",
		atomic_load(&w.st->failures), seed);
	return lwr_test_end();
}
