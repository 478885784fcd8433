/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lwprof user/kernel ABI: the ioctls of /dev/lwprof and the records the
 * module hands to user space.  Shared, unchanged, by kmod/ and the tools.
 *
 * Rules for everything in this header (docs/abi.md says why):
 *  - only fixed-width types (__u8 ... __u64), never int/long/pointers;
 *  - every struct is a multiple of 8 bytes and has no implicit padding:
 *    holes are named fields (pad*) that must be zero;
 *  - reserved fields must be zero on input; the module rejects non-zero
 *    ones with -EINVAL, so a later minor version can give them a meaning;
 *  - a command's size is part of its number (_IOWR encodes sizeof): a known
 *    command number with a different size or direction is -EINVAL, an
 *    unknown number is -ENOTTY;
 *  - the major version changes only when old binaries can no longer work;
 *    the minor version counts compatible additions.
 */
#ifndef _UAPI_LWPROF_H
#define _UAPI_LWPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define LWPROF_ABI_MAJOR	1
#define LWPROF_ABI_MINOR	0

#define LWPROF_DEVICE_NAME	"lwprof"
#define LWPROF_DEVICE_PATH	"/dev/lwprof"

/* The ioctl "type" byte; private to /dev/lwprof. */
#define LWPROF_IOC_MAGIC	0xB7

/*
 * LWPROF_IOC_ABI_VERSION: what ABI the loaded module speaks.
 *
 * In:  flags and reserved[] zero.
 * Out: major, minor, features (LWPROF_FEAT_* bits the module supports),
 *      module_version (NUL-terminated release string of the module).
 */
struct lwprof_abi_version {
	__u32 major;
	__u32 minor;
	__u64 features;
	__u32 flags;
	__u32 pad0;
	__u64 reserved[4];
	char module_version[32];
};

#define LWPROF_IOC_ABI_VERSION \
	_IOWR(LWPROF_IOC_MAGIC, 0x00, struct lwprof_abi_version)

#endif /* _UAPI_LWPROF_H */
