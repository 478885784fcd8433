// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch for /dev/lwprof.
 *
 * A command is identified by its number (_IOC_NR) within our type byte.  The
 * size and direction encoded in the command must match the ABI exactly:
 * unknown numbers get -ENOTTY, a known number with a wrong size or
 * direction -EINVAL.  The dispatcher copies the struct in whole, calls the
 * command on the kernel copy and, for commands that return data, copies it
 * back if the command succeeded (one that makes a descriptor or a slot
 * returns its number instead).  Any non-zero reserved field or unknown
 * flag is -EINVAL.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/errno.h>

#include "internal.h"

static bool lwprof_zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long lwprof_ioc_abi_version(struct file *file, void *arg)
{
	struct lwprof_abi_version *v = arg;

	if (v->flags || v->pad0 || v->gaps ||
	    !lwprof_zeroed(v->reserved, sizeof(v->reserved)))
		return -EINVAL;

	memset(v, 0, sizeof(*v));
	v->major = LWPROF_ABI_MAJOR;
	v->minor = LWPROF_ABI_MINOR;
	v->features = LWPROF_FEATURES;
	v->gaps = lwprof_kernel_gaps();
	strscpy(v->module_version, LWPROF_MODULE_VERSION,
		sizeof(v->module_version));
	return 0;
}

static long lwprof_ioc_attach(struct file *file, void *arg)
{
	struct lwprof_attach *a = arg;

	if (!lwprof_zeroed(a->reserved, sizeof(a->reserved)))
		return -EINVAL;
	return lwprof_session_attach(file, a->flags, a->pid);
}

static long lwprof_ioc_read_usage(struct file *file, void *arg)
{
	struct lwprof_usage_read *r = arg;

	if (r->flags || r->stopped || r->pad0 ||
	    !lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_session_read(file, r);
}

static long lwprof_ioc_ring_setup(struct file *file, void *arg)
{
	struct lwprof_ring_setup *r = arg;

	if (!lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_smp_ring_setup(file, r);
}

static long lwprof_ioc_sample_start(struct file *file, void *arg)
{
	struct lwprof_sample_start *r = arg;

	if (!lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_smp_start(file, r);
}

static long lwprof_ioc_sample_stop(struct file *file, void *arg)
{
	struct lwprof_sample_stop *r = arg;

	if (r->flags || r->pad0 || !lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_smp_stop(file, r);
}

static long lwprof_ioc_ustate_open(struct file *file, void *arg)
{
	struct lwprof_ustate_open *r = arg;

	if (r->pad0 || !lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_us_open(r);
}

static long lwprof_ioc_ustate_claim(struct file *file, void *arg)
{
	struct lwprof_ustate_claim *r = arg;

	if (r->pad0 || !lwprof_zeroed(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	return lwprof_us_claim(r);
}

struct lwprof_ioc {
	unsigned int cmd;
	long (*fn)(struct file *file, void *arg);
};

static const struct lwprof_ioc lwprof_iocs[] = {
	{ LWPROF_IOC_ABI_VERSION, lwprof_ioc_abi_version },
	{ LWPROF_IOC_ATTACH, lwprof_ioc_attach },
	{ LWPROF_IOC_READ_USAGE, lwprof_ioc_read_usage },
	{ LWPROF_IOC_RING_SETUP, lwprof_ioc_ring_setup },
	{ LWPROF_IOC_SAMPLE_START, lwprof_ioc_sample_start },
	{ LWPROF_IOC_SAMPLE_STOP, lwprof_ioc_sample_stop },
	{ LWPROF_IOC_USTATE_OPEN, lwprof_ioc_ustate_open },
	{ LWPROF_IOC_USTATE_CLAIM, lwprof_ioc_ustate_claim },
};

/* Copy the struct in, run the command, copy it back out if it returns data. */
static long lwprof_ioc_call(const struct lwprof_ioc *ioc, struct file *file,
			    void __user *uarg)
{
	size_t size = _IOC_SIZE(ioc->cmd);
	void *arg;
	long ret;

	arg = memdup_user(uarg, size);
	if (IS_ERR(arg))
		return PTR_ERR(arg);
	ret = ioc->fn(file, arg);
	if (!ret && (_IOC_DIR(ioc->cmd) & _IOC_READ) &&
	    copy_to_user(uarg, arg, size))
		ret = -EFAULT;
	kfree(arg);
	return ret;
}

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
		return lwprof_ioc_call(&lwprof_iocs[i], file,
				       (void __user *)arg);
	}
	return -ENOTTY;
}
