// SPDX-License-Identifier: GPL-2.0
/*
 * Point-to-point calls (lwmpi.h): sends and receives, blocking and not,
 * persistent requests, probes, and the waits and tests that complete
 * requests, each completed request a record of its own before the
 * call's.  A receive's source and tag are the status's, so the library
 * asks for a status where the program passed MPI_STATUS(ES)_IGNORE.
 */
#include <stdlib.h>

#include "lwmpi.h"

void mw_send_part(struct mw_call *c, int count, MPI_Datatype type,
		      int dest, int tag, MPI_Comm comm)
{
	c->m.comm = mw_comm_id(comm);
	c->m.dst = mw_world(comm, dest);
	c->m.stag = tag;
	c->m.sbytes = dest == MPI_PROC_NULL ? 0 : mw_bytes(count, type);
	c->m.nsend = dest != MPI_PROC_NULL;
}

void mw_recv_part(struct mw_call *c, int count, MPI_Datatype type,
		      MPI_Comm comm, const MPI_Status *st, int source)
{
	c->m.comm = mw_comm_id(comm);
	c->m.rposted = mw_bytes(count, type);
	if (source == MPI_PROC_NULL)
		return;
	c->m.src = mw_world(comm, st->MPI_SOURCE);
	c->m.rtag = st->MPI_TAG;
	c->m.rbytes = mw_status_bytes(st);
	c->m.nrecv = 1;
}

#define SEND(name)							\
MW_API int MPI_##name(const void *buf, int count, MPI_Datatype type,	\
		      int dest, int tag, MPI_Comm comm)			\
{									\
	struct mw_call c;						\
	int ret;							\
									\
	if (!MW_BEGIN(c, name))						\
		return PMPI_##name(buf, count, type, dest, tag, comm);	\
	MW_CALL(c, ret, PMPI_##name(buf, count, type, dest, tag, comm)); \
	mw_send_part(&c, count, type, dest, tag, comm);			\
	mw_end(&c);							\
	return ret;							\
}

SEND(Send)
SEND(Bsend)
SEND(Ssend)
SEND(Rsend)

MW_API int MPI_Recv(void *buf, int count, MPI_Datatype type, int source,
		    int tag, MPI_Comm comm, MPI_Status *status)
{
	struct mw_call c;
	MPI_Status own;
	int ret;

	if (!MW_BEGIN(c, Recv))
		return PMPI_Recv(buf, count, type, source, tag, comm, status);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Recv(buf, count, type, source, tag, comm, status));
	if (ret == MPI_SUCCESS)
		mw_recv_part(&c, count, type, comm, status, source);
	mw_end(&c);
	return ret;
}

/* A new request of a nonblocking call or a persistent init. */
void mw_made(struct mw_call *c, MPI_Request r, bool recv, bool persistent,
		 int count, MPI_Datatype type, int peer, int tag,
		 MPI_Comm comm)
{
	struct mw_req e = { .func = c->m.func, .recv = recv,
			    .persistent = persistent, .active = !persistent,
			    .comm = comm, .peer = mw_world(comm, peer),
			    .tag = tag, .bytes = mw_bytes(count, type) };

	uint64_t id;

	if (recv && peer == MPI_PROC_NULL)
		return;		/* completes at once, receives nothing */
	c->m.comm = mw_comm_id(comm);
	mw_req_add(r, &e, &id);
	c->m.req = id;
	if (recv) {
		c->m.rposted = e.bytes;
	} else if (!persistent && peer != MPI_PROC_NULL) {
		c->m.dst = e.peer;
		c->m.stag = tag;
		c->m.sbytes = e.bytes;
		c->m.nsend = 1;
	}
}

void mw_coll_made(struct mw_call *c, MPI_Request r, MPI_Comm comm)
{
	mw_made(c, r, false, false, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL,
		EXP_MPI_NONE, comm);
}

/*
 * The nonblocking and persistent calls: NAME(BUF, count, type, peer,
 * tag, comm, req), CONST the send buffer's const.
 */
