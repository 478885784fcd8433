// SPDX-License-Identifier: GPL-2.0
/*
 * MPI calls (libexp/mpi.h, docs/guide/mpi.md): each call's record becomes
 * a sample with Oracle's MPI metrics (its time, sends started, receives
 * completed and their actual bytes, or one other event) on the call's
 * stack, and an entry of an->mpi for the MPI views.  Once every rank is
 * read, an_mpi_finish() matches messages (the k-th send from rank s to
 * rank r on a communicator and tag with the k-th receive posted there,
 * as MPI's order rule has it; the pairs kept in an->mpi_msgs for the
 * exports) to find Late Sender, the time a receive waited before its
 * message's send began, and matches each communicator's k-th barrier
 * (k-th MPI_Allreduce, MPI_Alltoall ..., or their nonblocking forms)
 * across ranks for Wait at Barrier (at NxN), the time a rank waited for
 * the last to enter; they become samples of their own on the waiting
 * call's stack (a nonblocking one's: the wait that completed it).  Every rank's clock must be the same
 * (ranks of one machine): the records' times are CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "libexp/mpi.h"

static const uint32_t call_bases[] = {
	AN_T_MPI_NS, AN_T_MPI_SEND, AN_T_MPI_SBYTES, AN_T_MPI_RECV,
	AN_T_MPI_RBYTES, AN_T_MPI_OTHER,
};

static uint32_t layout_of(struct an *an, const uint32_t *bases, uint32_t n)
{
	uint32_t ids[8], i;

	for (i = 0; i < n; i++)
		ids[i] = an_base_id(an, AN_B_TRACE, bases[i]);
	return an_layout_intern(an, ids, n);
}

int an_mpi_decode(struct an *an, const struct exp_rec_mpi *m,
		  uint32_t *layout, uint64_t *vals)
{
	uint32_t lay = layout_of(an, call_bases, 6);

	vals[0] = m->call.time_ns - (m->call.hdr.flags & EXP_TCF_START ?
				     m->call.fields[0] : m->call.time_ns);
	vals[1] = m->nsend;
	vals[2] = m->sbytes;
	vals[3] = m->nrecv;
	vals[4] = m->rbytes;
	vals[5] = !m->nsend && !m->nrecv;
	*layout = lay;
	return lay == UINT32_MAX ? -ENOMEM : 6;
}

int an_mpi_add(struct an *an, uint32_t exp, const struct exp_rec_mpi *m,
	       const struct exp_tcall *t, uint32_t sample, uint32_t unw)
{
	struct an_mcall *c;
	struct an_mreq *q;
	uint64_t *ms;
	size_t i;

	an->mpi.esz = sizeof(*c);
	an->mpi_ms.esz = 8 * LWPROF_MS_COUNT;
	c = an_vec_push(&an->mpi);
	if (!c)
		return -ENOMEM;
	*c = (struct an_mcall){
		.exp = exp, .pid = t->pid, .tid = t->tid, .sample = sample,
		.unw = unw, .func = m->func, .rank = m->rank, .root = m->root,
		.dst = m->dst, .stag = m->stag, .src = m->src, .rtag = m->rtag,
		.comm = m->comm, .nsend = m->nsend, .nrecv = m->nrecv,
		.t0 = t->start_ns, .t1 = t->time_ns, .sbytes = m->sbytes,
		.rposted = m->rposted, .rbytes = m->rbytes, .req = m->req,
		.ms = UINT32_MAX };
	if (t->ms) {
		ms = an_vec_push(&an->mpi_ms);
		if (!ms)
			return -ENOMEM;
		memcpy(ms, t->ms, 8 * LWPROF_MS_COUNT);
		c->ms = an->mpi_ms.n - 1;
	}
	/* the requests written before it, of its thread, are its */
	for (i = an->mpi_req.n; i-- > 0;) {
		q = &AN_VEC(an->mpi_req, struct an_mreq, i);
		if (q->call != UINT32_MAX)
			break;
		if (q->exp != exp || q->tid != t->tid)
			continue;
		q->call = an->mpi.n - 1;
		/* a start's: the persistent sends it started, one each */
		q->start = exp_mpi_func(c->func)->cls == EXP_MPI_START &&
			   exp_mpi_func(q->kind)->cls == EXP_MPI_PINIT &&
			   q->kind != EXP_MPI_F_Recv_init;
		c->nstart += q->start;
	}
	return 0;
}

int an_mpi_req(struct an *an, uint32_t exp, const struct exp_rec_mpi_req *r)
{
	struct an_mreq *q;

	an->mpi_req.esz = sizeof(*q);
	q = an_vec_push(&an->mpi_req);
	if (!q)
		return -ENOMEM;
	*q = (struct an_mreq){ .exp = exp, .pid = r->pid, .tid = r->tid,
			       .call = UINT32_MAX, .req = r->req,
			       .kind = r->kind, .cancelled = r->cancelled,
			       .peer = r->peer, .tag = r->tag, .bytes = r->bytes };
	return 0;
}

