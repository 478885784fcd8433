// SPDX-License-Identifier: GPL-2.0
/*
 * MPI records (libexp/mpi.h): the functions' names and classes, and the
 * checks every reader makes of the records.
 */
#include "libexp/mpi.h"

const struct exp_mpi_func_info exp_mpi_funcs[EXP_MPI_F_MAX] = {
#define X(name, cls) [EXP_MPI_F_##name] = { "MPI_" #name, EXP_MPI_##cls },
#include "libexp/mpi_funcs.h"
#undef X
};

static int rank_ok(__s32 r)
{
	return r >= EXP_MPI_NONE;
}

const char *exp_mpi_check(const struct exp_rec_mpi *m, __u32 *known,
			  unsigned int *at)
{
	const __u32 part = offsetof(struct exp_rec_mpi, call);
	const char *why;
	__u32 k;

	*at = offsetof(struct exp_rec_mpi, func);
	if (!exp_mpi_func(m->func))
		return "unknown MPI function";
	*at = offsetof(struct exp_rec_mpi, pad0);
	if (m->pad0)
		return "MPI record padding not zero";
	*at = offsetof(struct exp_rec_mpi, rank);
	if (m->rank < 0)
		return "MPI record of a negative rank";
	*at = offsetof(struct exp_rec_mpi, root);
	if (!rank_ok(m->root) || !rank_ok(m->dst) || !rank_ok(m->src))
		return "MPI record's peer rank below -1";
	*at = offsetof(struct exp_rec_mpi, call);
	if (m->call.hdr.type != EXP_REC_TCALL || m->call.event != EXP_TR_MPI)
		return "MPI record without its call";
	*at = offsetof(struct exp_rec_mpi, call) + 4;
	if (m->call.hdr.size != m->hdr.size - part)
		return "MPI record's call size is not the rest of the record";
	if (m->call.hdr.flags & ~EXP_TCF_KNOWN)
		return "MPI record's call has unknown flags";
	why = exp_tcall_check(&m->call, m->call.hdr.size, &k, at);
	*at += part;
	if (why)
		return why;
	*known = part + k;
	return NULL;
}

const char *exp_mpi_req_check(const struct exp_rec_mpi_req *r, unsigned int *at)
{
	*at = offsetof(struct exp_rec_mpi_req, pid);
	if (!r->pid || !r->tid)
		return "MPI request record of pid or tid 0";
	*at = offsetof(struct exp_rec_mpi_req, req);
	if (!r->req)
		return "MPI request record of request 0";
	*at = offsetof(struct exp_rec_mpi_req, kind);
	if (!exp_mpi_func(r->kind))
		return "MPI request record of an unknown function";
	*at = offsetof(struct exp_rec_mpi_req, cancelled);
	if (r->cancelled > 1)
		return "MPI request record's cancelled flag not 0 or 1";
	*at = offsetof(struct exp_rec_mpi_req, peer);
	if (!rank_ok(r->peer))
		return "MPI request record's peer rank below -1";
	*at = offsetof(struct exp_rec_mpi_req, pad0);
	return r->pad0 ? "MPI request record padding not zero" : NULL;
}
