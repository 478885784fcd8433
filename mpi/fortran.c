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
 * w_NAME(real, &CONV, ARGS).
 */
/*
 * A Fortran status into a C one: mpif.h's, or mpi_f08's TYPE(MPI_Status),
 * which is laid out as mpif.h's under Open MPI but not under MPICH:
 * MPI_Status_f082c where the implementation has it.
 */
typedef int st_f2c(const F *f, MPI_Status *c);

static int f08_status_f2c(const F *f, MPI_Status *c)
{
	static int (*f082c)(const void *, MPI_Status *);
	static bool asked;

	if (!__atomic_load_n(&asked, __ATOMIC_ACQUIRE)) {
		f082c = (int (*)(const void *, MPI_Status *))
			dlsym(RTLD_DEFAULT, "PMPI_Status_f082c");
		__atomic_store_n(&asked, true, __ATOMIC_RELEASE);
	}
	return f082c ? f082c(f, c) : MPI_Status_f2c(f, c);
}

/*
 * How a binding's arguments read: its statuses (f2c) and the number of
 * the first of an array's requests in the indices it returns (base): 1
 * in Fortran, 0 in MPICH's mpi_NAME_f08_, which are the C halves of its
 * mpi_f08 procedures.
 */
struct fconv {
	st_f2c *f2c;
	int base;
};

static const struct fconv f77 = { MPI_Status_f2c, 1 };

/* The body of binding NAME: its real binding, how its arguments read. */
#define W(name)								\
	static void w_##name(void (*real) P_##name,			\
			     const struct fconv *conv, PARAMS(P_##name))

#define ENTRIES(name, args)						\
MW_API void mpi_##name##_ P_##name					\
{									\
	MW_REAL_F("pmpi_" #name "_", P_##name);				\
	w_##name(real, &f77, UNPAREN args);				\
}									\
MW_API void mpi_##name##_f08_ P_##name					\
{									\
	static struct fconv conv = { f08_status_f2c, 1 };		\
	F own;								\
									\
	MW_REAL_F08(#name, P_##name, &conv.base);			\
	if (!ierr)							\
		ierr = &own;						\
	w_##name(real, &conv, UNPAREN args);				\
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

W(init)
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

W(init_thread)
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
W(name)								\
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

W(recv)
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
	if (*ierr == MPI_SUCCESS && conv->f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *count, MPI_Type_f2c(*type),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}
ENTRIES(recv, (buf, count, type, source, tag, comm, status, ierr))

#define P_sendrecv	(void *sbuf, F *scount, F *stype, F *dest, F *stag, \
			 void *rbuf, F *rcount, F *rtype, F *source, F *rtag, \
			 F *comm, F *status, F *ierr)

W(sendrecv)
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
	if (*ierr == MPI_SUCCESS && conv->f2c(status, &st) == MPI_SUCCESS)
		mw_recv_part(&c, *rcount, MPI_Type_f2c(*rtype),
			     MPI_Comm_f2c(*comm), &st, *source);
	mw_end(&c);
}
ENTRIES(sendrecv, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
		   source, rtag, comm, status, ierr))

/* the nonblocking point-to-point calls and persistent inits */
#define NB_F(name, NAME, recv, persist)					\
W(name)								\
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

W(start)
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

W(request_free)
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
		      const struct fconv *conv, unsigned int func, F *req, F *flag,
		      F *status, F *ierr)
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
	    conv->f2c(status, &st) == MPI_SUCCESS)
		mw_complete(&c, r, &e, &st);
	mw_end(&c);
}

W(wait)
{
	wait_test(real, NULL, conv, EXP_MPI_F_Wait, req, NULL, status, ierr);
}
ENTRIES(wait, (req, status, ierr))

W(test)
{
	wait_test(NULL, real, conv, EXP_MPI_F_Test, req, flag, status, ierr);
}
ENTRIES(test, (req, flag, status, ierr))

/*
 * The requests of an array call, before it: their handles r and entries
 * e (id 0: unknown); statuses the program ignored (*statuses, when not
 * NULL) replaced by own ones.  False: out of memory, nothing changed.
 */
