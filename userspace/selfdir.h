/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files installed beside the lwprof program: the analyzer and the tracing
 * library in the same directory (the build tree) or ../libexec/lwprof/
 * (make install), the collector library in the same directory or ../lib/.
 */
#ifndef LWPROF_SELFDIR_H
#define LWPROF_SELFDIR_H

#include <stddef.h>

/*
 * The first of DIR/rel[i]/NAME (DIR: the directory of /proc/self/exe,
 * rel[i] "" or ending in '/') that access(mode) allows, into path; 0, or
 * -ENOENT with path set to the first candidate, or another -errno.
 */
int lwprof_selfdir_find(const char *name, const char *const *rel, size_t nrel,
			int mode, char *path, size_t len);

#endif
