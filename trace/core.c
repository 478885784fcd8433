// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing library's core (trace.h, docs/design/tracing.md): its settings,
 * the process's trace.PID.rec file and its life (start, fork, exec,
 * threads), and what the analyzer needs besides the traced calls (TASK
 * and MMAP records, the names of inherited descriptors).  The per-thread
 * buffers and the call records are buf.c's.
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
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libexp/format.h"
#include "trace.h"

struct tr_conf tr_conf;
__thread int tr_in TR_TLS;

struct tr_proc tr = { .fd = -1 };

void *tr_real(const char *name)
{
	void *p;

	tr_in++;
	p = dlsym(RTLD_NEXT, name);
	tr_in--;
	return p;
}














static void emit_task(uint32_t event, pid_t ppid)
{
	struct lwprof_rec_task *t;

	if (tr_conf.no_tasks)
		return;	/* the module's records say it */
	t = (struct lwprof_rec_task *)tr_reserve(sizeof(*t));
	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->hdr.type = LWPROF_REC_TASK;
	t->hdr.size = sizeof(*t);
	t->time_ns = tr_now();
	t->pid = tr.pid;
	t->tid = tr_thread_tid();
	t->ppid = ppid;
	t->event = event;
	prctl(PR_GET_NAME, t->comm);
	tr_commit(sizeof(*t));
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
	m = (struct lwprof_rec_mmap *)tr_reserve(size);
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
	m->tid = tr_thread_tid();
	m->start = start;
	m->len = end - start;
	m->pgoff = off;
	m->ino = ino;
	m->dev_major = maj;
	m->dev_minor = min;
	m->prot = PROT_READ | PROT_EXEC | (strchr(perms, 'w') ? PROT_WRITE : 0);
	memcpy(m->path, path, len);
	tr_commit(size);
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
	if (tr_raw_write(fd, &h, sizeof(h)) != sizeof(h)) {
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
	if (!tr_thread_get(0))
		return;
	if (tr_conf.no_tasks)
		tr_ms_open();	/* the module accounts it: microstates per call */
	emit_task(exec ? LWPROF_TASK_EXEC : event, getppid());
	/* a forked child has its parent's mappings (the analyzer copies them) */
	if (event != LWPROF_TASK_FORK)
		emit_maps();
	emit_fds();
	tr_flush_self();
}

/*
 * LWPROF_TRACE="KINDS,SYNC_NS,STACK" (KINDS: h s i letters) and
 * LWPROF_TRACE_DIR (the experiment), from collect.  Without them the
 * library only passes calls on.  So it does in a program the kernel
 * started in secure mode (AT_SECURE: set-user-ID, set-group-ID, file
 * capabilities, an LSM's transition), into which the dynamic linker may
 * still load it (from a system directory, set-user-ID itself, or
 * /etc/ld.so.preload): its environment is its caller's, who must get
 * neither files made with the program's rights where it names nor the
 * program's memory.  The caller's own exec of it said so (exec.c).
 */
__attribute__((constructor(101))) static void tr_init(void)
{
	const char *v = getenv("LWPROF_TRACE"), *dir = getenv("LWPROF_TRACE_DIR");
	unsigned long long ns = 0, stack = 0;
	char kinds[8] = "";
	unsigned int k = 0;

	tr_in++;
	if (getauxval(AT_SECURE))
		v = dir = NULL;
	if (v && dir && sscanf(v, "%7[hsikmo],%llu,%llu", kinds, &ns, &stack) == 3 &&
	    strlen(dir) < sizeof(tr.dir)) {
		k |= strchr(kinds, 'h') ? TR_HEAP : 0;
		k |= strchr(kinds, 's') ? TR_SYNC : 0;
		k |= strchr(kinds, 'i') ? TR_IO : 0;
		k |= strchr(kinds, 'o') ? TR_OMP : 0;
		k |= strchr(kinds, 'm') ? TR_MPI : 0;
		tr_conf.no_tasks = strchr(kinds, 'k') != NULL;
		strcpy(tr.dir, dir);
		tr_conf.sync_ns = ns;
		tr_conf.stack_bytes = stack > LWPROF_STACK_MAX ? LWPROF_STACK_MAX : stack;
		tr_exec_init(v, dir);
		if (k & TR_HEAP)
			tr_stackid_init();
		process_start(LWPROF_TASK_START);
		/* after the start's records: its slices are this image's */
		tr_heapsum_init();
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
	tr_heapsum_flush();
	tr_flush_all();
	tr.exiting = true;
	tr_in--;
}

void tr_before_fork(void)
{
	if (tr_conf.kinds & TR_HEAP)
		tr_heapsum_flush();
	tr_flush_self();
}

void tr_after_fork(bool child)
{
	if (!child || !tr_conf.kinds)
		return;
	tr_in++;
	tr_thread_after_fork();
	tr_heapsum_after_fork();
	if (tr.fd >= 0)
		close(tr.fd);
	tr_ms_after_fork();
	process_start(LWPROF_TASK_FORK);
	tr_in--;
}

void tr_before_exec(void)
{
	if (tr_conf.kinds && getpid() == tr.pid) {
		if (tr_conf.kinds & TR_HEAP)
			tr_heapsum_flush();
		tr_flush_all();
	}
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
		if (tr_conf.kinds & TR_HEAP)
			tr_stackid_loaded();
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
	tr_in++;
	if (tr_thread_have())
		emit_task(LWPROF_TASK_EXIT, getppid());
	tr_thread_put();
	tr_in--;
}

void *tr_thread_start(void *arg)
{
	struct tr_start st = *(struct tr_start *)arg;
	void *ret;

	tr_in++;
	free(arg);
	if (tr_conf.kinds && tr_thread_get((uint64_t)__builtin_frame_address(0)))
		emit_task(LWPROF_TASK_FORK, getppid());	/* names the thread */
	tr_in--;
	ret = st.fn(st.arg);
	tr_thread_exit();
	return ret;
}
