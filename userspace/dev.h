/* SPDX-License-Identifier: GPL-2.0 */
/* Talking to /dev/lwprof.  Every function returns 0 or a negative errno. */
#ifndef LWPROF_DEV_H
#define LWPROF_DEV_H

#include "lwprof.h"

/* Open /dev/lwprof (or $LWPROF_DEVICE); returns an fd or -errno. */
int lwprof_dev_open(void);

/* Ask the module its ABI; checks that the major version is ours. */
int lwprof_dev_abi(int fd, struct lwprof_abi_version *v);

/* A one-line explanation for an error from lwprof_dev_open(). */
const char *lwprof_dev_strerror(int err);

#endif