struct before {
	const struct fconv *conv;
	int n;
	MPI_Request *r;
	struct mw_req *e;
	F *own;
};

static bool before_take(struct before *b, const F *count, const F *reqs,
			F **statuses)
{
	int i;

	b->n = *count > 0 ? *count : 0;
	b->r = malloc(sizeof(*b->r) * (b->n + 1));
	b->e = malloc(sizeof(*b->e) * (b->n + 1));
	b->own = NULL;
	if (statuses && mw_f_ignored(*statuses, true))
		b->own = malloc(sizeof(F) * MPI_F_STATUS_SIZE * (b->n + 1));
	if (!b->r || !b->e || (statuses && mw_f_ignored(*statuses, true) && !b->own)) {
		free(b->r);
		free(b->e);
		free(b->own);
		return false;
	}
	if (b->own)
		*statuses = b->own;
	for (i = 0; i < b->n; i++) {
		b->r[i] = MPI_Request_f2c(reqs[i]);
		if (!mw_req_find(b->r[i], &b->e[i]))
			b->e[i].id = 0;
	}
	return true;
}

/* request i of b (from 0) completed with Fortran status fst */
static void before_done(struct mw_call *c, struct before *b, int i,
			const F *fst)
{
	MPI_Status st;

	if (i >= 0 && i < b->n && b->e[i].id &&
	    (!b->e[i].persistent || b->e[i].active) &&
	    b->conv->f2c(fst, &st) == MPI_SUCCESS) {
		mw_complete(c, b->r[i], &b->e[i], &st);
		b->e[i].id = 0;
	}
}

static void before_free(struct before *b)
{
	free(b->r);
	free(b->e);
	free(b->own);
}

/*
 * An array call: CALL, its requests b taken with statuses STS (NULL:
 * none); without memory, passed on unrecorded.  Then DONE, c's fields.
 */
#define ARRAY_CALL(func, count, reqs, sts, CALL, DONE)			\
	do {								\
		struct mw_call c;					\
		struct before b;					\
									\
		if (!mw_begin(&c, func)) {				\
			CALL;						\
			return;						\
		}							\
		b.conv = conv;						\
		if (!before_take(&b, count, reqs, sts)) {		\
			mw_depth--;	/* as mw_end, without a record */ \
			mw_api->leave();				\
			CALL;						\
			return;						\
		}							\
		MW_CALL_F(c, CALL);					\
		if (*ierr == MPI_SUCCESS)				\
			DONE;						\
		mw_end(&c);						\
		before_free(&b);					\
	} while (0)

/* MPI_Waitall, MPI_Testall: each request, when they completed */
#define P_waitall	(F *count, F *reqs, F *statuses, F *ierr)
#define P_testall	(F *count, F *reqs, F *flag, F *statuses, F *ierr)

static void all_done(struct mw_call *c, struct before *b, const F *sts)
{
	int i;

	for (i = 0; i < b->n; i++)
		before_done(c, b, i, sts + i * MPI_F_STATUS_SIZE);
}

W(waitall)
{
	ARRAY_CALL(EXP_MPI_F_Waitall, count, reqs, &statuses,
		   real(count, reqs, statuses, ierr),
		   all_done(&c, &b, statuses));
}
ENTRIES(waitall, (count, reqs, statuses, ierr))

W(testall)
{
	ARRAY_CALL(EXP_MPI_F_Testall, count, reqs, &statuses,
		   real(count, reqs, flag, statuses, ierr),
		   if (*flag) all_done(&c, &b, statuses));
}
ENTRIES(testall, (count, reqs, flag, statuses, ierr))

/* MPI_Startall: each request started */
#define P_startall	(F *count, F *reqs, F *ierr)

static void started_all(struct mw_call *c, struct before *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		mw_started(c, b->r[i]);
}

W(startall)
{
	ARRAY_CALL(EXP_MPI_F_Startall, count, reqs, NULL,
		   real(count, reqs, ierr), started_all(&c, &b));
}
ENTRIES(startall, (count, reqs, ierr))

