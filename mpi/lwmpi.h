/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liblwprof_mpi_FLAVOUR.so, the MPI tracing library collect -M preloads
 * after the tracing library (docs/guide/mpi.md): PMPI wrappers of the MPI
 * functions libexp/mpi_funcs.h lists, built once per MPI implementation
 * (their handles differ).  core.c: the tracing library's entry points,
 * the calls' records, communicators' world ranks, the request table;
 * p2p.c: point-to-point calls, waits and tests; life.c: MPI_Init,
 * MPI_Comm_free, MPI_Abort; gen.awk writes the other
 * functions' wrappers from the implementation's mpi.h; fortran.c: the
 * Fortran bindings of the calls programs make most.
 *
 * A wrapper: MW_BEGIN (false: pass the call on), fill the record's MPI
 * fields, MW_CALL around the real PMPI call (the registers and the clock
 * then), more fields from what it returned, mw_end().  mw_depth keeps a
 * wrapper out of the calls another one makes (Fortran bindings that call
 * the C ones, PMPI calls that re-enter).
 */
#ifndef LWPROF_MPI_LWMPI_H
#define LWPROF_MPI_LWMPI_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "libexp/mpi.h"
#include "trace/mpi.h"
#include "trace/trace.h"

#define MW_API	__attribute__((visibility("default")))

extern const struct lwprof_mpi_api *mw_api;
extern __thread int mw_depth TR_TLS;

struct mw_call {
	uint64_t regs[EXP_TR_NR_REGS];
	uint64_t t0, t1;
	struct exp_rec_mpi m;
};

/* May this call be traced?  Then c is set up for func. */
bool mw_begin(struct mw_call *c, unsigned int func);
/* Its record (the fields set), and out of the library. */
void mw_end(struct mw_call *c);

#define MW_BEGIN(c, name) mw_begin(&(c), EXP_MPI_F_##name)

/* The real call: registers here, the clock on each side of it. */
#define MW_CALL(c, ret, expr)						\
	do {								\
		TR_REGS((c).regs);					\
		(c).t0 = mw_api->clock_start();				\
		mw_api->leave();					\
		ret = expr;						\
		(c).t1 = mw_api->clock_end();				\
		mw_api->resume();					\
	} while (0)

/*
 * Fortran bindings (fortran.c, and gen.awk's): F is Fortran's INTEGER,
 * every argument is passed by reference.  MW_REAL_F: the
 * implementation's binding SYMBOL (pmpi_send_, pmpi_send_f08_) into the
 * static pointer real of type proto, found at first use.  MW_CALL_F:
 * the real call, its registers and clock around it, as MW_CALL.
 */
typedef MPI_Fint F;

#define MW_REAL_F(symbol, proto)					\
	static void (*real) proto;					\
	if (!real)							\
		real = (void (*) proto)dlsym(RTLD_NEXT, symbol)

/*
 * The same of an mpi_f08 binding NAME: Open MPI's PMPI one
 * (pmpi_NAME_f08_), else the next mpi_NAME_f08_: MPICH's, which has no
 * PMPI layer, calls the PMPI functions and is the C half of its mpi_f08
 * procedure (*pmpi: which it is).
 */
void *mw_f08_real(const char *pmpi, const char *mpi, int *is_pmpi);

#define MW_REAL_F08(name, proto, is_pmpi)				\
	static void (*real) proto;					\
	if (!real)							\
		real = (void (*) proto)mw_f08_real("pmpi_" name "_f08_", \
						   "mpi_" name "_f08_", is_pmpi)

/*
 * A Fortran status or statuses argument that is MPI_STATUS(ES)_IGNORE:
 * mpif.h's and Open MPI's mpi_f08's (MPI_F_STATUS(ES)_IGNORE), or
 * MPICH's mpi_f08's (objects of its own).
 */
bool mw_f_ignored(const F *st, bool statuses);

#define MW_CALL_F(c, expr)						\
	do {								\
		TR_REGS((c).regs);					\
		(c).t0 = mw_api->clock_start();				\
		mw_api->leave();					\
		expr;							\
		(c).t1 = mw_api->clock_end();				\
		mw_api->resume();					\
	} while (0)

/*
 * After MPI_Init: the caller's world rank, for its records; and the
 * flusher, a thread that writes the buffers out every 100 ms.
 */
void mw_set_rank(void);

/* World ranks: of rank r of comm (its remote group's if an intercomm). */
int mw_world(MPI_Comm comm, int r);
/* The communicator's number in records (a hash of its world ranks). */
uint32_t mw_comm_id(MPI_Comm comm);
void mw_comm_forget(MPI_Comm comm);
/* count elements of type, in bytes */
uint64_t mw_bytes(int count, MPI_Datatype type);
/* bytes a status says were received (0: none, cancelled) */
uint64_t mw_status_bytes(const MPI_Status *st);

/*
 * A point-to-point call's fields: a send's (its peer, tag, bytes) and a
 * blocking receive's, from its status (none for MPI_PROC_NULL).
 */
void mw_send_part(struct mw_call *c, int count, MPI_Datatype type, int dest,
		  int tag, MPI_Comm comm);
void mw_recv_part(struct mw_call *c, int count, MPI_Datatype type,
		  MPI_Comm comm, const MPI_Status *st, int source);

/* The request table: what nonblocking calls and persistent inits made. */
struct mw_req {
	uint64_t id;
	uint16_t func;		/* that made it */
	bool recv, persistent, active;
	MPI_Comm comm;
	int peer;		/* world rank: destination, or posted source */
	int tag;
	uint64_t bytes;		/* a send's; a receive's posted */
};

/* A new request made by func; fills *e (id set); false: table full. */
bool mw_req_add(MPI_Request r, const struct mw_req *e, uint64_t *id);
/* The entry of r (copied to *e), or false. */
bool mw_req_find(MPI_Request r, struct mw_req *e);
void mw_req_del(MPI_Request r);
void mw_req_set_active(MPI_Request r, bool active);

/*
 * mw_made(): request r, just made by c's call (a nonblocking call, a
 * persistent init: recv, persistent); mw_complete(): request r (its
 * entry e, as found before) completed with status st in the call c, its
 * record written and its entry gone (a persistent one inactive).
 */
void mw_made(struct mw_call *c, MPI_Request r, bool recv, bool persistent,
	     int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm);
void mw_complete(struct mw_call *c, MPI_Request r, const struct mw_req *e,
		 const MPI_Status *st);
/* A probe's fields: the message's source and tag, from status st. */
void mw_probed(struct mw_call *c, MPI_Comm comm, const MPI_Status *st);

/* MPI_Abort's record, before it runs, and every buffer written out. */
void mw_abort(MPI_Comm comm);

/* Persistent request r started by c's call (a send: one message). */
void mw_started(struct mw_call *c, MPI_Request r);
/*
 * Request r of a nonblocking collective on comm, just made by c's call:
 * no peer, no bytes; the wait or test that completes it says when.
 */
void mw_coll_made(struct mw_call *c, MPI_Request r, MPI_Comm comm);

/*
 * Request r (its entry e, as found before the wait) completed with
 * status st in the call c: its record, and c's receive fields.
 */
void mw_req_done(struct mw_call *c, const struct mw_req *e,
		 const MPI_Status *st);

#endif
