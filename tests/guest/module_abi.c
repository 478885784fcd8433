// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof.ko loads, creates /dev/lwprof, answers the ABI-version ioctl with
 * uapi/lwprof.h's numbers, rejects bad ioctls with the documented errors
 * (never an oops: tests/run checks the kernel log), and unloads cleanly.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lwprof.h"
#include "test.h"

static int load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

#define IOC_WRONG_SIZE	_IOWR(LWPROF_IOC_MAGIC, 0x00, __u64)
#define IOC_WRONG_DIR	_IOR(LWPROF_IOC_MAGIC, 0x00, struct lwprof_abi_version)
#define IOC_UNKNOWN_NR	_IOWR(LWPROF_IOC_MAGIC, 0x7f, struct lwprof_abi_version)
#define IOC_OTHER_TYPE	_IOWR('T', 0x00, struct lwprof_abi_version)

/*
 * ABI 1.5's microstate areas: the documented refusals, a read-only
 * mapping that reads zeros until a claim, and no claim for a thread no
 * session accounts.  Returns the area's mapping (unmapped by the caller:
 * it holds the module).
 */
static void *ustate_checks(int fd)
{
	size_t size = LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate);
	struct lwprof_ustate_claim c = { 0 };
	struct lwprof_ustate_open o = { 0 };
	const struct lwprof_ustate *us;
	int afd;
	void *p;

	o.reserved[2] = 1;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_OPEN, &o), EINVAL,
		"USTATE_OPEN: non-zero reserved field");
	o = (struct lwprof_ustate_open){ .flags = 1 };
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_OPEN, &o), EINVAL,
		"USTATE_OPEN: unknown flag");
	o.flags = 0;
	afd = ioctl(fd, LWPROF_IOC_USTATE_OPEN, &o);
	t_check(afd >= 0, "USTATE_OPEN returns a descriptor (%d)", afd);
	if (afd < 0)
		return NULL;
	t_check(fcntl(afd, F_GETFD) == FD_CLOEXEC, "the area's descriptor is close-on-exec");
	t_errno(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, afd, 0) ==
		MAP_FAILED ? -1 : 0, EACCES, "area: no writable mapping (a read-only file)");
	t_errno(mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED, afd, 0) ==
		MAP_FAILED ? -1 : 0, EPERM, "area: no executable mapping");
	t_errno(mmap(NULL, size, PROT_READ, MAP_PRIVATE, afd, 0) == MAP_FAILED ?
		-1 : 0, EINVAL, "area: no private mapping");
	t_errno(mmap(NULL, 4096, PROT_READ, MAP_SHARED, afd, 4096) == MAP_FAILED ?
		-1 : 0, EINVAL, "area: offset 0 only");
	t_errno(mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, afd, 0) ==
		MAP_FAILED ? -1 : 0, EINVAL, "area: no longer than its slots");
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, afd, 0);
	t_check(p != MAP_FAILED, "area: a read-only shared mapping");
	close(afd);
	if (p == MAP_FAILED)
		return NULL;
	us = p;
	t_check(us[0].seq == 0 && us[LWPROF_USTATE_SLOTS - 1].tid == 0,
		"area: slots read as zeros before any claim");
	t_errno(mprotect(p, size, PROT_READ | PROT_WRITE), EACCES,
		"area: mprotect cannot make it writable");
	c.area = (uintptr_t)p;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), ESRCH,
		"USTATE_CLAIM: not for a thread no session accounts");
	c.area = (uintptr_t)p + 4096;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), EINVAL,
		"USTATE_CLAIM: not inside the mapping");
	c.area = 0;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), EINVAL,
		"USTATE_CLAIM: address 0");
	c.area = 0xffffffff81000000ULL;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), EINVAL,
		"USTATE_CLAIM: a kernel address");
	c.area = (uintptr_t)&c;
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), EINVAL,
		"USTATE_CLAIM: a mapping that is no area");
	c = (struct lwprof_ustate_claim){ .area = (uintptr_t)p, .pad0 = 1 };
	t_errno(ioctl(fd, LWPROF_IOC_USTATE_CLAIM, &c), EINVAL,
		"USTATE_CLAIM: non-zero padding");
	return p;
}

/*
 * ABI 1.7: READ_USAGE's stopped and pad0 are zero going in (stopped is
 * out: 0 while no other session ended this one).
 */
static void usage_checks(void)
{
	struct lwprof_attach a = { .pid = getpid() };
	struct lwprof_thread_usage tu[4];
	struct lwprof_usage_read r;
	int fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &a)) {
		t_check(0, "a session on this process (%s)", strerror(errno));
		return;
	}
	memset(&r, 0, sizeof(r));
	r.buf = (uintptr_t)tu;
	r.count = 4;
	r.stopped = 1;
	t_errno(ioctl(fd, LWPROF_IOC_READ_USAGE, &r), EINVAL,
		"READ_USAGE: stopped set going in");
	r.stopped = 0;
	r.pad0 = 1;
	t_errno(ioctl(fd, LWPROF_IOC_READ_USAGE, &r), EINVAL,
		"READ_USAGE: non-zero pad0");
	r.pad0 = 0;
	t_check(!ioctl(fd, LWPROF_IOC_READ_USAGE, &r) && r.count >= 1 &&
		!r.stopped, "READ_USAGE: %u records, stopped %u", r.count,
		r.stopped);
	close(fd);
}