#define NB(name, CONST, recv, persist)					\
MW_API int MPI_##name(CONST void *buf, int count, MPI_Datatype type,	\
		      int peer, int tag, MPI_Comm comm, MPI_Request *req) \
{									\
	struct mw_call c;						\
	int ret;							\
									\
	if (!MW_BEGIN(c, name))						\
		return PMPI_##name(buf, count, type, peer, tag, comm, req); \
	MW_CALL(c, ret, PMPI_##name(buf, count, type, peer, tag, comm, req)); \
	if (ret == MPI_SUCCESS)						\
		mw_made(&c, *req, recv, persist, count, type, peer, tag, comm); \
	mw_end(&c);							\
	return ret;							\
}

NB(Isend, const, false, false)
NB(Ibsend, const, false, false)
NB(Issend, const, false, false)
NB(Irsend, const, false, false)
NB(Send_init, const, false, true)
NB(Bsend_init, const, false, true)
NB(Ssend_init, const, false, true)
NB(Rsend_init, const, false, true)
NB(Irecv, , true, false)
NB(Recv_init, , true, true)

MW_API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype,
			int dest, int stag, void *rbuf, int rcount,
			MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
			MPI_Status *status)
{
	struct mw_call c;
	MPI_Status own;
	int ret;

	if (!MW_BEGIN(c, Sendrecv))
		return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf,
				     rcount, rtype, source, rtag, comm, status);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf,
				      rcount, rtype, source, rtag, comm, status));
	mw_send_part(&c, scount, stype, dest, stag, comm);
	if (ret == MPI_SUCCESS)
		mw_recv_part(&c, rcount, rtype, comm, status, source);
	mw_end(&c);
	return ret;
}

MW_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type,
				int dest, int stag, int source, int rtag,
				MPI_Comm comm, MPI_Status *status)
{
	struct mw_call c;
	MPI_Status own;
	int ret;

	if (!MW_BEGIN(c, Sendrecv_replace))
		return PMPI_Sendrecv_replace(buf, count, type, dest, stag,
					     source, rtag, comm, status);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Sendrecv_replace(buf, count, type, dest, stag,
					      source, rtag, comm, status));
	mw_send_part(&c, count, type, dest, stag, comm);
	if (ret == MPI_SUCCESS)
		mw_recv_part(&c, count, type, comm, status, source);
	mw_end(&c);
	return ret;
}

/*
 * A persistent request started: a send starts here, and has a request
 * record of its own before the call's (its peer, tag and bytes), so
 * that the sends of an MPI_Startall to several peers are each a message.
 */
void mw_started(struct mw_call *c, MPI_Request r)
{
	struct mw_req e;

	if (!mw_req_find(r, &e))
		return;
	mw_req_set_active(r, true);
	if (!e.recv && e.peer != EXP_MPI_NONE) {
		struct exp_rec_mpi_req q = { .req = e.id, .kind = e.func,
					     .peer = e.peer, .tag = e.tag,
					     .bytes = e.bytes };

		mw_api->emit_req(&q);
		c->m.nsend++;
		c->m.sbytes += e.bytes;
		c->m.dst = c->m.nsend == 1 || c->m.dst == e.peer ? e.peer : EXP_MPI_NONE;
		c->m.stag = e.tag;
	}
	c->m.comm = mw_comm_id(e.comm);
}

MW_API int MPI_Start(MPI_Request *req)
{
	struct mw_call c;
	int ret;

	if (!MW_BEGIN(c, Start))
		return PMPI_Start(req);
	MW_CALL(c, ret, PMPI_Start(req));
	if (ret == MPI_SUCCESS)
		mw_started(&c, *req);
	mw_end(&c);
	return ret;
}

MW_API int MPI_Startall(int n, MPI_Request reqs[])
{
	struct mw_call c;
	int ret, i;

	if (!MW_BEGIN(c, Startall))
		return PMPI_Startall(n, reqs);
	MW_CALL(c, ret, PMPI_Startall(n, reqs));
	if (ret == MPI_SUCCESS)
		for (i = 0; i < n; i++)
			mw_started(&c, reqs[i]);
	mw_end(&c);
	return ret;
}

