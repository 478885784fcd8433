/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line for the long reads and writes of experiments (print's
 * and export's reading and unwinding, collect's archiving), as perf
 * report and heaptrack_print show one: on standard error when it is a
 * terminal, redrawn in place at most ten times a second once a phase has
 * taken half a second, erased when the phase ends, so that it never mixes
 * with what a command writes; nothing at all when standard error is a
 * file or a pipe.  LWPROF_PROGRESS=0 turns it off; LWPROF_PROGRESS=now
 * draws it from a phase's start (for tests, which cannot wait on time).
 * The caller owns the struct: no state is global.
 */
#ifndef LWPROF_LIBEXP_PROGRESS_H
#define LWPROF_LIBEXP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct exp_progress {
	int fd;			/* where it draws */
	bool on;		/* a terminal, not turned off */
	bool now;		/* from a phase's start */
	bool drawn;		/* a line is on the terminal */
	const char *who;	/* "lwprof print" */
	char what[200];		/* "reading run.er" */
	uint64_t done, total;	/* in the phase's units (0 total: none known) */
	bool bytes;		/* set before a phase: done counts bytes, shown
				   in MiB when no total is known */
	uint64_t t0, next;	/* ns: the phase's start, the next redraw */
};

/* Set up for fd (2: standard error), lines of command who: on when fd is a terminal. */
void exp_progress_init(struct exp_progress *p, int fd, const char *who);
/* A phase begins: what it does, of how many units (bytes, samples). */
void exp_progress_phase(struct exp_progress *p, uint64_t total,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* n more units done; redraws when due. */
void exp_progress_add(struct exp_progress *p, uint64_t n);
/* The phase is over: its line erased (and bytes cleared). */
void exp_progress_end(struct exp_progress *p);

#endif
