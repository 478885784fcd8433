// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing library's side of MPI tracing (trace/mpi.h): the MPI
 * library's records go into the calling thread's buffer like any traced
 * call's, an MPI record's call part written by tr_emit_after().
 */
#include <string.h>

#include "mpi.h"
#include "trace.h"

static bool mpi_enter(void)
{
	return tr_enter(TR_MPI);
}

static void mpi_leave(void)
{
	tr_leave();
}

static void mpi_resume(void)
{
	tr_in = 1;
}

static void mpi_emit(struct exp_rec_mpi *m, uint64_t t0, uint64_t t1,
		     uint64_t *regs)
{
	const size_t pre = offsetof(struct exp_rec_mpi, call);
	struct tr_ev ev = { .event = EXP_TR_MPI, .fd = -1, .start = t0,
			    .end = t1 };
	uint64_t ms[LWPROF_MS_COUNT];

	m->hdr.type = EXP_REC_MPI;
	m->hdr.flags = 0;
	m->pad0 = 0;
	ev.ms = tr_ms_delta(t0, t1, ms) ? ms : NULL;
	tr_emit_after(m, pre, &ev, regs);
}

static void mpi_emit_req(struct exp_rec_mpi_req *r)
{
	uint8_t *p = tr_reserve(sizeof(*r));

	if (!p)
		return;
	r->hdr.type = EXP_REC_MPI_REQ;
	r->hdr.flags = 0;
	r->hdr.size = sizeof(*r);
	r->pid = tr.pid;
	r->tid = tr_thread_tid();
	r->pad0 = 0;
	memcpy(p, r, sizeof(*r));
	tr_commit(sizeof(*r));
}

static const struct lwprof_mpi_api api = {
	.enter = mpi_enter,
	.leave = mpi_leave,
	.resume = mpi_resume,
	.clock_start = tr_clock_start,
	.clock_end = tr_clock_end,
	.emit = mpi_emit,
	.emit_req = mpi_emit_req,
	.flush = tr_flush_all,
};

TR_API const struct lwprof_mpi_api *lwprof_mpi_api(void)
{
	return tr_conf.kinds & TR_MPI ? &api : NULL;
}
