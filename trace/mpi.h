/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracing library offers the MPI tracing library (mpi/), which
 * collect -M preloads after it: its buffers, clock, microstates and
 * stack copies, so that MPI calls are records of the same files on the
 * same clock as every other traced call.  The MPI library finds these
 * with dlsym at its start (none: it passes calls on untraced).
 *
 * For one call: lwprof_mpi_enter() (false: do not trace this one), then
 * the registers (TR_REGS in the wrapper), lwprof_mpi_clock_start(), the
 * real call, lwprof_mpi_clock_end(), and lwprof_mpi_emit() of the record
 * (its MPI fields; the library adds the call part), last
 * lwprof_mpi_leave().  Requests a wait completed go first, through
 * lwprof_mpi_emit_req().
 */
#ifndef LWPROF_TRACE_MPI_H
#define LWPROF_TRACE_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "libexp/mpi.h"

struct lwprof_mpi_api {
	bool (*enter)(void);
	void (*leave)(void);		/* around the real call, and after */
	void (*resume)(void);		/* after the real call: inside again */
	uint64_t (*clock_start)(void);
	uint64_t (*clock_end)(void);
	/* m's fields but hdr and call; regs as TR_REGS took them, or NULL */
	void (*emit)(struct exp_rec_mpi *m, uint64_t t0, uint64_t t1,
		     uint64_t *regs);
	void (*emit_req)(struct exp_rec_mpi_req *r);
	void (*flush)(void);		/* every thread's buffer out (MPI_Abort) */
};

/* The table, or NULL when MPI tracing is off. */
typedef const struct lwprof_mpi_api *lwprof_mpi_api_fn(void);
#define LWPROF_MPI_API	"lwprof_mpi_api"

#endif
