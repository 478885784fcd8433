// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing library's core (trace.h, docs/tracing.md): its settings,
 * the process's trace.PID.rec file, the per-thread buffers and what the
 * analyzer needs besides the traced calls (TASK and MMAP records, the
 * names of inherited descriptors).
 *
 * Buffers: each thread appends to its own (mmap'd when the thread first
 * traces a call, TR_BUF bytes) and writes it out with one write() to the
 * file (O_APPEND: a write of whole records lands whole) when the next
 * record would not fit, when the thread ends, before fork and exec, and
 * at exit (the exiting thread writes out every thread's).  Buffers are
 * on a list that only grows (a buffer of an ended thread is taken by the
 * next new thread); flushing takes the buffer's flag, which only
 * flushes contend for.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libexp/format.h"
#include "trace.h"

#define TR_BUF		(1u << 20)	/* per thread */

struct tr_thread {
	struct tr_thread *next;		/* the list: only grows */
	int used;			/* taken by a live thread */
	int lock;			/* the tid of the flush writing it; 0 */
	pid_t tid;
	uint64_t stack_top;		/* copies end here; 0: unknown */
	struct tr_stack_base base;	/* of the stack copies' deltas */
	uint32_t len;			/* bytes in buf (the owner's; release) */
	uint32_t done;			/* bytes of buf written out (under lock) */
	uint8_t *buf;
};

struct tr_conf tr_conf;
__thread int tr_in TR_TLS;
static __thread struct tr_thread *tr_self TR_TLS;

#define TR_MAPS_MAX	1024		/* executable mappings remembered */

/* The process's state: set at load and in a forked child. */
static struct {
	int fd;				/* trace.PID.rec, or -1 */
	uint64_t maps[TR_MAPS_MAX];	/* starts of the mappings recorded */
	unsigned int nmaps;
	int maps_lock;
	pid_t pid;
	char dir[PATH_MAX];
	struct tr_thread *threads;
	bool exiting;			/* after the final flush: write at once */
} tr = { .fd = -1 };

extern void *__libc_stack_end;

void *tr_real(const char *name)
{
	void *p;

	tr_in++;
	p = dlsym(RTLD_NEXT, name);
	tr_in--;
	return p;
}

static ssize_t raw_write(int fd, const void *p, size_t n)
{
	return syscall(SYS_write, fd, p, n);
}

/*
 * Write out what t holds past what was written.  Only its owner empties
 * it (reset, when it holds no room or at fork): another thread (exit)
 * writes up to the length the owner last published and leaves the rest,
 * so an append under way stays whole.  A range is claimed (done) before
 * its write: a fatal signal's flush on this thread (tr_flush_dying),
 * which interrupts this never to return, writes what is past it, once.
 */
static void flush_locked(struct tr_thread *t, bool reset)
{
	uint32_t len = __atomic_load_n(&t->len, __ATOMIC_ACQUIRE), from;
	ssize_t n;

	while (t->done < len && tr.fd >= 0) {
		from = t->done;
		/* the claim before the write, for a handler on this thread */
		__atomic_store_n(&t->done, len, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		n = raw_write(tr.fd, t->buf + from, len - from);
		if (n < 0 && errno == EINTR) {
			t->done = from;
			continue;
		}
		if (n <= 0)
			break;	/* the experiment's disk: nothing better to do */
		t->done = from + n;
	}
	t->done = len;
	if (reset) {
		/* length first: a handler here must not see done 0 of len */
		__atomic_store_n(&t->len, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->done = 0;
	}
}

/* Take t's flag: the writer's tid (a fatal signal's flush asks whose). */
static void flush(struct tr_thread *t, bool reset)
{
	int zero, me = gettid();

	for (;;) {
		zero = 0;
		if (__atomic_compare_exchange_n(&t->lock, &zero, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		sched_yield();
	}
	flush_locked(t, reset);
	__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

static void flush_all(void)
{
	struct tr_thread *t;

	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->used, __ATOMIC_ACQUIRE))
			flush(t, t == tr_self);
}

#define TR_DYING_TRIES	20000	/* sched_yield()s for a flag another holds */

/*
 * A fatal signal (signal.c): every thread's buffer out, from a handler,
 * the process about to end.  Async-signal-safe: system calls and
 * atomics only; no waiting on what this thread's interrupted code holds
 * (a flush under way here: its claim tells what is left), a bounded
 * wait for what another thread holds (it is writing that buffer out).
 * The first thread here flushes; one that comes while it does waits for
 * it (bounded), so the process does not end in the middle.
 */
void tr_flush_dying(void)
{
	static int dying;	/* the flushing thread's tid; -1 once done */
	struct tr_thread *t;
	int me = gettid(), zero = 0, i;

	if (!__atomic_compare_exchange_n(&dying, &zero, me, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < TR_DYING_TRIES && zero > 0 && zero != me; i++) {
			sched_yield();
			zero = __atomic_load_n(&dying, __ATOMIC_ACQUIRE);
		}
		return;
	}
	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		bool mine = __atomic_load_n(&t->lock, __ATOMIC_ACQUIRE) == me;

		if (!__atomic_load_n(&t->used, __ATOMIC_ACQUIRE))
			continue;
		for (i = 0; !mine && i < TR_DYING_TRIES; i++) {
			zero = 0;
			if (__atomic_compare_exchange_n(&t->lock, &zero, me, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
			sched_yield();
		}
		if (!mine && i == TR_DYING_TRIES)
			continue;	/* its writer is still at it */
		flush_locked(t, false);
		if (!mine)
			__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&dying, -1, __ATOMIC_RELEASE);
}

/* The stack's end of the calling thread, for the copies' bound. */
static uint64_t stack_top(pid_t tid)
{
	pthread_attr_t a;
	size_t size;
	void *addr;

	if (tid == tr.pid)
		return (uint64_t)__libc_stack_end;
	if (pthread_getattr_np(pthread_self(), &a))
		return 0;
	if (pthread_attr_getstack(&a, &addr, &size))
		size = 0;
	pthread_attr_destroy(&a);
	return size ? (uint64_t)addr + size : 0;
}

/* This thread's buffer: a free one of the list, or a new one. */
static struct tr_thread *thread_get(uint64_t top)
{
	struct tr_thread *t;
	int zero;

	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		zero = 0;
		if (__atomic_compare_exchange_n(&t->used, &zero, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (!t) {
		t = mmap(NULL, TR_BUF + 4096 + LWPROF_STACK_MAX, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
		t->buf = (uint8_t *)t + 4096;
		t->base.bytes = t->buf + TR_BUF;
		t->used = 1;
		t->next = __atomic_load_n(&tr.threads, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&tr.threads, &t->next, t, false,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	t->tid = gettid();
	t->len = t->done = 0;
	t->base.have = 0;	/* a new thread's first copy is whole */
	t->stack_top = top ? top : stack_top(t->tid);
	tr_self = t;
	return t;
}

/* Room for n bytes in this thread's buffer (NULL: no buffer). */
static uint8_t *reserve(size_t n)
{
	struct tr_thread *t = tr_self;

	if (!t && !(t = thread_get(0)))
		return NULL;
	if (t->len + n > TR_BUF)
		flush(t, true);
	return t->buf + t->len;
}

static void commit(size_t n)
{
	/* the record before its length: another thread's flush reads it */
	__atomic_store_n(&tr_self->len, tr_self->len + n, __ATOMIC_RELEASE);
	if (tr.exiting)
		flush(tr_self, true);
}

/*
 * A trace call record (libexp/trace.h): the fields that are not 0 (nor
 * implied: a start equal to the return, a ret equal to bytes), the
 * microstates if the caller has them, the stack part.
 */
void tr_emit(const struct tr_ev *ev, uint64_t *regs)
{
	uint64_t sp = regs ? regs[EXP_TR_RSP] : 0, top, r[EXP_TR_NR_REGS];
	__u64 *f;
	struct exp_rec_tcall *t;
	uint32_t copy = 0;
	uint16_t flags = 0;
	bool delta;

	if (!tr_self && !thread_get(0))
		return;
	if (regs) {
		top = tr_self->stack_top;
		copy = tr_conf.stack_bytes;
		if (top > sp && top - sp < copy)
			copy = top - sp;
		else if (top <= sp)
			copy = 0;	/* unknown or foreign stack: registers only */
		copy &= ~7U;
	}
	t = (struct exp_rec_tcall *)reserve(sizeof(*t) +
					    8 * __builtin_popcount(EXP_TCF_FIELDS) +
					    (ev->ms ? 8 * LWPROF_MS_COUNT : 0) +
					    (regs ? tr_stack_room(copy) : 0));
	if (!t)
		return;
	f = t->fields;
	if (ev->start != ev->end) {
		*f++ = ev->start;
		flags |= EXP_TCF_START;
	}
	if (ev->addr) {
		*f++ = ev->addr;
		flags |= EXP_TCF_ADDR;
	}
	if (ev->addr2) {
		*f++ = ev->addr2;
		flags |= EXP_TCF_ADDR2;
	}
	if (ev->bytes) {
		*f++ = ev->bytes;
		flags |= EXP_TCF_BYTES;
	}
	if (ev->ret && (uint64_t)ev->ret == ev->bytes) {
		flags |= EXP_TCF_RET_BYTES;
	} else if (ev->ret) {
		*f++ = ev->ret;
		flags |= EXP_TCF_RET;
	}
	if (ev->ms) {
		memcpy(f, ev->ms, 8 * LWPROF_MS_COUNT);
		f += LWPROF_MS_COUNT;
		flags |= EXP_TCF_MS;
	}
	if (regs) {
		/*
		 * The array lies in the interposed function's frame, inside
		 * the copy: zeroed, it is the same bytes every call (a delta
		 * skips it) and the record has its values.
		 */
		memcpy(r, regs, sizeof(r));
		memset(regs, 0, sizeof(r));
		copy = tr_stack_copy(&tr_self->base, r, copy, (uint8_t *)f, &delta);
		f = (__u64 *)((uint8_t *)f + copy);	/* its bytes */
		flags |= EXP_TCF_STACK | (delta ? EXP_TCF_DELTA : 0);
	}
	t->hdr.type = EXP_REC_TCALL;
	t->hdr.flags = flags;
	t->hdr.size = (uint8_t *)f - (uint8_t *)t;
	t->event = ev->event;
	t->cpu = sched_getcpu();
	t->pid = tr.pid;
	t->tid = tr_self->tid;
	t->fd = ev->fd;
	t->time_ns = ev->end;
	commit(t->hdr.size);
}

void tr_emit_free(uint16_t event, uint64_t addr, uint64_t bytes)
{
	struct tr_ev ev = { .event = event, .fd = -1, .addr = addr,
			    .bytes = bytes };

	ev.start = ev.end = tr_now();
	tr_emit(&ev, NULL);
}

/* A record of size bytes (a multiple of 8) from the buffer: p its start. */
static uint8_t *small(size_t size)
{
	return reserve(size);
}

void tr_emit_file(int fd, const char *path)
{
	size_t len = strnlen(path, PATH_MAX - 1), size;
	struct exp_rec_trace_file *f;

	size = sizeof(*f) + ((len + 8) & ~7UL);
	f = (struct exp_rec_trace_file *)small(size);
	if (!f || !len)
		return;
	memset(f, 0, size);
	f->hdr.type = EXP_REC_TRACE_FILE;
	f->hdr.size = size;
	f->time_ns = tr_now();
	f->pid = tr.pid;
	f->fd = fd;
	memcpy(f->path, path, len);
	commit(size);
}

static void emit_task(uint32_t event, pid_t ppid)
{
	struct lwprof_rec_task *t;

	if (tr_conf.no_tasks)
		return;	/* the module's records say it */
	t = (struct lwprof_rec_task *)small(sizeof(*t));
	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->hdr.type = LWPROF_REC_TASK;
	t->hdr.size = sizeof(*t);
	t->time_ns = tr_now();
	t->pid = tr.pid;
	t->tid = tr_self->tid;
	t->ppid = ppid;
	t->event = event;
	prctl(PR_GET_NAME, t->comm);
	commit(sizeof(*t));
}

/* One executable mapping of a /proc/self/maps line. */
static void emit_map(const char *line)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8], path[PATH_MAX];
	struct lwprof_rec_mmap *m;
	size_t len, size;
	int n = 0;

	path[0] = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
		   &off, &maj, &min, &ino, &n) < 7 || !strchr(perms, 'x'))
		return;
	if (n && line[n])
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(line + n, "\n"),
			 line + n);
	if (!strcmp(path, "[vsyscall]"))
		return;
	if (!path[0])
		strcpy(path, "//anon");
	for (n = 0; n < (int)tr.nmaps; n++)
		if (tr.maps[n] == start)
			return;		/* recorded already (before a dlopen) */
	if (tr.nmaps < TR_MAPS_MAX)
		tr.maps[tr.nmaps++] = start;
	len = strlen(path);
	size = sizeof(*m) + ((len + 8) & ~7UL);
	m = (struct lwprof_rec_mmap *)small(size);
	if (!m)
		return;
	memset(m, 0, size);
	m->hdr.type = LWPROF_REC_MMAP;
	m->hdr.flags = path[0] == '/' ? 0 : LWPROF_MMAP_ANON;
	if (!strcmp(path, "[vdso]"))
		m->hdr.flags = 0;
	m->hdr.size = size;
	m->time_ns = tr_now();
	m->pid = tr.pid;
	m->tid = tr_self->tid;
	m->start = start;
	m->len = end - start;
	m->pgoff = off;
	m->ino = ino;
	m->dev_major = maj;
	m->dev_minor = min;
	m->prot = PROT_READ | PROT_EXEC | (strchr(perms, 'w') ? PROT_WRITE : 0);
	memcpy(m->path, path, len);
	commit(size);
}

/*
 * The executable mappings not recorded yet, as the module's MMAP records
 * would say (at the start, after a dlopen).
 */
static void emit_maps(void)
{
	char buf[8192], line[PATH_MAX + 128];
	size_t ll = 0;
	ssize_t n;
	int fd, i;

	if (tr_conf.no_tasks)
		return;	/* the module's records say it */
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (ll < sizeof(line) - 1)
				line[ll++] = buf[i];
			if (buf[i] == '\n') {
				line[ll] = 0;
				emit_map(line);
				ll = 0;
			}
		}
	}
	close(fd);
}

/* The names of the descriptors the process starts with. */
static void emit_fds(void)
{
	char link[64], path[PATH_MAX];
	struct dirent *de;
	ssize_t n;
	DIR *d = opendir("/proc/self/fd");
	int fd;

	if (!d)
		return;
	while ((de = readdir(d))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(d) || fd == tr.fd)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = 0;
		tr_emit_file(fd, path);
	}
	closedir(d);
}

/*
 * fd moved out of the program's way: to the upper half of its descriptor
 * limit (a program may expect its first open to return 3), fd closed.
 */
static int high_fd(int fd)
{
	struct rlimit rl;
	int hi;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < 64)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)(rl.rlim_cur > 2048 ? 1024 :
						rl.rlim_cur / 2));
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/*
 * The program is about to close descriptor fd or make it another file
 * (dup2, dup3): is it the trace file's?  Then the trace file moves to
 * another descriptor (dup2, dup3), or the close is pretended (io.c).
 */
