// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof.ko: per-thread Solaris microstate accounting and sampling for Linux.
 *
 * This file owns the module's life: the /dev/lwprof misc device, its file
 * operations and load/unload.  Everything a session does hangs off the
 * struct file of an open /dev/lwprof, so closing the fd (or the owner dying)
 * ends it; fops.owner pins the module while any fd is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>

#include "internal.h"

static int lwprof_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the miscdevice here; ours is the session. */
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

static int lwprof_release(struct inode *inode, struct file *file)
{
	lwprof_session_release(file);
	return 0;
}

static const struct file_operations lwprof_fops = {
	.owner		= THIS_MODULE,
	.open		= lwprof_open,
	.release	= lwprof_release,
	.unlocked_ioctl	= lwprof_ioctl,
	.mmap		= lwprof_smp_mmap,
	.poll		= lwprof_smp_poll,
	.compat_ioctl	= compat_ptr_ioctl,
};

/*
 * World-accessible like perf_event_open(2): each ioctl checks what the
 * caller may do (ptrace rights over a target, CAP_PERFMON for the machine).
 */
static struct miscdevice lwprof_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= LWPROF_DEVICE_NAME,
	.fops	= &lwprof_fops,
	.mode	= 0666,
};

static int __init lwprof_init(void)
{
	int ret;

	ret = lwprof_compat_init();
	if (ret)
		return ret;
	ret = lwprof_threads_init();
	if (ret)
		return ret;
	ret = lwprof_probes_init();
	if (ret)
		goto err_threads;
	ret = misc_register(&lwprof_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", LWPROF_DEVICE_NAME, ret);
		goto err_probes;
	}
	pr_info("ABI %u.%u, version %s\n", LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR,
		LWPROF_MODULE_VERSION);
	return 0;

err_probes:
	lwprof_probes_exit();
err_threads:
	lwprof_threads_exit();
	return ret;
}

/*
 * Every session is closed (each open file pins the module): the probes
 * are dormant; RCU frees may be pending.
 */
static void __exit lwprof_exit(void)
{
	misc_deregister(&lwprof_misc);
	lwprof_probes_exit();
	lwprof_threads_exit();
}

module_init(lwprof_init);
module_exit(lwprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The lwprof authors");
MODULE_DESCRIPTION("Per-thread microstate accounting and profiling");
MODULE_VERSION(LWPROF_MODULE_VERSION);
