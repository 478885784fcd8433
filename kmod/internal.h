/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between the files of lwprof.ko. */
#ifndef LWPROF_INTERNAL_H
#define LWPROF_INTERNAL_H

#include <linux/fs.h>
#include "compat.h"
#include "lwprof.h"	/* uapi/lwprof.h: the ABI */

#define LWPROF_MODULE_VERSION	"0.1.0"

/* Bits of LWPROF_FEAT_* this build implements (none yet). */
#define LWPROF_FEATURES		0ULL

long lwprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* LWPROF_INTERNAL_H */
