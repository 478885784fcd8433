// SPDX-License-Identifier: GPL-2.0
/*
 * The Fortran bindings (lwmpi.h) of the point-to-point calls and of the
 * calls MPI programs make most; gen.awk writes those of the others.
 * Open MPI's Fortran bindings call its PMPI functions, which the C
 * wrappers never see; MPICH's (mpif.h, the mpi module and the mpi_f08
 * module's) call the C MPI functions, which mw_depth keeps from being
 * recorded twice.  Each wrapper calls the implementation's own Fortran
 * binding, which converts the handles and sentinels (MPI_IN_PLACE,
 * MPI_BOTTOM), and takes the record's fields from the handles through
 * MPI's f2c functions.  A status the program ignores is asked for (the
 * real source).
 *
 * Each binding has two entry points: mpi_NAME_ (mpif.h and the mpi
 * module), calling pmpi_NAME_, and mpi_NAME_f08_, the mpi_f08 module's,
 * calling Open MPI's pmpi_NAME_f08_ or MPICH's own mpi_NAME_f08_ (MPICH
 * has no PMPI layer there: its bindings of the calls without a choice
 * buffer call the PMPI functions; those with one, mpi_send_f08ts_ ...,
 * call the C functions, whose wrappers see them).  An mpi_f08 binding
 * takes the same arguments by reference, the derived types' handles
 * (TYPE(MPI_Comm) ...) and TYPE(MPI_Status) laid out as the INTEGERs of
 * mpif.h, and its ierror is optional (NULL when the program leaves it
 * out).
 */
#include <stdlib.h>

#include "lwmpi.h"

#define UNPAREN(...)	__VA_ARGS__
#define PARAMS(p)	UNPAREN p	/* P_NAME's parameters, unbracketed */

/*
 * The entry points of binding NAME, whose parameters are P_NAME (ending
 * in F *ierr) and names ARGS: each finds its real binding and calls
 * w_NAME(real, ARGS).
 */
