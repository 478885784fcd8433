// SPDX-License-Identifier: GPL-2.0
/*
 * Microstate sessions (LWPROF_IOC_ATTACH, LWPROF_IOC_READ_USAGE): the
 * documented errors, one session per file and per thread, the end of a
 * session when its file closes or its owner dies, a target that exits
 * while attached, and 1000 attach/close cycles; the module unloads after
 * each, and the kernel log stays clean (tests/run checks it).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lwprof.h"
#include "test.h"

#define CYCLES	1000	/* $LWPROF_CYCLES overrides, for debugging */

static pid_t sleeper;

static int load_module(void)
{
	return system("insmod \"${LWPROF_KO:-lwprof.ko}\"");
}

static int unload_module(void)
{
	return syscall(SYS_delete_module, "lwprof", O_NONBLOCK);
}

/* Whatever happened, leave no session open and the module unloaded. */
static void cleanup(void)
{
	int fd;

	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	unload_module();
}

static int dev_open(void)
{
	int fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		t_fatal("open " LWPROF_DEVICE_PATH);
	return fd;
}

static int attach(int fd, __u32 flags, int pid)
{
	struct lwprof_attach a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.pid = pid;
	return ioctl(fd, LWPROF_IOC_ATTACH, &a);
}

static int read_usage(int fd, struct lwprof_thread_usage *buf, __u32 count,
		      struct lwprof_usage_read *r)
{
	memset(r, 0, sizeof(*r));
	r->buf = (unsigned long)buf;
	r->count = count;
	return ioctl(fd, LWPROF_IOC_READ_USAGE, r);
}

/* A child that sleeps (pause) until killed; or exits after ms. */
static pid_t child(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	pid_t pid = fork();

	if (pid < 0)
		t_fatal("fork");
	if (!pid) {
		if (ms)
			nanosleep(&ts, NULL);
		else
			pause();
		_exit(0);
	}
	return pid;
}

static void check_unload(const char *when)
{
	int ret = unload_module();

	t_check(ret == 0, "module unloads %s (%s)", when,
		ret ? strerror(errno) : "0");
	if (load_module())
		t_fatal("reload lwprof.ko");
}

static void errors(void)
{
	struct lwprof_thread_usage tu[4];
	struct lwprof_usage_read r;
	struct lwprof_attach a;
	int fd = dev_open(), fd2 = dev_open(), ret;
	void *noaccess;
	pid_t gone;

	t_errno(read_usage(fd, tu, 4, &r), EINVAL, "READ_USAGE before ATTACH");

	memset(&a, 0, sizeof(a));
	a.pid = sleeper;
	a.reserved[5] = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ATTACH, &a), EINVAL,
		"ATTACH with a reserved field set");
	t_errno(attach(fd, 1U << 7, sleeper), EINVAL, "ATTACH with an unknown flag");
	t_errno(attach(fd, LWPROF_ATTACH_MACHINE, sleeper), EINVAL,
		"ATTACH_MACHINE with a pid");
	gone = child(1);
	waitpid(gone, NULL, 0);
	t_errno(attach(fd, 0, gone), ESRCH, "ATTACH to a process that is gone");
	t_errno(ioctl(fd, LWPROF_IOC_ATTACH, NULL), EFAULT, "ATTACH with NULL");

	ret = attach(fd, 0, sleeper);
	t_check(ret == 0, "ATTACH to a sleeping child (%s)",
		ret ? strerror(errno) : "0");
	t_errno(attach(fd, 0, getpid()), EBUSY, "second ATTACH on the same fd");
	t_errno(attach(fd2, 0, sleeper), EBUSY,
		"ATTACH to a process another session accounts");
	t_errno(attach(fd2, LWPROF_ATTACH_MACHINE, 0), EBUSY,
		"machine session while another session is open");

	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	t_errno(read_usage(fd, noaccess, 4, &r), EFAULT,
		"READ_USAGE into an unwritable buffer");
	t_errno(ioctl(fd, LWPROF_IOC_READ_USAGE, noaccess), EFAULT,
		"READ_USAGE with an unreadable argument");
	memset(&r, 0, sizeof(r));
	r.reserved[0] = 1;
	t_errno(ioctl(fd, LWPROF_IOC_READ_USAGE, &r), EINVAL,
		"READ_USAGE with a reserved field set");
	r.reserved[0] = 0;
	r.flags = 1;
	t_errno(ioctl(fd, LWPROF_IOC_READ_USAGE, &r), EINVAL,
		"READ_USAGE with an unknown flag");

	ret = read_usage(fd, tu, 4, &r);
	t_check(ret == 0 && r.count == 1 && r.live == 1 && r.total == 1,
		"READ_USAGE: the child's one thread (count %u live %u total %u)",
		r.count, r.live, r.total);
	t_check(r.count && tu[0].pid == (__u32)sleeper &&
		tu[0].tid == (__u32)sleeper &&
		(tu[0].flags & LWPROF_TU_ATTACHED) &&
		!(tu[0].flags & LWPROF_TU_EXITED),
		"its record: pid/tid %u/%u, flags %#x", tu[0].pid, tu[0].tid,
		tu[0].flags);
	ret = read_usage(fd, tu, 0, &r);
	t_check(ret == 0 && r.count == 0 && r.total == 1,
		"READ_USAGE with count 0 reports total %u", r.total);

	t_errno(unload_module(), EWOULDBLOCK,
		"unload refused while a session is open");
	close(fd);
	close(fd2);
	munmap(noaccess, 4096);
	check_unload("after the session's fd is closed");
}

