/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module backend (docs/design/architecture.md): lwprof.ko through
 * /dev/lwprof (docs/design/abi.md).  Its record part is a sampling session with
 * the module's per-CPU rings mapped (record.c, ringsize.c); its usage part
 * a microstate session (usage.c).  Every function returns 0 or a negative
 * errno.
 */
#ifndef LWPROF_BACKEND_MODULE_H
#define LWPROF_BACKEND_MODULE_H

#include <stdbool.h>
#include <stddef.h>

#include "lwprof.h"
#include "userspace/backend/backend.h"

/* module.c; its parts: record.c, usage.c */
extern const struct backend_ops backend_module;
extern const struct rec_ops module_rec_ops;
extern const struct usage_ops module_usage_ops;

/* dev.c: /dev/lwprof (or $LWPROF_DEVICE); an fd or -errno. */
int lwprof_dev_open(void);

/* Ask the module its ABI; checks that the major version is ours. */
int lwprof_dev_abi(int fd, struct lwprof_abi_version *v);

/* A one-line explanation for an error from lwprof_dev_open(). */
const char *lwprof_dev_strerror(int err);

/* usage.c: microstate sessions */
/*
 * Open /dev/lwprof and check that the module does microstate accounting.
 * Returns the fd, or a negative errno (-EOPNOTSUPP: no LWPROF_FEAT_MSTATE);
 * lwprof_session_strerror() explains it.
 */
int lwprof_session_open(void);

/* ATTACH fd to process pid, or to the machine with LWPROF_ATTACH_MACHINE. */
int lwprof_session_attach(int fd, __u32 flags, int pid);

/* A one-line explanation of an error from open or attach. */
const char *lwprof_session_strerror(int err, __u32 flags, int pid,
				    char *buf, size_t len);

/*
 * Read the session's threads (all of them, growing the buffer as needed)
 * and merge them into set.
 */
int lwprof_usage_read(int fd, struct lwprof_usage_set *set);

/*
 * ringsize.c: LWPROF_IOC_RING_SETUP with pages per ring or, if the module
 * refuses that many to this user (EPERM) and !exact, the largest power of
 * two below that it accepts; rs->data_pages is the size set up.  On EPERM
 * msg says what the user may do (the size allowed, the capability).
 */
int collect_ring_setup(int devfd, __u32 pages, bool exact,
		       struct lwprof_ring_setup *rs, char *msg, size_t len);

#endif