#define ENTRIES(name, args)						\
MW_API void mpi_##name##_ P_##name					\
{									\
	MW_REAL_F("pmpi_" #name "_", P_##name);				\
	w_##name(real, UNPAREN args);					\
}									\
MW_API void mpi_##name##_f08_ P_##name					\
{									\
	F own;								\
									\
	MW_REAL_F08(#name, P_##name);					\
	if (!ierr)							\
		ierr = &own;						\
	w_##name(real, UNPAREN args);					\
}

/* MPI 4.0's name; Fortran's MPI_STATUS_SIZE is the C status's integers */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE	(sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

static bool ignored(const F *st)
{
	return mw_f_ignored(st, false);
}

/* MPI_Init, MPI_Init_thread: the caller's rank once it has one */
#define P_init		(F *ierr)
#define P_init_thread	(F *required, F *provided, F *ierr)

static void w_init(void (*real) P_init, PARAMS(P_init))
{
	struct mw_call c;

	if (!MW_BEGIN(c, Init)) {
		real(ierr);
		return;
	}
	MW_CALL_F(c, real(ierr));
	if (*ierr == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
}
ENTRIES(init, (ierr))

static void w_init_thread(void (*real) P_init_thread, PARAMS(P_init_thread))
{
	struct mw_call c;

	if (!MW_BEGIN(c, Init_thread)) {
		real(required, provided, ierr);
		return;
	}
	MW_CALL_F(c, real(required, provided, ierr));
	if (*ierr == MPI_SUCCESS)
		mw_set_rank();
	mw_end(&c);
}
ENTRIES(init_thread, (required, provided, ierr))

/* the sends: NAME(buf, count, type, dest, tag, comm) */
#define SEND_F(name, NAME)						\
static void w_##name(void (*real) P_##name, PARAMS(P_##name))		\
{									\
	struct mw_call c;						\
									\
	if (!MW_BEGIN(c, NAME)) {					\
		real(buf, count, type, dest, tag, comm, ierr);		\
		return;							\
	}								\
	MW_CALL_F(c, real(buf, count, type, dest, tag, comm, ierr));	\
	mw_send_part(&c, *count, MPI_Type_f2c(*type), *dest, *tag,	\
		     MPI_Comm_f2c(*comm));				\
	mw_end(&c);							\
}									\
ENTRIES(name, (buf, count, type, dest, tag, comm, ierr))

#define P_SEND	(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
#define P_send	P_SEND
#define P_ssend	P_SEND
#define P_bsend	P_SEND
#define P_rsend	P_SEND
SEND_F(send, Send)
SEND_F(ssend, Ssend)
SEND_F(bsend, Bsend)
SEND_F(rsend, Rsend)

#define P_recv	(void *buf, F *count, F *type, F *source, F *tag, F *comm, \
		 F *status, F *ierr)

static void w_recv(void (*real) P_recv, PARAMS(P_recv))
{
	F own[MPI_F_STATUS_SIZE];
	struct mw_call c;
	MPI_Status st;

	if (!MW_BEGIN(c, Recv)) {
		real(buf, count, type, source, tag, comm, status, ierr);
		return;
	}
	if (ignored(status))
		status = own;
	MW_CALL_F(c, real(buf, count, type, source, tag, comm, status, ierr));
	if (*ierr == MPI_SUCCESS && MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *count, MPI_Type_f2c(*type),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}
ENTRIES(recv, (buf, count, type, source, tag, comm, status, ierr))

#define P_sendrecv	(void *sbuf, F *scount, F *stype, F *dest, F *stag, \
			 void *rbuf, F *rcount, F *rtype, F *source, F *rtag, \
			 F *comm, F *status, F *ierr)

static void w_sendrecv(void (*real) P_sendrecv, PARAMS(P_sendrecv))
{
	F own[MPI_F_STATUS_SIZE];
	struct mw_call c;
	MPI_Status st;

	if (!MW_BEGIN(c, Sendrecv)) {
		real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
		     source, rtag, comm, status, ierr);
		return;
	}
	if (ignored(status))
		status = own;
	MW_CALL_F(c, real(sbuf, scount, stype, dest, stag, rbuf, rcount,
			  rtype, source, rtag, comm, status, ierr));
	mw_send_part(&c, *scount, MPI_Type_f2c(*stype), *dest, *stag,
		     MPI_Comm_f2c(*comm));
	if (*ierr == MPI_SUCCESS && MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *rcount, MPI_Type_f2c(*rtype),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}
ENTRIES(sendrecv, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
		   source, rtag, comm, status, ierr))

/* the nonblocking point-to-point calls and persistent inits */
#define NB_F(name, NAME, recv, persist)					\
static void w_##name(void (*real) P_##name, PARAMS(P_##name))		\
{									\
	struct mw_call c;						\
									\
	if (!MW_BEGIN(c, NAME)) {					\
		real(buf, count, type, peer, tag, comm, req, ierr);	\
		return;							\
	}								\
	MW_CALL_F(c, real(buf, count, type, peer, tag, comm, req, ierr)); \
	if (*ierr == MPI_SUCCESS)					\
		mw_made(&c, MPI_Request_f2c(*req), recv, persist, *count, \
			MPI_Type_f2c(*type), *peer, *tag, MPI_Comm_f2c(*comm)); \
	mw_end(&c);							\
}									\
ENTRIES(name, (buf, count, type, peer, tag, comm, req, ierr))

#define P_NB	(void *buf, F *count, F *type, F *peer, F *tag, F *comm, \
		 F *req, F *ierr)
#define P_isend		P_NB
#define P_issend	P_NB
#define P_ibsend	P_NB
#define P_irsend	P_NB
#define P_irecv		P_NB
#define P_send_init	P_NB
#define P_recv_init	P_NB
NB_F(isend, Isend, false, false)
NB_F(issend, Issend, false, false)
NB_F(ibsend, Ibsend, false, false)
NB_F(irsend, Irsend, false, false)
NB_F(irecv, Irecv, true, false)
NB_F(send_init, Send_init, false, true)
NB_F(recv_init, Recv_init, true, true)

/* a persistent request started: its sends counted, as the C MPI_Start's */
#define P_start	(F *req, F *ierr)

static void w_start(void (*real) P_start, PARAMS(P_start))
{
	MPI_Request r = MPI_Request_f2c(*req);
	struct mw_call c;

	if (!MW_BEGIN(c, Start)) {
		real(req, ierr);
		return;
	}
	MW_CALL_F(c, real(req, ierr));
	if (*ierr == MPI_SUCCESS)
		mw_started(&c, r);
	mw_end(&c);
}
ENTRIES(start, (req, ierr))

#define P_request_free	(F *req, F *ierr)

static void w_request_free(void (*real) P_request_free, PARAMS(P_request_free))
{
	MPI_Request r = MPI_Request_f2c(*req);
	struct mw_call c;

	if (!MW_BEGIN(c, Request_free)) {
		real(req, ierr);
		return;
	}
	MW_CALL_F(c, real(req, ierr));
	if (*ierr == MPI_SUCCESS)
		mw_req_del(r);
	mw_end(&c);
}
ENTRIES(request_free, (req, ierr))

/* MPI_Wait and MPI_Test: the request's record if it completed */
#define P_wait	(F *req, F *status, F *ierr)
#define P_test	(F *req, F *flag, F *status, F *ierr)

static void wait_test(void (*wait) P_wait, void (*test) P_test,
		      unsigned int func, F *req, F *flag, F *status, F *ierr)
{
	F own[MPI_F_STATUS_SIZE];
	MPI_Request r = MPI_Request_f2c(*req);
	struct mw_call c;
	struct mw_req e;
	MPI_Status st;
	bool found;

	if (!mw_begin(&c, func)) {
		wait ? wait(req, status, ierr) : test(req, flag, status, ierr);
		return;
	}
	found = mw_req_find(r, &e);
	if (ignored(status))
		status = own;
	MW_CALL_F(c, wait ? wait(req, status, ierr) : test(req, flag, status, ierr));
	if (*ierr == MPI_SUCCESS && (wait || *flag) && found &&
	    (!e.persistent || e.active) &&
	    MPI_Status_f2c(status, &st) == MPI_SUCCESS)
		mw_complete(&c, r, &e, &st);
	mw_end(&c);
}

static void w_wait(void (*real) P_wait, PARAMS(P_wait))
{
	wait_test(real, NULL, EXP_MPI_F_Wait, req, NULL, status, ierr);
}
ENTRIES(wait, (req, status, ierr))

static void w_test(void (*real) P_test, PARAMS(P_test))
{
	wait_test(NULL, real, EXP_MPI_F_Test, req, flag, status, ierr);
}
ENTRIES(test, (req, flag, status, ierr))

/*
 * MPI_Waitall, MPI_Testall, MPI_Startall: the requests' entries before
 * the call, then (all: when they completed) each one's record, or
 * (start) each one started.
 */
#define P_waitall	(F *count, F *reqs, F *statuses, F *ierr)
#define P_testall	(F *count, F *reqs, F *flag, F *statuses, F *ierr)
#define P_startall	(F *count, F *reqs, F *ierr)

static void all(void (*waitall) P_waitall, void (*testall) P_testall,
		void (*startall) P_startall, unsigned int func, F *count,
		F *reqs, F *flag, F *statuses, F *ierr)
{
	int n = *count > 0 ? *count : 0, i;
	struct mw_req *e = NULL;
	MPI_Request *r = NULL;
	struct mw_call c;
	F *own = NULL;
	MPI_Status st;

#define ALL_CALL							\
	(waitall ? waitall(count, reqs, statuses, ierr) :		\
	 testall ? testall(count, reqs, flag, statuses, ierr) :		\
	 startall(count, reqs, ierr))

	if (!mw_begin(&c, func)) {
		ALL_CALL;
		return;
	}
	r = malloc(sizeof(*r) * (n + 1));
	e = malloc(sizeof(*e) * (n + 1));
	if (!startall && mw_f_ignored(statuses, true))
		statuses = own = malloc(sizeof(F) * MPI_F_STATUS_SIZE * (n + 1));
	if (!r || !e || (!startall && !statuses)) {
		free(r);
		free(e);
		free(own);
		mw_depth--;	/* as mw_end, without a record */
		mw_api->leave();
		if (!statuses)
			statuses = MPI_F_STATUSES_IGNORE;
		ALL_CALL;
		return;
	}
	for (i = 0; i < n; i++) {
		r[i] = MPI_Request_f2c(reqs[i]);
		if (!mw_req_find(r[i], &e[i]))
			e[i].id = 0;
	}
	MW_CALL_F(c, ALL_CALL);
#undef ALL_CALL
	for (i = 0; *ierr == MPI_SUCCESS && startall && i < n; i++)
		mw_started(&c, r[i]);
	for (i = 0; *ierr == MPI_SUCCESS && !startall && (!testall || *flag) &&
	     i < n; i++)
		if (e[i].id && (!e[i].persistent || e[i].active) &&
		    MPI_Status_f2c(statuses + i * MPI_F_STATUS_SIZE, &st) == MPI_SUCCESS)
			mw_complete(&c, r[i], &e[i], &st);
	mw_end(&c);
	free(r);
	free(e);
	free(own);
}

static void w_waitall(void (*real) P_waitall, PARAMS(P_waitall))
{
	all(real, NULL, NULL, EXP_MPI_F_Waitall, count, reqs, NULL, statuses, ierr);
}
ENTRIES(waitall, (count, reqs, statuses, ierr))

static void w_testall(void (*real) P_testall, PARAMS(P_testall))
{
	all(NULL, real, NULL, EXP_MPI_F_Testall, count, reqs, flag, statuses, ierr);
}
ENTRIES(testall, (count, reqs, flag, statuses, ierr))

static void w_startall(void (*real) P_startall, PARAMS(P_startall))
{
	all(NULL, NULL, real, EXP_MPI_F_Startall, count, reqs, NULL, NULL, ierr);
}
ENTRIES(startall, (count, reqs, ierr))

/* MPI_Comm_free: forgotten before its handle can be reused */
#define P_comm_free	(F *comm, F *ierr)

static void w_comm_free(void (*real) P_comm_free, PARAMS(P_comm_free))
{
	MPI_Comm was = MPI_Comm_f2c(*comm);
	struct mw_call c;

	if (!MW_BEGIN(c, Comm_free)) {
		mw_comm_forget(was);
		real(comm, ierr);
		return;
	}
	c.m.comm = mw_comm_id(was);
	mw_comm_forget(was);
	MW_CALL_F(c, real(comm, ierr));
	mw_end(&c);
}
ENTRIES(comm_free, (comm, ierr))

/* MPI_Abort: recorded before it runs, every buffer written out */
#define P_abort	(F *comm, F *code, F *ierr)

static void w_abort(void (*real) P_abort, PARAMS(P_abort))
{
	mw_abort(MPI_Comm_f2c(*comm));
	real(comm, code, ierr);
}
ENTRIES(abort, (comm, code, ierr))