/* A target that exits while attached: one final record, then nothing. */
static void target_exits(void)
{
	struct lwprof_thread_usage tu[4];
	struct lwprof_usage_read r;
	int fd = dev_open(), i, got = 0, ret;
	pid_t pid = child(100);
	__u64 sum = 0;

	t_check(attach(fd, 0, pid) == 0, "ATTACH to a child that exits in 100 ms");
	waitpid(pid, NULL, 0);
	for (i = 0; i < 2000 && !got; i++) {
		if (read_usage(fd, tu, 4, &r))
			break;
		got = r.count == 1 && (tu[0].flags & LWPROF_TU_EXITED);
		if (!got)
			usleep(1000);
	}
	t_check(got, "its final record arrives (EXITED) (last read: count %u live %u total %u flags %#x, after %d ms)",
		r.count, r.live, r.total, r.count ? tu[0].flags : 0, i);
	if (got) {
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			sum += tu[0].mstate_ns[i];
		t_check(sum == tu[0].end_ns - tu[0].start_ns,
			"microstates sum to end - start (%llu vs %llu ns)",
			(unsigned long long)sum,
			(unsigned long long)(tu[0].end_ns - tu[0].start_ns));
	}
	ret = read_usage(fd, tu, 4, &r);
	t_check(ret == 0 && r.count == 0 && r.total == 0 && r.live == 0,
		"then nothing: count %u total %u live %u", r.count, r.total,
		r.live);
	close(fd);
	check_unload("after a target exited");
}

/* The owner of a session is SIGKILLed: the session ends with it. */
static void owner_killed(void)
{
	int gate[2], ok = 0;
	pid_t owner;
	char c;

	if (pipe(gate))
		t_fatal("pipe");
	owner = fork();
	if (owner < 0)
		t_fatal("fork");
	if (!owner) {
		int fd = open(LWPROF_DEVICE_PATH, O_RDWR);

		c = fd >= 0 && attach(fd, 0, getpid()) == 0 ? 'y' : 'n';
		if (write(gate[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(gate[1]);
	if (read(gate[0], &c, 1) == 1)
		ok = c == 'y';
	close(gate[0]);
	t_check(ok, "a child attaches a session to itself");
	t_errno(unload_module(), EWOULDBLOCK, "unload refused while it lives");
	kill(owner, SIGKILL);
	waitpid(owner, NULL, 0);
	check_unload("after the session's owner was SIGKILLed");
}

static void cycles(void)
{
	int i, fails = 0, n = CYCLES;

	if (getenv("LWPROF_CYCLES"))
		n = atoi(getenv("LWPROF_CYCLES"));
	for (i = 0; i < n; i++) {
		int fd = dev_open();

		fails += attach(fd, 0, sleeper) != 0;
		close(fd);
	}
	t_check(fails == 0, "%d attach/close cycles (%d failed)", n, fails);
}

int main(void)
{
	struct lwprof_abi_version v;
	int fd;

	if (load_module())
		t_fatal("load lwprof.ko");
	atexit(cleanup);
	fd = dev_open();
	memset(&v, 0, sizeof(v));
	if (ioctl(fd, LWPROF_IOC_ABI_VERSION, &v) || !(v.features & LWPROF_FEAT_MSTATE))
		t_skip("the module has no microstate accounting (LWPROF_FEAT_MSTATE)");
	close(fd);

	sleeper = child(0);
	errors();
	target_exits();
	owner_killed();
	cycles();
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	sleeper = 0;
	check_unload("after all that");
	return t_done();
}