/* ---- after loading ---- */

/* Each experiment's rank: its log's, else its MPI records'. */
static void exp_ranks(struct an *an)
{
	size_t i;

	for (i = 0; i < an->exps.n; i++) {
		struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);

		e->rank = e->log->mpi_rank ? atoi(e->log->mpi_rank) : -1;
	}
	for (i = 0; i < an->mpi.n; i++) {
		struct an_mcall *c = &AN_VEC(an->mpi, struct an_mcall, i);
		struct an_exp *e = &AN_VEC(an->exps, struct an_exp, c->exp);

		if (e->rank < 0)
			e->rank = c->rank;
	}
}

/*
 * One end of a message: a send (its start) or a receive (its post, and
 * the call that waited for it).
 */
struct end {
	int32_t src, dst, tag;
	uint32_t comm;
	uint64_t t;		/* send: its start; receive: its post */
	uint32_t wait;		/* the send's call; the receive's that completed it */
	int recv;
};

static int end_cmp(const void *a, const void *b)
{
	const struct end *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->recv != y->recv)
		return x->recv - y->recv;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->wait < y->wait ? -1 : x->wait > y->wait;	/* in file order */
}

static int push_end(struct an_vec *v, struct end e)
{
	struct end *p = an_vec_push(v);

	if (!p)
		return -ENOMEM;
	*p = e;
	return 0;
}

/* key of a request: its experiment, process and id */
static int req_cmp(const void *a, const void *b)
{
	const struct an_mcall *const *x = a, *const *y = b;

	if ((*x)->exp != (*y)->exp)
		return (*x)->exp < (*y)->exp ? -1 : 1;
	if ((*x)->pid != (*y)->pid)
		return (*x)->pid < (*y)->pid ? -1 : 1;
	return (*x)->req < (*y)->req ? -1 : (*x)->req > (*y)->req;
}

static struct an_mcall *find_req(struct an_vec *made, uint32_t exp,
				 uint32_t pid, uint64_t req)
{
	struct an_mcall key = { .exp = exp, .pid = pid, .req = req }, *kp = &key;
	struct an_mcall **p = bsearch(&kp, made->p, made->n, made->esz, req_cmp);

	return p ? *p : NULL;
}

/* The ends of every message: sends, blocking receives, completed requests. */
/* made: the calls that made requests, sorted for find_req() */
static int requests_made(struct an *an, struct an_vec *made)
{
	struct an_mcall *c, **p;
	size_t i;

	made->esz = sizeof(struct an_mcall *);
	for (i = 0; i < an->mpi.n; i++) {
		c = &AN_VEC(an->mpi, struct an_mcall, i);
		if (!c->req)
			continue;
		p = an_vec_push(made);
		if (!p)
			return -ENOMEM;
		*p = c;
	}
	an_vec_sort(made, req_cmp);
	return 0;
}

static int message_ends(struct an *an, struct an_vec *ends)
{
	struct an_vec made = { 0 };
	struct an_mcall *c, *w, *r;
	struct an_mreq *q;
	size_t i;
	int err = requests_made(an, &made);

	for (i = 0; i < an->mpi.n && !err; i++) {
		c = &AN_VEC(an->mpi, struct an_mcall, i);
		/*
		 * a send: one peer (Startall of several names none: its
		 * sends are its start records, as are those of a start
		 * that wrote them)
		 */
		if (c->nsend == 1 && c->dst >= 0 && !c->nstart &&
		    exp_mpi_func(c->func)->cls != EXP_MPI_PINIT)
			err = push_end(ends, (struct end){ c->rank, c->dst,
				c->stag, c->comm, c->t0, i, 0 });
		/* a blocking receive */
		if (!err && c->nrecv == 1 && c->src >= 0 &&
		    (exp_mpi_func(c->func)->cls == EXP_MPI_RECV ||
		     exp_mpi_func(c->func)->cls == EXP_MPI_SENDRECV))
			err = push_end(ends, (struct end){ c->src, c->rank,
				c->rtag, c->comm, c->t0, i, 1 });
	}
	for (i = 0; i < an->mpi_req.n && !err; i++) {
		q = &AN_VEC(an->mpi_req, struct an_mreq, i);
		if (q->cancelled || q->call == UINT32_MAX || q->peer < 0)
			continue;
		w = &AN_VEC(an->mpi, struct an_mcall, q->call);
		if (q->start) {		/* a persistent send started */
			err = push_end(ends, (struct end){ w->rank, q->peer,
				q->tag, w->comm, w->t0, q->call, 0 });
			continue;
		}
		if (exp_mpi_func(q->kind)->cls != EXP_MPI_IRECV &&
		    q->kind != EXP_MPI_F_Recv_init)
			continue;	/* a send: counted where it started */
		r = find_req(&made, q->exp, q->pid, q->req);
		if (!r)
			continue;
		/*
		 * posted at the MPI_Irecv; a persistent receive at each start,
		 * which is not recorded per request: its wait stands for it
		 */
		err = push_end(ends, (struct end){ q->peer, w->rank, q->tag,
			r->comm, q->kind == EXP_MPI_F_Recv_init ? w->t0 : r->t0,
			q->call, 1 });
	}
	free(made.p);
	return err;
}

