// SPDX-License-Identifier: GPL-2.0
/*
 * The Fortran bindings (mpif.h and the mpi module: mpi_send_ ...) of the
 * calls MPI programs make most (lwmpi.h).  Open MPI's Fortran bindings
 * call its PMPI functions, which the C wrappers never see; MPICH's call
 * the C MPI functions, which mw_depth keeps from being recorded twice.
 * Each wrapper calls the implementation's own Fortran binding (pmpi_*_),
 * which converts the handles and sentinels (MPI_IN_PLACE, MPI_BOTTOM),
 * and takes the record's fields from the handles through MPI's f2c
 * functions.  A status the program ignores is asked for (the real
 * source).  The mpi_f08 module's bindings are not wrapped.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "lwmpi.h"

typedef MPI_Fint F;

/* MPI 4.0's name; Fortran's MPI_STATUS_SIZE is the C status's integers */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE	(sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

/* pmpi_NAME_, the implementation's Fortran binding, found at first use */
#define REAL_F(name, proto)						\
	static void (*real_##name) proto;				\
	if (!real_##name)						\
		real_##name = (void (*) proto)dlsym(RTLD_NEXT, "pmpi_" #name "_")

/* the real call, its registers and clock around it, as MW_CALL */
#define MW_CALL_F(c, expr)						\
	do {								\
		TR_REGS((c).regs);					\
		(c).t0 = mw_api->clock_start();				\
		mw_api->leave();					\
		expr;							\
		(c).t1 = mw_api->clock_end();				\
		mw_api->resume();					\
	} while (0)

static bool ignored(const F *st)
{
	return st == MPI_F_STATUS_IGNORE;
}

MW_API void mpi_init_(F *ierr)
{
	struct mw_call c;

	REAL_F(init, (F *));
	if (!MW_BEGIN(c, Init)) {
		real_init(ierr);
		return;
	}
	MW_CALL_F(c, real_init(ierr));
	if (*ierr == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
}

MW_API void mpi_init_thread_(F *required, F *provided, F *ierr)
{
	struct mw_call c;

	REAL_F(init_thread, (F *, F *, F *));
	if (!MW_BEGIN(c, Init_thread)) {
		real_init_thread(required, provided, ierr);
		return;
	}
	MW_CALL_F(c, real_init_thread(required, provided, ierr));
	if (*ierr == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
}

MW_API void mpi_finalize_(F *ierr)
{
	struct mw_call c;

	REAL_F(finalize, (F *));
	if (!MW_BEGIN(c, Finalize)) {
		real_finalize(ierr);
		return;
	}
	MW_CALL_F(c, real_finalize(ierr));
	mw_end(&c);
}

#define SEND_F(name, NAME)						\
MW_API void mpi_##name##_(void *buf, F *count, F *type, F *dest, F *tag, \
			  F *comm, F *ierr)				\
{									\
	struct mw_call c;						\
									\
	REAL_F(name, (void *, F *, F *, F *, F *, F *, F *));		\
	if (!MW_BEGIN(c, NAME)) {					\
		real_##name(buf, count, type, dest, tag, comm, ierr);	\
		return;							\
	}								\
	MW_CALL_F(c, real_##name(buf, count, type, dest, tag, comm, ierr)); \
	mw_send_part(&c, *count, MPI_Type_f2c(*type), *dest, *tag,	\
		     MPI_Comm_f2c(*comm));				\
	mw_end(&c);							\
}

SEND_F(send, Send)
SEND_F(ssend, Ssend)
SEND_F(bsend, Bsend)
SEND_F(rsend, Rsend)

MW_API void mpi_recv_(void *buf, F *count, F *type, F *source, F *tag,
		      F *comm, F *status, F *ierr)
{
	F own[MPI_F_STATUS_SIZE];
	struct mw_call c;
	MPI_Status st;

	REAL_F(recv, (void *, F *, F *, F *, F *, F *, F *, F *));
	if (!MW_BEGIN(c, Recv)) {
		real_recv(buf, count, type, source, tag, comm, status, ierr);
		return;
	}
	if (ignored(status))
		status = own;
	MW_CALL_F(c, real_recv(buf, count, type, source, tag, comm, status, ierr));
	if (*ierr == MPI_SUCCESS && MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *count, MPI_Type_f2c(*type),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}

MW_API void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag,
			  void *rbuf, F *rcount, F *rtype, F *source, F *rtag,
			  F *comm, F *status, F *ierr)
{
	F own[MPI_F_STATUS_SIZE];
	struct mw_call c;
	MPI_Status st;

	REAL_F(sendrecv, (void *, F *, F *, F *, F *, void *, F *, F *, F *,
			  F *, F *, F *, F *));
	if (!MW_BEGIN(c, Sendrecv)) {
		real_sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
			      rtype, source, rtag, comm, status, ierr);
		return;
	}
	if (ignored(status))
		status = own;
	MW_CALL_F(c, real_sendrecv(sbuf, scount, stype, dest, stag, rbuf,
				   rcount, rtype, source, rtag, comm, status, ierr));
	mw_send_part(&c, *scount, MPI_Type_f2c(*stype), *dest, *stag,
		     MPI_Comm_f2c(*comm));
	if (*ierr == MPI_SUCCESS && MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *rcount, MPI_Type_f2c(*rtype),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}

#define NB_F(name, NAME, recv)						\
MW_API void mpi_##name##_(void *buf, F *count, F *type, F *peer, F *tag, \
			  F *comm, F *req, F *ierr)			\
{									\
	struct mw_call c;						\
									\
	REAL_F(name, (void *, F *, F *, F *, F *, F *, F *, F *));	\
	if (!MW_BEGIN(c, NAME)) {					\
		real_##name(buf, count, type, peer, tag, comm, req, ierr); \
		return;							\
	}								\
	MW_CALL_F(c, real_##name(buf, count, type, peer, tag, comm, req, ierr)); \
	if (*ierr == MPI_SUCCESS)					\
		mw_made(&c, MPI_Request_f2c(*req), recv, false, *count,	\
			MPI_Type_f2c(*type), *peer, *tag, MPI_Comm_f2c(*comm)); \
	mw_end(&c);							\
}

NB_F(isend, Isend, false)
NB_F(issend, Issend, false)
NB_F(ibsend, Ibsend, false)
NB_F(irsend, Irsend, false)
NB_F(irecv, Irecv, true)

MW_API void mpi_wait_(F *req, F *status, F *ierr)
{
	F own[MPI_F_STATUS_SIZE];
	MPI_Request r = MPI_Request_f2c(*req);
	struct mw_call c;
	struct mw_req e;
	MPI_Status st;
	bool found;

	REAL_F(wait, (F *, F *, F *));
	if (!MW_BEGIN(c, Wait)) {
		real_wait(req, status, ierr);
		return;
	}
	found = mw_req_find(r, &e);
	if (ignored(status))
		status = own;
	MW_CALL_F(c, real_wait(req, status, ierr));
	if (*ierr == MPI_SUCCESS && found && (!e.persistent || e.active) &&
	    MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_complete(&c, r, &e, &st);
	mw_end(&c);
}

MW_API void mpi_waitall_(F *count, F *reqs, F *statuses, F *ierr)
{
	int n = *count > 0 ? *count : 0, i;
	struct mw_req *e = NULL;
	MPI_Request *r = NULL;
	struct mw_call c;
	F *own = NULL;
	MPI_Status st;

	REAL_F(waitall, (F *, F *, F *, F *));
	if (!MW_BEGIN(c, Waitall)) {
		real_waitall(count, reqs, statuses, ierr);
		return;
	}
	r = malloc(sizeof(*r) * (n + 1));
	e = malloc(sizeof(*e) * (n + 1));
	if (statuses == MPI_F_STATUSES_IGNORE)
		statuses = own = malloc(sizeof(F) * MPI_F_STATUS_SIZE * (n + 1));
	if (!r || !e || !statuses) {
		free(r);
		free(e);
		free(own);
		mw_depth--;	/* as mw_end, without a record */
		mw_api->leave();
		real_waitall(count, reqs, statuses ? statuses : MPI_F_STATUSES_IGNORE, ierr);
		return;
	}
	for (i = 0; i < n; i++) {
		r[i] = MPI_Request_f2c(reqs[i]);
		if (!mw_req_find(r[i], &e[i]))
			e[i].id = 0;
	}
	MW_CALL_F(c, real_waitall(count, reqs, statuses, ierr));
	for (i = 0; *ierr == MPI_SUCCESS && i < n; i++)
		if (e[i].id && (!e[i].persistent || e[i].active) &&
		    MPI_Status_f2c(statuses + i * MPI_F_STATUS_SIZE, &st) == MPI_SUCCESS)
			mw_complete(&c, r[i], &e[i], &st);
	mw_end(&c);
	free(r);
	free(e);
	free(own);
}

MW_API void mpi_barrier_(F *comm, F *ierr)
{
	struct mw_call c;

	REAL_F(barrier, (F *, F *));
	if (!MW_BEGIN(c, Barrier)) {
		real_barrier(comm, ierr);
		return;
	}
	MW_CALL_F(c, real_barrier(comm, ierr));
	c.m.comm = mw_comm_id(MPI_Comm_f2c(*comm));
	mw_end(&c);
}

/* A collective NAME(ARGS) whose communicator is COMM and root ROOT. */
#define COLL_F(name, NAME, proto, args, COMM, ROOT)			\
MW_API void mpi_##name##_ proto						\
{									\
	struct mw_call c;						\
									\
	REAL_F(name, proto);						\
	if (!MW_BEGIN(c, NAME)) {					\
		real_##name args;					\
		return;							\
	}								\
	MW_CALL_F(c, real_##name args);					\
	c.m.comm = mw_comm_id(MPI_Comm_f2c(*COMM));			\
	if (ROOT)							\
		c.m.root = mw_world(MPI_Comm_f2c(*COMM), *(F *)ROOT);	\
	mw_end(&c);							\
}

COLL_F(bcast, Bcast, (void *b, F *n, F *t, F *root, F *comm, F *ierr),
       (b, n, t, root, comm, ierr), comm, root)
COLL_F(reduce, Reduce, (void *s, void *r, F *n, F *t, F *op, F *root, F *comm,
			F *ierr), (s, r, n, t, op, root, comm, ierr), comm, root)
COLL_F(allreduce, Allreduce, (void *s, void *r, F *n, F *t, F *op, F *comm,
			      F *ierr), (s, r, n, t, op, comm, ierr), comm, NULL)
COLL_F(gather, Gather, (void *s, F *sn, F *st, void *r, F *rn, F *rt, F *root,
			F *comm, F *ierr), (s, sn, st, r, rn, rt, root, comm, ierr),
       comm, root)
COLL_F(scatter, Scatter, (void *s, F *sn, F *st, void *r, F *rn, F *rt,
			  F *root, F *comm, F *ierr),
       (s, sn, st, r, rn, rt, root, comm, ierr), comm, root)
COLL_F(allgather, Allgather, (void *s, F *sn, F *st, void *r, F *rn, F *rt,
			      F *comm, F *ierr), (s, sn, st, r, rn, rt, comm, ierr),
       comm, NULL)
COLL_F(alltoall, Alltoall, (void *s, F *sn, F *st, void *r, F *rn, F *rt,
			    F *comm, F *ierr), (s, sn, st, r, rn, rt, comm, ierr),
       comm, NULL)

/* MPI_Comm_rank and MPI_Comm_size: other events, often in loops */
#define COMM_Q(name, NAME)						\
MW_API void mpi_##name##_(F *comm, F *v, F *ierr)			\
{									\
	struct mw_call c;						\
									\
	REAL_F(name, (F *, F *, F *));					\
	if (!MW_BEGIN(c, NAME)) {					\
		real_##name(comm, v, ierr);				\
		return;							\
	}								\
	MW_CALL_F(c, real_##name(comm, v, ierr));			\
	c.m.comm = mw_comm_id(MPI_Comm_f2c(*comm));			\
	mw_end(&c);							\
}

COMM_Q(comm_rank, Comm_rank)
COMM_Q(comm_size, Comm_size)