/* MPI_Waitany, MPI_Testany: request *index */
#define P_waitany	(F *count, F *reqs, F *index, F *status, F *ierr)
#define P_testany	(F *count, F *reqs, F *index, F *flag, F *status, F *ierr)

W(waitany)
{
	F own[MPI_F_STATUS_SIZE];

	if (ignored(status))
		status = own;
	ARRAY_CALL(EXP_MPI_F_Waitany, count, reqs, NULL,
		   real(count, reqs, index, status, ierr),
		   before_done(&c, &b, *index - conv->base, status));
}
ENTRIES(waitany, (count, reqs, index, status, ierr))

W(testany)
{
	F own[MPI_F_STATUS_SIZE];

	if (ignored(status))
		status = own;
	ARRAY_CALL(EXP_MPI_F_Testany, count, reqs, NULL,
		   real(count, reqs, index, flag, status, ierr),
		   if (*flag) before_done(&c, &b, *index - conv->base, status));
}
ENTRIES(testany, (count, reqs, index, flag, status, ierr))

/* MPI_Waitsome, MPI_Testsome: *outcount requests, their indices */
#define P_SOME	(F *count, F *reqs, F *outcount, F *indices, F *statuses, \
		 F *ierr)
#define P_waitsome	P_SOME
#define P_testsome	P_SOME

static void some_done(struct mw_call *c, struct before *b, const F *outcount,
		      const F *indices, const F *sts)
{
	int i;

	for (i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++)
		before_done(c, b, indices[i] - b->conv->base,
			    sts + i * MPI_F_STATUS_SIZE);
}

#define SOME_F(name, NAME)						\
W(name)								\
{									\
	ARRAY_CALL(EXP_MPI_F_##NAME, count, reqs, &statuses,		\
		   real(count, reqs, outcount, indices, statuses, ierr), \
		   some_done(&c, &b, outcount, indices, statuses));	\
}									\
ENTRIES(name, (count, reqs, outcount, indices, statuses, ierr))

SOME_F(waitsome, Waitsome)
SOME_F(testsome, Testsome)

/* MPI_Probe, MPI_Iprobe: the message's source and tag */
#define P_probe		(F *source, F *tag, F *comm, F *status, F *ierr)
#define P_iprobe	(F *source, F *tag, F *comm, F *flag, F *status, F *ierr)

static void probe(void (*probe) P_probe, void (*iprobe) P_iprobe,
		  const struct fconv *conv, unsigned int func, F *source, F *tag, F *comm, F *flag,
		  F *status, F *ierr)
{
	F own[MPI_F_STATUS_SIZE];
	struct mw_call c;
	MPI_Status st;

	if (!mw_begin(&c, func)) {
		probe ? probe(source, tag, comm, status, ierr) :
			iprobe(source, tag, comm, flag, status, ierr);
		return;
	}
	if (ignored(status))
		status = own;
	MW_CALL_F(c, probe ? probe(source, tag, comm, status, ierr) :
			     iprobe(source, tag, comm, flag, status, ierr));
	if (*ierr == MPI_SUCCESS && (probe || *flag) &&
	    *source != MPI_PROC_NULL && conv->f2c(status, &st) == MPI_SUCCESS)
		mw_probed(&c, MPI_Comm_f2c(*comm), &st);
	mw_end(&c);
}

W(probe)
{
	probe(real, NULL, conv, EXP_MPI_F_Probe, source, tag, comm, NULL, status, ierr);
}
ENTRIES(probe, (source, tag, comm, status, ierr))

W(iprobe)
{
	probe(NULL, real, conv, EXP_MPI_F_Iprobe, source, tag, comm, flag, status, ierr);
}
ENTRIES(iprobe, (source, tag, comm, flag, status, ierr))

/* MPI_Comm_free: forgotten before its handle can be reused */
#define P_comm_free	(F *comm, F *ierr)

W(comm_free)
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

W(abort)
{
	mw_abort(MPI_Comm_f2c(*comm));
	real(comm, code, ierr);
}
ENTRIES(abort, (comm, code, ierr))
