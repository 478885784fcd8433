// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof.ko loads, creates /dev/lwprof, answers the ABI-version ioctl with
 * uapi/lwprof.h's numbers, rejects bad ioctls with the documented errors
 * (never an oops: tests/run checks the kernel log), and unloads cleanly.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

int main(void)
{
	const char *ko = getenv("LWPROF_KO");
	struct lwprof_abi_version v;
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
	memset(v.reserved, 0, sizeof(v.reserved));
	ret = ioctl(fd, LWPROF_IOC_ABI_VERSION, &v);
	t_check(ret == 0, "ABI_VERSION succeeds (%s)", ret ? strerror(errno) : "0");
	t_check(v.major == LWPROF_ABI_MAJOR && v.minor == LWPROF_ABI_MINOR,
		"module ABI %u.%u == header %u.%u", v.major, v.minor,
		LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	t_check(memchr(v.module_version, 0, sizeof(v.module_version)) &&
		v.module_version[0], "module version string '%.32s'",
		v.module_version);

	memset(&v, 0, sizeof(v));
	v.reserved[3] = 1;
	t_errno(ioctl(fd, LWPROF_IOC_ABI_VERSION, &v), EINVAL,
		"non-zero reserved field");
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

	/* A module in use must not unload. */
	t_errno(syscall(SYS_delete_module, "lwprof", O_NONBLOCK), EWOULDBLOCK,
		"unload refused while /dev/lwprof is open");
	close(fd);

	ret = syscall(SYS_delete_module, "lwprof", O_NONBLOCK);
	t_check(ret == 0, "unload after close (%s)", ret ? strerror(errno) : "0");
	t_check(stat(LWPROF_DEVICE_PATH, &st) < 0 && errno == ENOENT,
		"%s gone after unload", LWPROF_DEVICE_PATH);
	return t_done();
}
