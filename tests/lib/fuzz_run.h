/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bookkeeping of tests/guest/fuzz_ioctl.c: a run's shared counters (an
 * errno histogram per operation, in memory every process of the run
 * shares, so a worker killed with SIGKILL loses none), a worker process
 * and its threads, and the check of one call's result.
 */
#ifndef LWPROF_FUZZ_RUN_H
#define LWPROF_FUZZ_RUN_H

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_ioc.h"

#define NSLOT	4	/* open files per worker */
#define NMAP	16	/* live mappings per worker */
#define NERR	134	/* errno histogram: 0 = success */

enum op {
	OP_IOCTL, OP_BADSIZE, OP_FOREIGN, OP_MMAP, OP_MUNMAP, OP_MREMAP,
	OP_MPROTECT, OP_TOUCH, OP_CLOSE, OP_OPEN, OP_DUP, OP_POLL, OP_RW,
	OP_FORK, OP_USTATE, NOPS
};

static const char *const op_names[NOPS] = {
	"ioctl", "ioctl-badsize", "ioctl-foreign", "mmap", "munmap", "mremap",
	"mprotect", "touch", "close", "open", "dup", "poll", "read/write",
	"fork", "ustate",
};

/* Shared by all processes of a run (MAP_SHARED): survives a SIGKILL. */
struct stats {
	atomic_uint_least64_t hist[NOPS + FZ_NCMDS][NERR];
	atomic_uint_least64_t ns[NOPS + FZ_NCMDS];	/* time in the calls */
	atomic_uint_least64_t calls, ioctls;
	atomic_int failures;
	atomic_uint_least64_t mmap_size;	/* last RING_SETUP's, a hint */
};

struct map {
	unsigned char *p;
	size_t len;
	int prot;
	int ctl;		/* starts with the control page */
	int area;		/* a microstate area's (read-only) */
};

/* One worker process; its threads share it. */
struct worker {
	struct stats *st;
	uint64_t seed;
	unsigned int round, ops;
	int child;		/* a forked child: no mappings of its own */
	atomic_int fds[NSLOT];
	pthread_mutex_t lock;	/* maps[] */
	struct map maps[NMAP];
	struct fz_pids pids;
};

struct thread {
	struct worker *w;
	uint64_t rng;
	unsigned int id;
	struct fz_bufs b;
};

/* stdio-free report: safe in a child forked from a threaded process. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, n < (int)sizeof(line) ? n : (int)sizeof(line) - 1) < 0)
		return;
}

/*
 * Count one call, made just before (errno is its): a failure with an errno
 * not in errs is a finding.  The call may be an argument: result() reads
 * errno itself, once the call has returned.
 */
static void result(struct thread *t, int op, long ret, fz_errset errs,
		   const char *what)
{
	struct stats *st = t->w->st;
	int e = ret < 0 ? errno : 0;

	atomic_fetch_add(&st->calls, 1);
	atomic_fetch_add(&st->hist[op][e < NERR ? e : NERR - 1], 1);
	if (ret >= 0 || (e < 128 && (errs & FZ_E(e))) || e == EBADF)
		return;
	atomic_fetch_add(&st->failures, 1);
	say("FAIL: seed %" PRIu64 " round %u thread %u%s: %s: %s -> %s\n",
	    t->w->seed, t->w->round, t->id, t->w->child ? " (child)" : "",
	    op_names[op < NOPS ? op : OP_IOCTL], what, strerror(e));
}

/* A random slot's file; the next open one if that one is closed. */
static int slot_fd(struct thread *t)
{
	unsigned int i = fz_below(&t->rng, NSLOT), n;
	int fd = -1;

	for (n = 0; n < NSLOT && fd < 0; n++)
		fd = atomic_load(&t->w->fds[(i + n) % NSLOT]);
	return fd;
}

#endif
