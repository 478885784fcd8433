/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which backend records: lwprof.ko (/dev/lwprof) or perf_event_open(2).
 * collect, ptime and top take --backend module|perf|auto; auto is the
 * module when /dev/lwprof answers with our ABI major, else perf.
 */
#ifndef LWPROF_BACKEND_H
#define LWPROF_BACKEND_H

#include <stddef.h>

enum lwprof_backend {
	LWPROF_BACKEND_AUTO,
	LWPROF_BACKEND_MODULE,
	LWPROF_BACKEND_PERF,
};

/* "module", "perf" or "auto" into *b; -EINVAL for anything else. */
int lwprof_backend_parse(const char *s, enum lwprof_backend *b);

/* The backend's name as --backend spells it. */
const char *lwprof_backend_name(enum lwprof_backend b);

/*
 * Resolve want: MODULE and PERF stay as they are; AUTO becomes MODULE when
 * /dev/lwprof opens and speaks our ABI major, else PERF, with the module's
 * reason (lwprof_dev_strerror()) in why (may be NULL) for the log.
 */
enum lwprof_backend lwprof_backend_resolve(enum lwprof_backend want,
					   char *why, size_t len);

#endif
