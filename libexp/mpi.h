/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPI records (docs/design/experiment-format.md, docs/guide/mpi.md): what
 * the MPI tracing library (mpi/, preloaded by collect -M with the tracing
 * library) writes into a rank's trace.PID.rec files.  One record per MPI
 * call, its MPI fields then the call's traced-call record (type 20:
 * times, microstates, stack), and one record per request a wait or test
 * completed.  Types 40-47 are MPI's.
 */
#ifndef LWPROF_LIBEXP_MPI_H
#define LWPROF_LIBEXP_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "libexp/trace.h"

#define EXP_REC_MPI		40	/* struct exp_rec_mpi */
#define EXP_REC_MPI_REQ		41	/* struct exp_rec_mpi_req */

/* What a function does, for the metrics and the views. */
enum exp_mpi_class {
	EXP_MPI_OTHER, EXP_MPI_SEND, EXP_MPI_ISEND, EXP_MPI_RECV,
	EXP_MPI_IRECV, EXP_MPI_SENDRECV, EXP_MPI_PINIT, EXP_MPI_START,
	EXP_MPI_WAIT, EXP_MPI_PROBE, EXP_MPI_COLL, EXP_MPI_BARRIER,
	EXP_MPI_ICOLL,		/* a nonblocking collective: its request */
};

enum exp_mpi_func {
#define X(name, cls) EXP_MPI_F_##name,
#include "libexp/mpi_funcs.h"
#undef X
	EXP_MPI_F_MAX
};

struct exp_mpi_func_info {
	const char *name;	/* "MPI_Send" */
	enum exp_mpi_class cls;
};

extern const struct exp_mpi_func_info exp_mpi_funcs[EXP_MPI_F_MAX];

static inline const struct exp_mpi_func_info *exp_mpi_func(unsigned int f)
{
	return f < EXP_MPI_F_MAX ? &exp_mpi_funcs[f] : NULL;
}

#define EXP_MPI_NONE	(-1)	/* no peer, no root, no tag */

/*
 * One MPI call.  Ranks are world ranks (MPI_COMM_WORLD's numbers,
 * translated from the call's communicator); a receive's source and tag
 * are the message's (MPI_Status), so MPI_ANY_SOURCE names the sender.
 * Bytes received are the message's (MPI_Get_count times the type's
 * size), not the buffer's.  call is the traced call (type 20, event
 * EXP_TR_MPI): the call's entry and return on the clock of the other
 * trace records, its pid, tid and CPU, microstates and stack; the
 * record's size is this part's plus call's.
 */
struct exp_rec_mpi {
	struct lwprof_rec hdr;	/* EXP_REC_MPI, flags 0 */
	__u16 func;		/* enum exp_mpi_func */
	__u16 pad0;		/* zero */
	__s32 rank;		/* the caller's world rank */
	__u32 comm;		/* the communicator: a hash of its members' world ranks */
	__s32 root;		/* a rooted collective's root; else EXP_MPI_NONE */
	__s32 dst;		/* a send's destination; else EXP_MPI_NONE */
	__s32 stag;		/* its tag */
	__u64 sbytes;		/* bytes sent (started) */
	__s32 src;		/* a receive's source (completed here); else EXP_MPI_NONE */
	__s32 rtag;		/* its tag */
	__u64 rposted;		/* bytes the receive buffer takes (or a posted receive's) */
	__u64 rbytes;		/* bytes received (completed here) */
	__u64 req;		/* the request this call made (per process, from 1); 0: none */
	__u32 nsend;		/* point-to-point sends started */
	__u32 nrecv;		/* point-to-point receives completed */
	struct exp_rec_tcall call;
};

_Static_assert(offsetof(struct exp_rec_mpi, call) == 80, "layout");

/*
 * A request that the MPI call after it (of the same thread) completed:
 * written before the call's record.  kind: the call that made it
 * (enum exp_mpi_func: MPI_Irecv, MPI_Isend...).
 */
struct exp_rec_mpi_req {
	struct lwprof_rec hdr;	/* EXP_REC_MPI_REQ, flags 0 */
	__u32 pid, tid;
	__u64 req;		/* exp_rec_mpi.req of the call that made it */
	__u16 kind;		/* its function */
	__u16 cancelled;	/* 1: cancelled, no message */
	__s32 peer;		/* a receive's source, a send's destination */
	__s32 tag;
	__u32 pad0;		/* zero */
	__u64 bytes;		/* bytes received or sent */
};

_Static_assert(sizeof(struct exp_rec_mpi_req) == 48, "layout");

/*
 * Checks of a record whose size the reader knows covers its fixed part:
 * NULL, or what is wrong and *at the offset of the field at fault.
 * exp_mpi_check() checks the embedded call too (*known: the bytes this
 * format knows of it).
 */
const char *exp_mpi_check(const struct exp_rec_mpi *m, __u32 *known,
			  unsigned int *at);
const char *exp_mpi_req_check(const struct exp_rec_mpi_req *r, unsigned int *at);

#endif