MW_API int MPI_Request_free(MPI_Request *req)
{
	struct mw_call c;
	MPI_Request r = *req;
	int ret;

	if (!MW_BEGIN(c, Request_free))
		return PMPI_Request_free(req);
	MW_CALL(c, ret, PMPI_Request_free(req));
	if (ret == MPI_SUCCESS)
		mw_req_del(r);
	mw_end(&c);
	return ret;
}

/*
 * A request a wait or test found complete: its record, and its entry
 * gone (a persistent one inactive).
 */
void mw_complete(struct mw_call *c, MPI_Request r, const struct mw_req *e,
		     const MPI_Status *st)
{
	mw_req_done(c, e, st);
	if (e->persistent)
		mw_req_set_active(r, false);
	else
		mw_req_del(r);
}

/*
 * The entries of reqs[0..n) before the call (the call sets completed
 * ones to MPI_REQUEST_NULL): in ent, found[i] says which are known.
 */
struct before {
	int n;
	MPI_Request *r;
	struct mw_req *e;
	bool *found;
	MPI_Status *st;		/* the statuses asked for, if the program's were ignored */
};

static bool before_take(struct before *b, int n, const MPI_Request *reqs,
			bool statuses)
{
	int i;

	b->n = n;
	b->r = malloc(sizeof(*b->r) * (n ? n : 1));
	b->e = malloc(sizeof(*b->e) * (n ? n : 1));
	b->found = malloc(sizeof(*b->found) * (n ? n : 1));
	b->st = statuses ? malloc(sizeof(*b->st) * (n ? n : 1)) : NULL;
	if (!b->r || !b->e || !b->found || (statuses && !b->st)) {
		free(b->r);
		free(b->e);
		free(b->found);
		free(b->st);
		return false;
	}
	for (i = 0; i < n; i++) {
		b->r[i] = reqs[i];
		b->found[i] = mw_req_find(reqs[i], &b->e[i]);
	}
	return true;
}

static void before_free(struct before *b)
{
	free(b->r);
	free(b->e);
	free(b->found);
	free(b->st);
}

/* request i of b completed with status st */
static void before_done(struct mw_call *c, struct before *b, int i,
			const MPI_Status *st)
{
	if (i >= 0 && i < b->n && b->found[i]) {
		mw_complete(c, b->r[i], &b->e[i], st);
		b->found[i] = false;
	}
}

MW_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	struct mw_call c;
	struct mw_req e;
	MPI_Request r = *req;
	MPI_Status own;
	bool found;
	int ret;

	if (!MW_BEGIN(c, Wait))
		return PMPI_Wait(req, status);
	found = mw_req_find(r, &e);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Wait(req, status));
	if (ret == MPI_SUCCESS && found && (!e.persistent || e.active))
		mw_complete(&c, r, &e, status);
	mw_end(&c);
	return ret;
}

MW_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	struct mw_call c;
	struct mw_req e;
	MPI_Request r = *req;
	MPI_Status own;
	bool found;
	int ret;

	if (!MW_BEGIN(c, Test))
		return PMPI_Test(req, flag, status);
	found = mw_req_find(r, &e);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Test(req, flag, status));
	if (ret == MPI_SUCCESS && *flag && found && (!e.persistent || e.active))
		mw_complete(&c, r, &e, status);
	mw_end(&c);
	return ret;
}

#define COMMA_FLAG	, int *flag
#define COMMA_FLAG_ARG	, flag