/* A sample of one value on call c's stack (as leaks are made). */
static int call_sample(struct an *an, const struct an_mcall *c,
		       uint32_t base, uint64_t v)
{
	uint32_t lay = layout_of(an, &base, 1), s = c->sample, n = an->s.n;
	struct an_unw_ref *u;

	if (s == UINT32_MAX)
		return 0;
	if (lay == UINT32_MAX ||
	    an_sample_add(an, c->t1, an->s.stack[s], an->s.thr[s], an->s.cpu[s],
			  lay, &v, 1, 0))
		return -ENOMEM;
	if (c->unw == UINT32_MAX)
		return 0;
	u = an_vec_push(&an->ld->deferred);
	if (!u)
		return -ENOMEM;
	*u = AN_VEC(an->ld->deferred, struct an_unw_ref, c->unw);
	u->sample = n;
	return 0;
}

/* Late Sender: each receive paired with its send, in order. */
static int late_sender(struct an *an)
{
	struct an_vec ends = { .esz = sizeof(struct end) };
	struct end *e, *s, *r;
	struct an_mmsg *msg;
	size_t i, j, k, ns, nr;
	struct an_mcall *w;
	uint64_t late;
	int err = message_ends(an, &ends);

	an->mpi_msgs.esz = sizeof(struct an_mmsg);
	an_vec_sort(&ends, end_cmp);
	e = ends.p;
	for (i = 0; i < ends.n && !err; i = j) {
		for (j = i; j < ends.n && e[j].src == e[i].src &&
		     e[j].dst == e[i].dst && e[j].comm == e[i].comm &&
		     e[j].tag == e[i].tag; j++)
			;
		for (ns = 0; i + ns < j && !e[i + ns].recv; ns++)
			;
		nr = j - i - ns;
		for (k = 0; k < ns && k < nr && !err; k++) {
			s = &e[i + k];
			r = &e[i + ns + k];
			msg = an_vec_push(&an->mpi_msgs);
			if (!msg) {
				err = -ENOMEM;
				break;
			}
			*msg = (struct an_mmsg){ s->wait, r->wait };
			w = &AN_VEC(an->mpi, struct an_mcall, r->wait);
			if (s->t <= w->t0)
				continue;
			late = s->t - w->t0;
			if (late > w->t1 - w->t0)
				late = w->t1 - w->t0;
			if (late > w->late)
				w->late = late;
		}
	}
	free(ends.p);
	for (i = 0; i < an->mpi.n && !err; i++) {
		w = &AN_VEC(an->mpi, struct an_mcall, i);
		if (w->late)
			err = call_sample(an, w, AN_T_MPI_LATE, w->late);
	}
	return err;
}

/*
 * A synchronizing collective: MPI_Barrier, or one whose every rank needs
 * every other's data (Scalasca's NxN: MPI_Allreduce, MPI_Alltoall ...),
 * blocking or not.  The k-th call of one function on a communicator in
 * each rank is one instance of it.
 */
struct bar {
	uint32_t func, comm, k;
	uint32_t call;
};

static bool nxn(unsigned int f)
{
	switch (f) {
	case EXP_MPI_F_Allreduce: case EXP_MPI_F_Allgather:
	case EXP_MPI_F_Allgatherv: case EXP_MPI_F_Alltoall:
	case EXP_MPI_F_Alltoallv: case EXP_MPI_F_Alltoallw:
	case EXP_MPI_F_Reduce_scatter: case EXP_MPI_F_Reduce_scatter_block:
	case EXP_MPI_F_Iallreduce: case EXP_MPI_F_Iallgather:
	case EXP_MPI_F_Ialltoall:
		return true;
	default:
		return false;
	}
}

static bool barrier(unsigned int f)
{
	return f == EXP_MPI_F_Barrier || f == EXP_MPI_F_Ibarrier;
}

