// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "userspace/backend/module/module.h"

int lwprof_dev_open(void)
{
	const char *path = getenv("LWPROF_DEVICE");
	int fd;

	fd = open(path && *path ? path : LWPROF_DEVICE_PATH,
		  O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int lwprof_dev_abi(int fd, struct lwprof_abi_version *v)
{
	memset(v, 0, sizeof(*v));
	if (ioctl(fd, LWPROF_IOC_ABI_VERSION, v) < 0)
		return -errno;
	if (v->major != LWPROF_ABI_MAJOR)
		return -EPROTO;
	return 0;
}

const char *lwprof_dev_strerror(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
		return LWPROF_DEVICE_PATH " is missing: load the module (modprobe lwprof)";
	case -EACCES:
	case -EPERM:
		return "permission denied opening " LWPROF_DEVICE_PATH;
	case -EPROTO:
		return "the loaded lwprof module speaks another ABI major version";
	case -EOPNOTSUPP:
		return "the loaded lwprof module has no microstate accounting (LWPROF_FEAT_MSTATE)";
	default:
		return strerror(-err);
	}
}