/* Waitall and Testall: every request, or (Testall, flag 0) none. */
#define ALL(name, fargs, flagp)						\
MW_API int MPI_##name(int n, MPI_Request reqs[] fargs, MPI_Status sts[]) \
{									\
	struct mw_call c;						\
	struct before b;						\
	int ret, i;							\
									\
	if (!MW_BEGIN(c, name))						\
		return PMPI_##name(n, reqs ARGS, sts);			\
	if (!before_take(&b, n, reqs, sts == MPI_STATUSES_IGNORE)) {	\
		MW_CALL(c, ret, PMPI_##name(n, reqs ARGS, sts));	\
		mw_end(&c);						\
		return ret;						\
	}								\
	if (b.st)							\
		sts = b.st;						\
	MW_CALL(c, ret, PMPI_##name(n, reqs ARGS, sts));		\
	if (ret == MPI_SUCCESS && (flagp))				\
		for (i = 0; i < n; i++)					\
			if (!b.e[i].persistent || b.e[i].active)	\
				before_done(&c, &b, i, &sts[i]);	\
	before_free(&b);						\
	mw_end(&c);							\
	return ret;							\
}

#define ARGS
ALL(Waitall, , 1)
#undef ARGS
#define ARGS , flag
ALL(Testall, COMMA_FLAG, *flag)
#undef ARGS

/* Waitany and Testany: one request, its index in *index. */
#define ANY(name, fargs, ARGS, flagp)					\
MW_API int MPI_##name(int n, MPI_Request reqs[], int *index fargs,	\
		      MPI_Status *status)				\
{									\
	struct mw_call c;						\
	struct before b;						\
	MPI_Status own;							\
	int ret;							\
									\
	if (!MW_BEGIN(c, name))						\
		return PMPI_##name(n, reqs, index ARGS, status);	\
	if (status == MPI_STATUS_IGNORE)				\
		status = &own;						\
	if (!before_take(&b, n, reqs, false)) {				\
		MW_CALL(c, ret, PMPI_##name(n, reqs, index ARGS, status)); \
		mw_end(&c);						\
		return ret;						\
	}								\
	MW_CALL(c, ret, PMPI_##name(n, reqs, index ARGS, status));	\
	if (ret == MPI_SUCCESS && (flagp) && *index != MPI_UNDEFINED)	\
		before_done(&c, &b, *index, status);			\
	before_free(&b);						\
	mw_end(&c);							\
	return ret;							\
}

ANY(Waitany, , , 1)
ANY(Testany, COMMA_FLAG, COMMA_FLAG_ARG, *flag)

/* Waitsome and Testsome: outcount of them, their indices in idx. */
#define SOME(name)							\
MW_API int MPI_##name(int n, MPI_Request reqs[], int *outcount,	\
		      int idx[], MPI_Status sts[])			\
{									\
	struct mw_call c;						\
	struct before b;						\
	int ret, i;							\
									\
	if (!MW_BEGIN(c, name))						\
		return PMPI_##name(n, reqs, outcount, idx, sts);	\
	if (!before_take(&b, n, reqs, sts == MPI_STATUSES_IGNORE)) {	\
		MW_CALL(c, ret, PMPI_##name(n, reqs, outcount, idx, sts)); \
		mw_end(&c);						\
		return ret;						\
	}								\
	if (b.st)							\
		sts = b.st;						\
	MW_CALL(c, ret, PMPI_##name(n, reqs, outcount, idx, sts));	\
	if (ret == MPI_SUCCESS && *outcount != MPI_UNDEFINED)		\
		for (i = 0; i < *outcount; i++)				\
			before_done(&c, &b, idx[i], &sts[i]);		\
	before_free(&b);						\
	mw_end(&c);							\
	return ret;							\
}

SOME(Waitsome)
SOME(Testsome)

void mw_probed(struct mw_call *c, MPI_Comm comm, const MPI_Status *st)
{
	c->m.comm = mw_comm_id(comm);
	c->m.src = mw_world(comm, st->MPI_SOURCE);
	c->m.rtag = st->MPI_TAG;
}

MW_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct mw_call c;
	MPI_Status own;
	int ret;

	if (!MW_BEGIN(c, Probe))
		return PMPI_Probe(source, tag, comm, status);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Probe(source, tag, comm, status));
	if (ret == MPI_SUCCESS && source != MPI_PROC_NULL)
		mw_probed(&c, comm, status);
	mw_end(&c);
	return ret;
}

MW_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
		      MPI_Status *status)
{
	struct mw_call c;
	MPI_Status own;
	int ret;

	if (!MW_BEGIN(c, Iprobe))
		return PMPI_Iprobe(source, tag, comm, flag, status);
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	MW_CALL(c, ret, PMPI_Iprobe(source, tag, comm, flag, status));
	if (ret == MPI_SUCCESS && *flag && source != MPI_PROC_NULL)
		mw_probed(&c, comm, status);
	mw_end(&c);
	return ret;
}
