/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel versions that lwprof cares about lives in
 * this one header.  The rest of kmod/ is written against the names below and
 * never tests LINUX_VERSION_CODE itself.
 *
 * Supported: 6.1 (Debian 12's linux-image-amd64) and later 6.x.
 */
#ifndef LWPROF_COMPAT_H
#define LWPROF_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "lwprof needs Linux 6.1 or later"
#endif

#endif /* LWPROF_COMPAT_H */
