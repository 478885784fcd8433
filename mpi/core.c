// SPDX-License-Identifier: GPL-2.0
/*
 * The MPI tracing library's core (lwmpi.h): finding the tracing library,
 * making a call's record, the world ranks of communicators' members and
 * the table of requests.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>

#include "lwmpi.h"

const struct lwprof_mpi_api *mw_api;
__thread int mw_depth TR_TLS;

static int world_rank = -1;

/*
 * The launcher's numbering of this process, until MPI_Init tells.  The
 * tracing library is preloaded before this one but set up after it (its
 * constructor runs later): its table is asked for at the first call.
 */
__attribute__((constructor)) static void mw_init(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	if (!r)
		r = getenv("PMI_RANK");
	if (!r)
		r = getenv("PMIX_RANK");
	world_rank = r ? atoi(r) : 0;
}

/* The tracing library's table, or NULL: every wrapper passes on. */
static const struct lwprof_mpi_api *api_get(void)
{
	static bool asked;
	lwprof_mpi_api_fn *fn;

	if (__atomic_load_n(&asked, __ATOMIC_ACQUIRE))
		return mw_api;
	fn = (lwprof_mpi_api_fn *)dlsym(RTLD_DEFAULT, LWPROF_MPI_API);
	mw_api = fn ? fn() : NULL;
	__atomic_store_n(&asked, true, __ATOMIC_RELEASE);
	return mw_api;
}

#define MW_FLUSH_NS	100000000	/* the flusher's period */

/*
 * Every MW_FLUSH_NS, every thread's buffer out.  A launcher ends the
 * other ranks of a job one of whose ranks failed or aborted, MPICH's
 * with SIGKILL, which no process can answer: a rank so ended keeps all
 * but its last MW_FLUSH_NS of records.
 */
static void *flusher(void *arg)
{
	struct timespec ts = { 0, MW_FLUSH_NS };

	for (;;) {
		nanosleep(&ts, NULL);
		mw_api->flush();
	}
	return NULL;
}

void *mw_f08_real(const char *pmpi, const char *mpi, int *is_pmpi)
{
	void *p = dlsym(RTLD_NEXT, pmpi);

	if (is_pmpi)
		*is_pmpi = !!p;
	return p ? p : dlsym(RTLD_NEXT, mpi);
}

bool mw_f_ignored(const F *st, bool statuses)
{
	static const F *f08[2];
	static bool asked;

	if (st == (statuses ? MPI_F_STATUSES_IGNORE : MPI_F_STATUS_IGNORE))
		return true;
	if (!__atomic_load_n(&asked, __ATOMIC_ACQUIRE)) {
		f08[0] = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
		f08[1] = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
		__atomic_store_n(&asked, true, __ATOMIC_RELEASE);
	}
	return st && st == f08[statuses];
}

void mw_set_rank(void)
{
	static bool started;
	pthread_attr_t a;
	pthread_t th;
	int r;

	mw_depth++;
	if (PMPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS)
		world_rank = r;
	mw_depth--;
	if (started)
		return;
	started = true;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (!pthread_create(&th, &a, flusher, NULL))
		pthread_setname_np(th, "lwprof-mpi");
	pthread_attr_destroy(&a);
}

bool mw_begin(struct mw_call *c, unsigned int func)
{
	if (mw_depth || !api_get() || !mw_api->enter())
		return false;
	mw_depth++;
	memset(&c->m, 0, sizeof(c->m));
	c->m.func = func;
	c->m.root = c->m.dst = c->m.src = EXP_MPI_NONE;
	c->m.stag = c->m.rtag = EXP_MPI_NONE;
	return true;
}

void mw_end(struct mw_call *c)
{
	c->m.rank = world_rank < 0 ? 0 : world_rank;
	mw_api->emit(&c->m, c->t0, c->t1, c->regs);
	mw_depth--;
	mw_api->leave();
}

/* ---- communicators ---- */

#define MW_COMMS	64

struct mw_comm {
	MPI_Comm comm;
	bool used;
	bool freed;		/* MPI_Comm_free'd: for the receives still pending */
	uint32_t id;
	int size;
	int *world;		/* world rank of each (remote) rank */
};

static struct mw_comm comms[MW_COMMS];
static int comms_lock;
static unsigned int comms_next;

static void lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static void unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* FNV-1a over the members' world ranks: the same in every member */
static uint32_t hash_ranks(const int *w, int n)
{
	uint32_t h = 2166136261u;
	int i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++) {
			h ^= (uint32_t)w[i] >> (8 * k) & 0xff;
			h *= 16777619u;
		}
	return h;
}

