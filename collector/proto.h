/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The channel between lwprof collect and liblwprof_collector.so in the
 * target (docs/guide/commands.md, "The collector API"): collect makes a
 * datagram socket pair, leaves one end open in the command it runs and
 * names it in the environment:
 *
 *   LWPROF_COLLECTOR=FD:INODE          the socket's descriptor and inode
 *   LWPROF_COLLECTOR_SIGNALS=L,Y       -l's and -y's signals (0: none),
 *                                      for the preloaded library's handlers
 *
 * The library checks that FD is still that socket (a program may have
 * closed it and reused the number) and sends one struct lwprof_ctl_msg a
 * call, never waiting for collect: without collect, or once it is gone,
 * every call does nothing.  Both sides are built from this tree, so the
 * message has no version beyond its magic.
 */
#ifndef LWPROF_COLLECTOR_PROTO_H
#define LWPROF_COLLECTOR_PROTO_H

#include <stdint.h>

#define LWPROF_CTL_ENV		"LWPROF_COLLECTOR"
#define LWPROF_CTL_SIG_ENV	"LWPROF_COLLECTOR_SIGNALS"
#define LWPROF_CTL_MAGIC	0x4c57434cu	/* "LWCL" */
#define LWPROF_CTL_NAME		64		/* bytes of a name, NUL included */

enum lwprof_ctl_op {
	LWPROF_CTL_SAMPLE = 1,	/* collector_sample(name) */
	LWPROF_CTL_PAUSE,	/* collector_pause() */
	LWPROF_CTL_RESUME,	/* collector_resume() */
	LWPROF_CTL_TERMINATE,	/* collector_terminate_expt() */
	LWPROF_CTL_SIG_SAMPLE,	/* -l's signal reached the target */
	LWPROF_CTL_SIG_TOGGLE,	/* -y's signal reached the target */
};

struct lwprof_ctl_msg {
	uint32_t magic;		/* LWPROF_CTL_MAGIC */
	uint32_t op;		/* enum lwprof_ctl_op */
	uint64_t time_ns;	/* CLOCK_MONOTONIC, in the target */
	uint32_t pid, tid;	/* the caller */
	char name[LWPROF_CTL_NAME];	/* NUL-terminated, or empty */
};

#endif
