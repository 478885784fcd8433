// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch for /dev/lwprof.
 *
 * A command is identified by its number (_IOC_NR) within our type byte.  The
 * size and direction encoded in the command must match the ABI exactly:
 * unknown numbers get -ENOTTY, a known number with a wrong size or
 * direction -EINVAL.  Input structs are copied in whole; any non-zero
 * reserved field or unknown flag is -EINVAL.
 */
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/errno.h>

#include "internal.h"

static bool lwprof_zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long lwprof_ioc_abi_version(void __user *uarg)
{
	struct lwprof_abi_version v;

	if (copy_from_user(&v, uarg, sizeof(v)))
		return -EFAULT;
	if (v.flags || v.pad0 || !lwprof_zeroed(v.reserved, sizeof(v.reserved)))
		return -EINVAL;

	memset(&v, 0, sizeof(v));
	v.major = LWPROF_ABI_MAJOR;
	v.minor = LWPROF_ABI_MINOR;
	v.features = LWPROF_FEATURES;
	strscpy(v.module_version, LWPROF_MODULE_VERSION,
		sizeof(v.module_version));

	if (copy_to_user(uarg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

struct lwprof_ioc {
	unsigned int cmd;
	long (*fn)(void __user *uarg);
};

static const struct lwprof_ioc lwprof_iocs[] = {
	{ LWPROF_IOC_ABI_VERSION, lwprof_ioc_abi_version },
};

long lwprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	size_t i;

	if (_IOC_TYPE(cmd) != LWPROF_IOC_MAGIC)
		return -ENOTTY;

	for (i = 0; i < ARRAY_SIZE(lwprof_iocs); i++) {
		if (_IOC_NR(lwprof_iocs[i].cmd) != _IOC_NR(cmd))
			continue;
		if (lwprof_iocs[i].cmd != cmd)
			return -EINVAL;	/* right command, wrong size/dir */
		return lwprof_iocs[i].fn((void __user *)arg);
	}
	return -ENOTTY;
}