/* Fill e for comm with MPI calls (mw_depth keeps them untraced). */
static bool comm_learn(struct mw_comm *e, MPI_Comm comm)
{
	MPI_Group g, wg;
	int inter = 0, n, i, *in;

	if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
		return false;
	if ((inter ? PMPI_Comm_remote_group(comm, &g) :
		     PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
		return false;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_size(g, &n);
	in = malloc(sizeof(int) * n);
	e->world = malloc(sizeof(int) * n);
	if (!in || !e->world) {
		free(in);
		free(e->world);
		e->world = NULL;
		return false;
	}
	for (i = 0; i < n; i++)
		in[i] = i;
	PMPI_Group_translate_ranks(g, n, in, wg, e->world);
	free(in);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	e->comm = comm;
	e->size = n;
	e->id = hash_ranks(e->world, n) ^ (inter ? 0x80000000u : 0);
	e->used = true;
	return true;
}

/*
 * comm's entry under the lock: a live one, else (freed too) one freed
 * since; MW_COMMS if none.
 */
static unsigned int comm_find(MPI_Comm comm, bool freed)
{
	unsigned int i, f = MW_COMMS;

	for (i = 0; i < MW_COMMS; i++) {
		if (!comms[i].used || comms[i].comm != comm)
			continue;
		if (!comms[i].freed)
			return i;
		f = freed && f == MW_COMMS ? i : f;
	}
	return f;
}

/*
 * Rank r of comm (r < 0: none asked) as a world rank into *world, and
 * comm's id into *id, from its entry, learnt at its first use (false: it
 * cannot be; learn false: only if known).  Read under the table's lock:
 * another thread may replace an entry when the table is full.
 */
static bool comm_look(MPI_Comm comm, int r, int *world, uint32_t *id,
		      bool learn)
{
	struct mw_comm tmp = { 0 };
	unsigned int i;
	bool learnt = false;

	if (comm == MPI_COMM_NULL)
		return false;
	for (;;) {
		lock(&comms_lock);
		i = comm_find(comm, !learn);
		if (i == MW_COMMS && learnt) {	/* put what was learnt */
			for (i = 0; i < MW_COMMS && comms[i].used && !comms[i].freed; i++)
				;
			if (i == MW_COMMS)	/* full: replace one, round the table */
				i = comms_next++ % MW_COMMS;
			free(comms[i].world);
			comms[i] = tmp;
			tmp.world = NULL;
		}
		if (i < MW_COMMS) {
			*id = comms[i].id;
			*world = r >= 0 && r < comms[i].size && comms[i].world[r] >= 0 ?
				 comms[i].world[r] : EXP_MPI_NONE;
			unlock(&comms_lock);
			free(tmp.world);	/* another thread learnt it first */
			return true;
		}
		unlock(&comms_lock);
		if (!learn)
			return false;
		mw_depth++;
		learnt = comm_learn(&tmp, comm);
		mw_depth--;
		if (!learnt)
			return false;
	}
}

int mw_world(MPI_Comm comm, int r)
{
	uint32_t id;
	int w;

	if (r < 0)	/* MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT */
		return EXP_MPI_NONE;
	if (comm == MPI_COMM_WORLD)
		return r;
	return comm_look(comm, r, &w, &id, true) ? w : EXP_MPI_NONE;
}

uint32_t mw_comm_id(MPI_Comm comm)
{
	uint32_t id;
	int w;

	return comm_look(comm, -1, &w, &id, true) ? id : 0;
}

void mw_comm_forget(MPI_Comm comm)
{
	unsigned int i;

	/* kept for the receives pending on it, not found by new lookups */
	lock(&comms_lock);
	for (i = 0; i < MW_COMMS; i++)
		if (comms[i].used && comms[i].comm == comm)
			comms[i].freed = true;
	unlock(&comms_lock);
}

uint64_t mw_bytes(int count, MPI_Datatype type)
{
	int size = 0;

	mw_depth++;
	if (count <= 0 || type == MPI_DATATYPE_NULL ||
	    PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
		size = 0;
	mw_depth--;
	return (uint64_t)count * (uint64_t)size;
}

uint64_t mw_status_bytes(const MPI_Status *st)
{
	int n = 0;

	mw_depth++;
	if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS ||
	    n == MPI_UNDEFINED || n < 0)
		n = 0;
	mw_depth--;
	return n;
}

/* ---- requests ---- */

#define MW_REQS		8192	/* a power of two */

struct mw_slot {
	uint64_t key;		/* the handle's bits; 0: free */
	struct mw_req e;
};

static struct mw_slot reqs[MW_REQS];
static int reqs_lock;
static uint64_t next_req = 1;

static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;

	memcpy(&k, &r, sizeof(r) < sizeof(k) ? sizeof(r) : sizeof(k));
	return k;
}

static struct mw_slot *slot_of(uint64_t k, bool add)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ULL;
	unsigned int i, n;

	for (n = 0, i = h >> 51 & (MW_REQS - 1); n < MW_REQS;
	     n++, i = (i + 1) & (MW_REQS - 1)) {
		if (reqs[i].key == k)
			return &reqs[i];
		if (!reqs[i].key)
			return add ? &reqs[i] : NULL;
	}
	return NULL;
}