bool tr_own_fd(int fd, bool move)
{
	int nfd;

	if (fd != tr.fd || fd < 0)
		return false;
	if (move) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
		if (nfd >= 0)
			tr.fd = nfd;	/* the old one the caller's call replaces */
	}
	return true;
}

int tr_trace_fd(void)
{
	return tr.fd;
}

/*
 * The process's file: trace.PID.rec, or after an exec (the pid had one)
 * trace.PID.N.rec; its header.  exec: is the file the one of a new
 * program in the same process?
 */
static int open_file(bool *exec)
{
	struct exp_file_header h;
	char path[PATH_MAX + 64];
	unsigned int n;
	int fd;

	*exec = false;
	for (n = 0; n < 1000; n++) {
		if (!n)
			snprintf(path, sizeof(path), "%s/" EXP_TRACE_FMT, tr.dir, tr.pid);
		else
			snprintf(path, sizeof(path), "%s/" EXP_TRACE_FMT2, tr.dir,
				 tr.pid, n);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
			  0644);
		if (fd >= 0 || errno != EEXIST)
			break;
		*exec = true;
	}
	if (fd < 0)
		return -1;
	fd = high_fd(fd);
	exp_file_header_init(&h, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	if (raw_write(fd, &h, sizeof(h)) != sizeof(h)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The process starts (load, exec) or is forked: its file and first records. */
static void process_start(uint32_t event)
{
	bool exec;

	tr.pid = getpid();
	tr.fd = open_file(&exec);
	if (tr.fd < 0) {
		tr_conf.kinds = 0;
		return;
	}
	if (!tr_self && !thread_get(0))
		return;
	if (tr_conf.no_tasks)
		tr_ms_open();	/* the module accounts it: microstates per call */
	emit_task(exec ? LWPROF_TASK_EXEC : event, getppid());
	/* a forked child has its parent's mappings (the analyzer copies them) */
	if (event != LWPROF_TASK_FORK)
		emit_maps();
	emit_fds();
	flush(tr_self, true);
}

/*
 * LWPROF_TRACE="KINDS,SYNC_NS,STACK" (KINDS: h s i letters) and
 * LWPROF_TRACE_DIR (the experiment), from collect.  Without them the
 * library only passes calls on.
 */
__attribute__((constructor(101))) static void tr_init(void)
{
	const char *v = getenv("LWPROF_TRACE"), *dir = getenv("LWPROF_TRACE_DIR");
	unsigned long long ns = 0, stack = 0;
	char kinds[8] = "";
	unsigned int k = 0;

	tr_in++;
	if (v && dir && sscanf(v, "%7[hsik],%llu,%llu", kinds, &ns, &stack) == 3 &&
	    strlen(dir) < sizeof(tr.dir)) {
		k |= strchr(kinds, 'h') ? TR_HEAP : 0;
		k |= strchr(kinds, 's') ? TR_SYNC : 0;
		k |= strchr(kinds, 'i') ? TR_IO : 0;
		tr_conf.no_tasks = strchr(kinds, 'k') != NULL;
		strcpy(tr.dir, dir);
		tr_conf.sync_ns = ns;
		tr_conf.stack_bytes = stack > LWPROF_STACK_MAX ? LWPROF_STACK_MAX : stack;
		tr_exec_init(v, dir);
		process_start(LWPROF_TASK_START);
		tr_conf.kinds = tr.fd >= 0 ? k : 0;
	}
	tr_sync_init();
	tr_signal_init();
	tr_in--;
}

/* Everything out; what still comes (other destructors) goes at once. */
__attribute__((destructor(101))) static void tr_fini(void)
{
	tr_in++;
	flush_all();
	tr.exiting = true;
	tr_in--;
}

void tr_before_fork(void)
{
	if (tr_self)
		flush(tr_self, true);
}

void tr_after_fork(bool child)
{
	struct tr_thread *t;

	if (!child || !tr_conf.kinds)
		return;
	tr_in++;
	/* the parent writes out what its threads' buffers hold */
	for (t = tr.threads; t; t = t->next) {
		t->lock = 0;
		t->len = t->done = 0;
		t->base.have = 0;	/* the bases are in the parent's file */
		if (t != tr_self)
			t->used = 0;
	}
	if (tr.fd >= 0)
		close(tr.fd);
	if (tr_self)
		tr_self->tid = gettid();
	tr_ms_after_fork();
	process_start(LWPROF_TASK_FORK);
	tr_in--;
}

void tr_before_exec(void)
{
	if (tr_conf.kinds && getpid() == tr.pid)
		flush_all();
}

/* A library loaded later: its mappings. */
TR_API void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real && !(real = tr_real("dlopen")))
		return NULL;
	h = real(file, mode);
	if (h && tr_conf.kinds && tr.fd >= 0) {
		tr_in++;
		while (__atomic_exchange_n(&tr.maps_lock, 1, __ATOMIC_ACQUIRE))
			sched_yield();
		emit_maps();
		__atomic_store_n(&tr.maps_lock, 0, __ATOMIC_RELEASE);
		tr_in--;
	}
	return h;
}

void tr_thread_exit(void)
{
	struct tr_thread *t = tr_self;

	if (!t)
		return;
	tr_in++;
	emit_task(LWPROF_TASK_EXIT, getppid());
	flush(t, true);
	tr_self = NULL;
	__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
	tr_in--;
}

void *tr_thread_start(void *arg)
{
	struct tr_start st = *(struct tr_start *)arg;
	void *ret;

	tr_in++;
	free(arg);
	if (tr_conf.kinds && thread_get((uint64_t)__builtin_frame_address(0)))
		emit_task(LWPROF_TASK_FORK, getppid());	/* names the thread */
	tr_in--;
	ret = st.fn(st.arg);
	tr_thread_exit();
	return ret;
}