static int bar_cmp(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

static int bar_seq_cmp(const void *a, const void *b, void *ctx)
{
	const struct an_mcall *m = ctx;
	const struct bar *x = a, *y = b;
	const struct an_mcall *p = &m[x->call], *q = &m[y->call];

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return p->t0 < q->t0 ? -1 : p->t0 > q->t0;
}

static bool same_seq(const struct an_mcall *m, const struct bar *x,
		     const struct bar *y)
{
	return x->func == y->func && x->comm == y->comm &&
	       m[x->call].rank == m[y->call].rank;
}

/*
 * done[i]: the call that completed the request call i made, if i is a
 * nonblocking collective (UINT32_MAX: none, or not completed).
 */
static int collectives_done(struct an *an, uint32_t *done)
{
	struct an_vec made = { 0 };
	struct an_mcall *r;
	struct an_mreq *q;
	size_t i;
	int err = requests_made(an, &made);

	for (i = 0; i < an->mpi.n; i++)
		done[i] = UINT32_MAX;
	for (i = 0; i < an->mpi_req.n && !err; i++) {
		q = &AN_VEC(an->mpi_req, struct an_mreq, i);
		if (q->call == UINT32_MAX || q->cancelled ||
		    exp_mpi_func(q->kind)->cls != EXP_MPI_ICOLL)
			continue;
		r = find_req(&made, q->exp, q->pid, q->req);
		if (r)
			done[r - (struct an_mcall *)an->mpi.p] = q->call;
	}
	free(made.p);
	return err;
}

/*
 * Wait at Barrier and Wait at NxN: in each instance, each rank waited
 * for the last rank to enter: a blocking call from its entry, at most
 * its length; a nonblocking one in the call that completed its request
 * (MPI_Wait, MPI_Test ...), from that call's entry, at most its length,
 * the most of the requests it completed.  Then a sample of each.
 */
static int collective_waits(struct an *an)
{
	struct an_vec v = { .esz = sizeof(struct bar) };
	struct an_mcall *m = an->mpi.p, *c;
	uint32_t *done = malloc(sizeof(*done) * an->mpi.n);
	struct bar *b;
	size_t i, j, k;
	uint64_t last, w;
	int err = done ? collectives_done(an, done) : -ENOMEM;

	for (i = 0; i < an->mpi.n && !err; i++) {
		if (!barrier(m[i].func) && !nxn(m[i].func))
			continue;
		b = an_vec_push(&v);
		if (!b)
			err = -ENOMEM;
		else
			*b = (struct bar){ m[i].func, m[i].comm, 0, i };
	}
	/* number each rank's calls of a function on a communicator in time order */
	if (v.n)
		qsort_r(v.p, v.n, v.esz, bar_seq_cmp, m);
	b = v.p;
	for (i = 0; i < v.n; i++)
		b[i].k = i && same_seq(m, &b[i], &b[i - 1]) ? b[i - 1].k + 1 : 0;
	an_vec_sort(&v, bar_cmp);
	for (i = 0; i < v.n && !err; i = j) {
		last = 0;
		for (j = i; j < v.n && b[j].func == b[i].func &&
		     b[j].comm == b[i].comm && b[j].k == b[i].k; j++)
			if (m[b[j].call].t0 > last)
				last = m[b[j].call].t0;
		for (k = i; k < j && j - i > 1; k++) {
			c = &m[b[k].call];
			if (exp_mpi_func(c->func)->cls == EXP_MPI_ICOLL) {
				if (done[b[k].call] == UINT32_MAX)
					continue;
				c = &m[done[b[k].call]];
			}
			w = last > c->t0 ? last - c->t0 : 0;
			if (w > c->t1 - c->t0)
				w = c->t1 - c->t0;
			if (barrier(b[k].func) && w > c->barwait)
				c->barwait = w;
			else if (!barrier(b[k].func) && w > c->nxnwait)
				c->nxnwait = w;
		}
	}
	for (i = 0; i < an->mpi.n && !err; i++) {
		if (m[i].barwait)
			err = call_sample(an, &m[i], AN_T_MPI_BARWAIT, m[i].barwait);
		if (!err && m[i].nxnwait)
			err = call_sample(an, &m[i], AN_T_MPI_NXNWAIT, m[i].nxnwait);
	}
	free(v.p);
	free(done);
	return err;
}

int an_mpi_finish(struct an *an)
{
	int err;

	exp_ranks(an);
	if (!an->mpi.n)
		return 0;
	err = late_sender(an);
	if (!err)
		err = collective_waits(an);
	return err ? an_errf(an, err, "out of memory") : 0;
}

void an_mpi_release(struct an *an)
{
	free(an->mpi.p);
	free(an->mpi_req.p);
	free(an->mpi_ms.p);
	free(an->mpi_msgs.p);
	memset(&an->mpi_msgs, 0, sizeof(an->mpi_msgs));
	memset(&an->mpi, 0, sizeof(an->mpi));
	memset(&an->mpi_req, 0, sizeof(an->mpi_req));
	memset(&an->mpi_ms, 0, sizeof(an->mpi_ms));
}