bool mw_req_add(MPI_Request r, const struct mw_req *e, uint64_t *id)
{
	uint64_t k = req_key(r);
	struct mw_slot *s;

	*id = 0;
	if (!k || r == MPI_REQUEST_NULL)
		return false;
	lock(&reqs_lock);
	s = slot_of(k, true);
	if (s) {
		s->key = k;
		s->e = *e;
		s->e.id = *id = next_req++;
	}
	unlock(&reqs_lock);
	return s != NULL;
}

bool mw_req_find(MPI_Request r, struct mw_req *e)
{
	uint64_t k = req_key(r);
	struct mw_slot *s;

	if (!k || r == MPI_REQUEST_NULL)
		return false;
	lock(&reqs_lock);
	s = slot_of(k, false);
	if (s)
		*e = s->e;
	unlock(&reqs_lock);
	return s != NULL;
}

/* Open addressing: the entries after a freed one move up into it. */
void mw_req_del(MPI_Request r)
{
	uint64_t k = req_key(r), h;
	unsigned int i, j, home;
	struct mw_slot *s;

	lock(&reqs_lock);
	s = k ? slot_of(k, false) : NULL;
	if (s) {
		i = s - reqs;
		s->key = 0;
		for (j = (i + 1) & (MW_REQS - 1); reqs[j].key;
		     j = (j + 1) & (MW_REQS - 1)) {
			h = reqs[j].key * 0x9e3779b97f4a7c15ULL;
			home = h >> 51 & (MW_REQS - 1);
			/* can j's entry live at i (i lies from home to j)? */
			if (((j - home) & (MW_REQS - 1)) >= ((j - i) & (MW_REQS - 1))) {
				reqs[i] = reqs[j];
				reqs[j].key = 0;
				i = j;
			}
		}
	}
	unlock(&reqs_lock);
}

void mw_req_set_active(MPI_Request r, bool active)
{
	struct mw_slot *s;

	lock(&reqs_lock);
	s = slot_of(req_key(r), false);
	if (s)
		s->e.active = active;
	unlock(&reqs_lock);
}

void mw_req_done(struct mw_call *c, const struct mw_req *e,
		 const MPI_Status *st)
{
	struct exp_rec_mpi_req q = { .req = e->id, .kind = e->func,
				     .peer = e->peer, .tag = e->tag,
				     .bytes = e->bytes };
	int cancelled = 0, w;
	uint32_t id = 0;

	mw_depth++;
	PMPI_Test_cancelled(st, &cancelled);
	mw_depth--;
	q.cancelled = !!cancelled;
	if (e->recv && !cancelled) {
		/*
		 * The communicator was learnt when the receive was posted; the
		 * program may have freed it since (its receives still
		 * complete), and a freed handle must not be asked about.
		 */
		if (st->MPI_SOURCE < 0)
			q.peer = EXP_MPI_NONE;
		else if (e->comm == MPI_COMM_WORLD)
			q.peer = st->MPI_SOURCE;
		else if (!comm_look(e->comm, st->MPI_SOURCE, &q.peer, &id, false))
			q.peer = EXP_MPI_NONE;
		q.tag = st->MPI_TAG;
		q.bytes = mw_status_bytes(st);
		c->m.nrecv++;
		c->m.rbytes += q.bytes;
		c->m.rposted += e->bytes;
		/* one source names it; several: none */
		c->m.src = c->m.nrecv == 1 || c->m.src == q.peer ? q.peer : EXP_MPI_NONE;
		c->m.rtag = c->m.nrecv == 1 || c->m.rtag == q.tag ? q.tag : EXP_MPI_NONE;
		if (e->comm == MPI_COMM_WORLD)
			c->m.comm = mw_comm_id(MPI_COMM_WORLD);
		else if (comm_look(e->comm, -1, &w, &id, false))
			c->m.comm = id;
	}
	if (e->recv && cancelled)
		q.bytes = 0;
	mw_api->emit_req(&q);
}