/*
 * The gaps this kernel must report, from what it says of itself: a
 * PREEMPT_RT kernel says so in its version (uname -v: "SMP PREEMPT_RT";
 * softirqs and device interrupts in threads, no allocation in probes);
 * threadirqs on the command line threads device interrupts.  Debian's
 * kernels have everything else lwprof looks up.
 */
static unsigned long long kernel_gaps(void)
{
	unsigned long long gaps = 0;
	char cmd[4096] = "";
	struct utsname u;
	FILE *f;

	if (uname(&u) == 0 && strstr(u.version, "PREEMPT_RT"))
		gaps |= LWPROF_GAP_SOFTIRQ_THREADS | LWPROF_GAP_IRQ_THREADS |
			LWPROF_GAP_ATOMIC_ALLOC;
	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(cmd, sizeof(cmd), f))
			cmd[0] = 0;
		fclose(f);
	}
	if (strstr(cmd, "threadirqs"))
		gaps |= LWPROF_GAP_IRQ_THREADS;
	return gaps;
}

int main(void)
{
	const char *ko = getenv("LWPROF_KO");
	struct lwprof_abi_version v;
	void *area;
	struct stat st;
	void *noaccess;
	int fd, ret;

	if (!ko)
		ko = "lwprof.ko";
	if (load_module(ko))
		t_fatal("load lwprof.ko");
	t_check(stat(LWPROF_DEVICE_PATH, &st) == 0 && S_ISCHR(st.st_mode),
		"%s is a character device", LWPROF_DEVICE_PATH);
	t_check((st.st_mode & 0777) == 0666, "device mode 0666 (got %o)",
		st.st_mode & 0777);

	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_fatal("open " LWPROF_DEVICE_PATH);

	memset(&v, 0xff, sizeof(v));
	v.flags = 0;
	v.pad0 = 0;
	v.gaps = 0;
	memset(v.reserved, 0, sizeof(v.reserved));
	ret = ioctl(fd, LWPROF_IOC_ABI_VERSION, &v);
	t_check(ret == 0, "ABI_VERSION succeeds (%s)", ret ? strerror(errno) : "0");
	t_check(v.major == LWPROF_ABI_MAJOR && v.minor == LWPROF_ABI_MINOR,
		"module ABI %u.%u == header %u.%u", v.major, v.minor,
		LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	t_check(memchr(v.module_version, 0, sizeof(v.module_version)) &&
		v.module_version[0], "module version string '%.32s'",
		v.module_version);

	t_check(v.gaps == kernel_gaps(), "gaps 0x%llx: this kernel's 0x%llx",
		(unsigned long long)v.gaps, (unsigned long long)kernel_gaps());

	memset(&v, 0, sizeof(v));
	v.reserved[2] = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, &v), EINVAL,
		"non-zero reserved field");
	memset(&v, 0, sizeof(v));
	v.gaps = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, &v), EINVAL,
		"non-zero gaps in (reserved before 1.6)");
	memset(&v, 0, sizeof(v));
	v.flags = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, &v), EINVAL, "unknown flag");
	memset(&v, 0, sizeof(v));
	v.pad0 = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, &v), EINVAL,
		"non-zero padding");

	t_errno(ioctl(fd, IOC_WRONG_SIZE, &v), EINVAL, "known command, bad size");
	t_errno(ioctl(fd, IOC_WRONG_DIR, &v), EINVAL,
		"known command, bad direction");
	t_errno(ioctl(fd, IOC_UNKNOWN_NR, &v), ENOTTY, "unknown command number");
	t_errno(ioctl(fd, IOC_OTHER_TYPE, &v), ENOTTY, "foreign ioctl type");
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, NULL), EFAULT, "NULL argument");
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, noaccess), EFAULT,
		"unreadable argument");

	area = ustate_checks(fd);
	usage_checks();

	/* A module in use must not unload. */
	t_errno(syscall(SYS_delete_module, "lwprof", O_NONBLOCK), EWOULDBLOCK,
		"unload refused while /dev/lwprof is open");
	close(fd);
	if (area) {
		t_errno(syscall(SYS_delete_module, "lwprof", O_NONBLOCK), EWOULDBLOCK,
			"unload refused while an area is mapped");
		munmap(area, LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate));
	}

	ret = syscall(SYS_delete_module, "lwprof", O_NONBLOCK);
	t_check(ret == 0, "unload after close (%s)", ret ? strerror(errno) : "0");
	t_check(stat(LWPROF_DEVICE_PATH, &st) < 0 && errno == ENOENT,
		"%s gone after unload", LWPROF_DEVICE_PATH);
	return t_done();
}
