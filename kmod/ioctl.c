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

static long lwprof_ioc_abi_version(struct file *file, void __user *uarg)
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

static long lwprof_ioc_attach(struct file *file, void __user *uarg)
{
	struct lwprof_attach a;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (!lwprof_zeroed(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	return lwprof_session_attach(file, a.flags, a.pid);
}

static long lwprof_ioc_read_usage(struct file *file, void __user *uarg)
{
	struct lwprof_usage_read r;
	long ret;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	if (r.flags || !lwprof_zeroed(r.reserved, sizeof(r.reserved)))
		return -EINVAL;
	ret = lwprof_session_read(file, &r);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &r, sizeof(r)))
		return -EFAULT;
	return 0;
}

struct lwprof_ioc {
	unsigned int cmd;
	long (*fn)(struct file *file, void __user *uarg);
};

static const struct lwprof_ioc lwprof_iocs[] = {
	{ LWPROF_IOC_ABI_VERSION, lwprof_ioc_abi_version },
	{ LWPROF_IOC_ATTACH, lwprof_ioc_attach },
	{ LWPROF_IOC_READ_USAGE, lwprof_ioc_read_usage },
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
		return lwprof_iocs[i].fn(file, (void __user *)arg);
	}
	return -ENOTTY;
}
