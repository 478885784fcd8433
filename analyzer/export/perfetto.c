// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof export perfetto: a Perfetto trace (the protobuf TracePacket
 * stream of perfetto/protos/perfetto/trace/trace.proto) that
 * ui.perfetto.dev and trace_processor open:
 *  - a TrackDescriptor per process (pid, name) and per thread (pid, tid,
 *    name) under it;
 *  - on each thread's track, its microstate slices (TrackEvent begin and
 *    end, named by the state's title: "User CPU", "Sleep", ..., interned
 *    as event names): each
 *    packet's microstate times laid end to end before its time, so that
 *    a thread's slices sum to its Total Thread Time in print (the order
 *    of the states within one packet's interval is not recorded: waiting
 *    states first, then faults, system and user time, which is how a
 *    tick taken at the return to user mode sees them; a slice that
 *    continues one of the same state is one with it);
 *  - a PerfSample per clock or counter packet (pid, tid, cpu) with its
 *    call stack: the stacks, frames, function names and mappings interned
 *    (InternedData: a callstack per pc-trie node, root frame first, as
 *    trace_processor builds callsites from depth 0; a frame per pc, at
 *    its object's virtual address; a mapping per object with its address
 *    range, path and build id, the raw bytes).  A traced call is not a
 *    packet: it is no PerfSample;
 *  - the traced sync waits and I/O calls as slices (named by the call:
 *    "pthread_mutex_lock", "read") on a track of their own per thread,
 *    "TID traced calls", under the process (they overlap the microstate
 *    slices, which a track's slices may not); a call that outlasts the
 *    one it started in is cut at that one's end, as slices must nest.
 *    Heap calls stay out: they take no time to show, and their counts
 *    and bytes are the other exports' metrics;
 *  - MPI calls as slices on the same track ("MPI_Recv"), each rank's
 *    process named by its rank, and each message matched (load/mpi.c) a
 *    flow from its send's slice to an instant "message" at the end of
 *    the call that received it (a flow goes forward in time: a receive
 *    that waited for its sender began before the send).
 * The samples that pass the filters are the ones written; timestamps
 * are the experiment's (nanoseconds), moved later when a first packet's
 * interval would start before zero.  One packet sequence, its
 * incremental state cleared by the first packet; the descriptors and
 * interned data first, then every timestamped packet in time order
 * (trace_processor sorts a sequence only within a window), each track's
 * in the order its slices open and close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"
#include "analyzer/export/pb.h"
#include "libexp/mpi.h"
#include "libexp/mstate_names.h"

/* TracePacket's fields */
enum {
	TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
	TP_INTERNED = 12, TP_SEQ_FLAGS = 13, TP_TRACK_DESC = 60,
	TP_PERF_SAMPLE = 66, TP_FIRST_ON_SEQ = 87,
};
#define TRACE_PACKET	1	/* Trace.packet */
#define SEQ_ID		1
#define SEQ_CLEARED	1	/* SEQ_INCREMENTAL_STATE_CLEARED */
#define SEQ_NEEDS	2	/* SEQ_NEEDS_INCREMENTAL_STATE */
#define SLICE_BEGIN	1
#define SLICE_END	2
/* InternedData's fields */
enum {
	ID_EVENT_NAMES = 2, ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7,
	ID_BUILD_IDS = 16, ID_MAPPING_PATHS = 17, ID_MAPPINGS = 19,
};

/* track uuids: a thread's is small (it is in every slice), under 2^53 */
#define UUID_THREAD(i)		((uint64_t)(i) + 1)
#define UUID_PROC(exp, pid)	((uint64_t)((exp) + 1) << 32 | (pid))
#define UUID_CALLS(i)		((uint64_t)1 << 48 | (i))	/* thread i's calls */
#define NSTATES		(LWPROF_MS_COUNT + 1)	/* the microstates and idle */
#define IID_CALL(ev)	(NSTATES + 1 + (ev))	/* a traced call's name */
#define IID_MPI(f)	IID_CALL(EXP_TR_MAX + (f))	/* an MPI call's */
#define IID_MESSAGE	IID_MPI(EXP_MPI_F_MAX)	/* a message's arrival */
#define TE_FLOW_IDS	47	/* TrackEvent.flow_ids (fixed64) */
#define TE_FLOW_ENDS	48	/* TrackEvent.terminating_flow_ids */
#define SLICE_INSTANT	3
#define FLUSH_AT	(1u << 20)

/* The order of a packet's states within its interval; NSTATES - 1: idle */
static const int state_order[NSTATES] = {
	LWPROF_MS_SLEEP, LWPROF_MS_USER_LOCK, LWPROF_MS_STOPPED,
	LWPROF_MS_WAIT_CPU, LWPROF_MS_TFAULT, LWPROF_MS_DFAULT,
	LWPROF_MS_KFAULT, LWPROF_MS_TRAP, LWPROF_MS_SYSTEM, LWPROF_MS_USER,
	NSTATES - 1,
};

/* A timestamped packet to write, in time order (then gen: as made). */
enum { E_BEGIN, E_END, E_CALL_BEGIN, E_CALL_END, E_SAMPLE, E_MESSAGE };
struct pev {
	uint64_t ts;		/* shifted */
	uint32_t gen;		/* the order it was made in */
	uint32_t a;		/* thread (E_*BEGIN, E_*END), sample (E_SAMPLE) */
	uint32_t b;		/* E_BEGIN: state; E_CALL_BEGIN: event */
	uint32_t kind;
	uint32_t mpi;		/* E_CALL_BEGIN, E_MESSAGE: the MPI call, or UINT32_MAX */
};

/* A traced call to show: its thread and interval, its event. */
struct pcall {
	uint32_t thr, event;	/* event: EXP_TR_MAX + an MPI function */
	uint64_t t0, t1;
	uint32_t mpi;		/* its an->mpi entry, or UINT32_MAX */
};

/* A message's flow: its id and an end of it (an MPI call). */
struct pflow {
	uint32_t call;
	uint64_t id;
};

/* A thread's slice not written yet: the next may continue it. */
struct open_slice {
	uint32_t thr;
	int state;		/* -1: none */
	uint64_t start, end;
};

struct pf {
	struct an *an;
	const struct an_settings *vs;
	FILE *f;
	struct pb b;
	int8_t *state;		/* per base: its state (0..NSTATES-1), or -1 */
	uint64_t shift;		/* added to every timestamp */
	struct open_slice os;
	struct an_vec evs;	/* struct pev */
	struct an_vec calls;	/* struct pcall, by thread and start */
	uint8_t *has_calls;	/* per thread */
	uint8_t ev_used[EXP_TR_MAX];
	uint8_t mpi_used[EXP_MPI_F_MAX];
	uint8_t *mpi_shown;	/* per MPI call: a slice of it is written */
	struct an_vec from, to;	/* struct pflow: by sending, receiving call */
	int err;
};

static void packet_open(struct pf *p, uint32_t flags)
{
	pb_open(&p->b, TRACE_PACKET);
	pb_uint(&p->b, TP_SEQ_ID, SEQ_ID);
	if (flags)
		pb_uint(&p->b, TP_SEQ_FLAGS, flags);
}

/* Close a packet, and write what is buffered once it is big enough. */
static void packet_close(struct pf *p)
{
	pb_close(&p->b);
	if (p->b.n >= FLUSH_AT && !p->err) {
		p->err = pb_write(&p->b, p->f, 0);
		pb_reset(&p->b);
	}
}

static const char *state_title(int s)
{
	return s == NSTATES - 1 ? "Idle" : exp_mstate_names[s].label;
}

static void descriptors(struct pf *p)
{
	struct an *an = p->an;
	char pname[48];
	size_t i, j;
	int rank;

	for (i = 0; i < an->threads.n; i++) {
		const struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);
		const struct an_thread *main = t;
		bool first = true;

		/* a process: at its first thread, named by its main thread */
		for (j = 0; j < an->threads.n; j++) {
			const struct an_thread *u = &AN_VEC(an->threads, struct an_thread, j);

			if (u->exp != t->exp || u->pid != t->pid)
				continue;
			if (j < i)
				first = false;
			if (u->tid == u->pid)
				main = u;
		}
		if (first) {
			packet_open(p, 0);
			pb_open(&p->b, TP_TRACK_DESC);
			pb_uint(&p->b, 1, UUID_PROC(t->exp, t->pid));
			pb_open(&p->b, 3);	/* ProcessDescriptor */
			pb_uint(&p->b, 1, t->pid);
			rank = AN_VEC(an->exps, struct an_exp, t->exp).rank;
			snprintf(pname, sizeof(pname), "rank %d: %s", rank,
				 main->comm);
			if (rank >= 0)
				pb_str(&p->b, 6, pname);
			else if (main->comm[0])
				pb_str(&p->b, 6, main->comm);
			pb_close(&p->b);
			pb_close(&p->b);
			packet_close(p);
		}
		packet_open(p, 0);
		pb_open(&p->b, TP_TRACK_DESC);
		pb_uint(&p->b, 1, UUID_THREAD(i));
		pb_uint(&p->b, 5, UUID_PROC(t->exp, t->pid));
		pb_open(&p->b, 4);	/* ThreadDescriptor */
		pb_uint(&p->b, 1, t->pid);
		pb_uint(&p->b, 2, t->tid);
		if (t->comm[0])
			pb_str(&p->b, 5, t->comm);
		pb_close(&p->b);
		pb_close(&p->b);
		packet_close(p);
		if (p->has_calls[i]) {
			char name[64];

			snprintf(name, sizeof(name), "%u traced calls", t->tid);
			packet_open(p, 0);
			pb_open(&p->b, TP_TRACK_DESC);
			pb_uint(&p->b, 1, UUID_CALLS(i));
			pb_str(&p->b, 2, name);
			pb_uint(&p->b, 5, UUID_PROC(t->exp, t->pid));
			pb_close(&p->b);
			packet_close(p);
		}
	}
}

/* The states' names, interned (EventName iid: the state + 1), the calls'. */
static void state_names(struct pf *p)
{
	int s;

	packet_open(p, SEQ_NEEDS);
	pb_open(&p->b, TP_INTERNED);
	for (s = 0; s < NSTATES; s++) {
		pb_open(&p->b, ID_EVENT_NAMES);
		pb_uint(&p->b, 1, s + 1);
		pb_str(&p->b, 2, state_title(s));
		pb_close(&p->b);
	}
	for (s = 0; s < EXP_TR_MAX; s++) {
		if (!p->ev_used[s])
			continue;
		pb_open(&p->b, ID_EVENT_NAMES);
		pb_uint(&p->b, 1, IID_CALL(s));
		pb_str(&p->b, 2, exp_trace_event(s)->name);
		pb_close(&p->b);
	}
	for (s = 0; s <= EXP_MPI_F_MAX; s++) {
		if (s < EXP_MPI_F_MAX && !p->mpi_used[s])
			continue;
		pb_open(&p->b, ID_EVENT_NAMES);
		pb_uint(&p->b, 1, IID_MPI(s));
		pb_str(&p->b, 2, s < EXP_MPI_F_MAX ? exp_mpi_funcs[s].name : "message");
		pb_close(&p->b);
	}
	pb_close(&p->b);
	packet_close(p);
}

/* A packet to write at ts (unshifted), in the order made among its time's. */
static void event(struct pf *p, uint64_t ts, uint32_t kind, uint32_t a,
		  uint32_t b)
{
	struct pev *e;

	if (p->evs.n >= UINT32_MAX) {
		p->err = p->err ? p->err : -EFBIG;
		return;
	}
	e = an_vec_push(&p->evs);
	if (!e) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	*e = (struct pev){ ts + p->shift, p->evs.n - 1, a, b, kind, UINT32_MAX };
}

/* The same, of MPI call mpi. */
static void event_mpi(struct pf *p, uint64_t ts, uint32_t kind, uint32_t a,
		      uint32_t b, uint32_t mpi)
{
	event(p, ts, kind, a, b);
	if (!p->err)
		AN_VEC(p->evs, struct pev, p->evs.n - 1).mpi = mpi;
}

/* A slice's begin (state s) or end (s < 0) on thread thr's track. */
static void slice(struct pf *p, uint32_t thr, uint64_t ts, int type, int s)
{
	event(p, ts, type == SLICE_BEGIN ? E_BEGIN : E_END, thr, s);
}

static void slice_flush(struct pf *p)
{
	if (p->os.state < 0)
		return;
	slice(p, p->os.thr, p->os.start, SLICE_BEGIN, p->os.state);
	slice(p, p->os.thr, p->os.end, SLICE_END, -1);
	p->os.state = -1;
}

/* Thread thr in state s over [at, at + d): one slice with its neighbour
 * when it continues it. */
static void slice_add(struct pf *p, uint32_t thr, int s, uint64_t at,
		      uint64_t d)
{
	if (p->os.state == s && p->os.thr == thr && p->os.end == at) {
		p->os.end += d;
		return;
	}
	slice_flush(p);
	p->os = (struct open_slice){ thr, s, at, at + d };
}

/* Sample i's time in each state (ns), added to d[]; their sum. */
static uint64_t sample_states(struct pf *p, size_t i, size_t voff, uint64_t *d)
{
	const uint32_t *l = an_layout(p->an, p->an->s.layout[i]);
	uint64_t sum = 0;
	uint32_t j;

	for (j = 1; j <= l[0]; j++) {
		int s = p->state[l[j]];

		if (s >= 0) {
			d[s] += p->an->s.vals[voff + j - 1];
			sum += p->an->s.vals[voff + j - 1];
		}
	}
	return sum;
}

/*
 * The samples idx[i..] of idx[i]'s thread and time (a packet, or its two
 * parts): their time in each state added to d[], the sum in *sum; the
 * index after them.
 */
static size_t packet_states(struct pf *p, const size_t *idx, const size_t *voff,
			    size_t n, size_t i, uint64_t *d, uint64_t *sum)
{
	const struct an_samples *s = &p->an->s;
	size_t j;

	*sum = 0;
	for (j = i; j < n && s->thr[idx[j]] == s->thr[idx[i]] &&
	     s->time[idx[j]] == s->time[idx[i]]; j++)
		*sum += sample_states(p, idx[j], voff[idx[j]], d);
	return j;
}

static int by_thread_time(const void *a, const void *b, void *ctx)
{
	const struct an_samples *s = &((struct an *)ctx)->s;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (s->thr[x] != s->thr[y])
		return s->thr[x] < s->thr[y] ? -1 : 1;
	if (s->time[x] != s->time[y])
		return s->time[x] < s->time[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The slices: per thread, the passing samples in time order; the samples
 * of one time (a packet's parts) are one interval.
 */
static int slices(struct pf *p, const size_t *idx, const size_t *voff,
		  size_t n)
{
	struct an *an = p->an;
	size_t i = 0, j;
	uint64_t cursor = 0;
	uint32_t thr = UINT32_MAX;
	int k;

	/* the shift: no interval may start before zero */
	for (i = 0; i < n; i = j) {
		uint64_t d[NSTATES] = { 0 }, sum, t = an->s.time[idx[i]];

		j = packet_states(p, idx, voff, n, i, d, &sum);
		if (sum > t && sum - t > p->shift)
			p->shift = sum - t;
	}
	for (i = 0; i < n && !p->err; i = j) {
		uint64_t d[NSTATES] = { 0 }, sum, t = an->s.time[idx[i]], at;

		j = packet_states(p, idx, voff, n, i, d, &sum);
		if (an->s.thr[idx[i]] != thr) {
			thr = an->s.thr[idx[i]];
			cursor = 0;
		}
		t += p->shift;
		/* a packet overlapping the one before starts after it */
		at = t - sum > cursor ? t - sum : cursor;
		at -= p->shift;
		for (k = 0; k < NSTATES; k++) {
			int s = state_order[k];

			if (!d[s])
				continue;
			slice_add(p, thr, s, at, d[s]);
			at += d[s];
		}
		cursor = at + p->shift;
	}
	slice_flush(p);
	return p->err;
}

static void interned_str(struct pb *b, uint32_t field, uint64_t iid,
			 const char *s)
{
	pb_open(b, field);
	pb_uint(b, 1, iid);
	pb_str(b, 2, s);
	pb_close(b);
}

/* Every stack a written sample has, with its frames, names and mappings. */
static int interned(struct pf *p, const uint8_t *node_used)
{
	struct an *an = p->an;
	uint8_t *pc_used = calloc(an->pcs.n + 1, 1);
	uint8_t *fn_used = calloc(an->funcs.n + 1, 1);
	uint8_t *obj_used = calloc(an->objs.n + 1, 1);
	uint32_t *path = malloc((an->nodes.n + 1) * sizeof(*path));
	size_t i;

	if (!pc_used || !fn_used || !obj_used || !path) {
		free(pc_used);
		free(fn_used);
		free(obj_used);
		free(path);
		return -ENOMEM;
	}
	packet_open(p, SEQ_NEEDS);
	pb_open(&p->b, TP_INTERNED);
	for (i = 0; i < an->nodes.n; i++) {
		uint32_t nd, np = 0;

		if (!node_used[i])
			continue;
		for (nd = i; nd != UINT32_MAX;
		     nd = AN_VEC(an->nodes, struct an_node, nd).parent) {
			path[np++] = AN_VEC(an->nodes, struct an_node, nd).pc;
			pc_used[path[np - 1]] = 1;
		}
		pb_open(&p->b, ID_CALLSTACKS);
		pb_uint(&p->b, 1, i + 1);
		while (np)	/* root first; not packed (proto2) */
			pb_uint(&p->b, 2, path[--np] + 1);
		pb_close(&p->b);
	}
	for (i = 0; i < an->pcs.n; i++) {
		const struct an_pc *pc = &AN_VEC(an->pcs, struct an_pc, i);
		uint32_t fn = an_pc_func(an, pc);
		uint32_t obj = AN_VEC(an->funcs, struct an_func, fn).obj;

		if (!pc_used[i])
			continue;
		fn_used[fn] = obj_used[obj] = 1;
		pb_open(&p->b, ID_FRAMES);
		pb_uint(&p->b, 1, i + 1);
		pb_uint(&p->b, 2, fn + 1);
		pb_uint(&p->b, 3, obj + 1);
		pb_uint(&p->b, 4, pc->ret == 2 ? 0 : pc->addr);
		pb_close(&p->b);
	}
	for (i = 0; i < an->funcs.n; i++)
		if (fn_used[i])
			interned_str(&p->b, ID_FUNCTION_NAMES, i + 1,
				     an_func_name(an, i, p->vs->name_long));
	for (i = 0; i < an->objs.n; i++) {
		char id[80];
		uint8_t raw[40];
		size_t nraw = 0;
		uint64_t lo, hi;

		if (!obj_used[i])
			continue;
		interned_str(&p->b, ID_MAPPING_PATHS, i + 1,
			     AN_VEC(an->objs, struct an_obj, i).path);
		/* Perfetto's build ids are the raw bytes */
		if (an_export_buildid(an, i, id, sizeof(id)))
			while (nraw < sizeof(raw) && id[2 * nraw] && id[2 * nraw + 1] &&
			       sscanf(id + 2 * nraw, "%2hhx", &raw[nraw]) == 1)
				nraw++;
		if (nraw) {
			pb_open(&p->b, ID_BUILD_IDS);
			pb_uint(&p->b, 1, i + 1);
			pb_bytes(&p->b, 2, raw, nraw);
			pb_close(&p->b);
		}
		pb_open(&p->b, ID_MAPPINGS);
		pb_uint(&p->b, 1, i + 1);
		if (nraw)
			pb_uint(&p->b, 2, i + 1);
		if (an_export_obj_range(an, i, &lo, &hi)) {
			pb_uint(&p->b, 4, lo);
			pb_uint(&p->b, 5, hi);
		}
		pb_uint(&p->b, 7, i + 1);
		pb_close(&p->b);
	}
	pb_close(&p->b);
	packet_close(p);
	free(pc_used);
	free(fn_used);
	free(obj_used);
	free(path);
	return pb_err(&p->b);
}

static int by_ts(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/*
 * The PerfSamples: a packet's (of a split one, its whole-stack part,
 * CONT), not a traced call's; their stacks marked in node_used.
 */
static void samples(struct pf *p, const size_t *idx, size_t n,
		    uint8_t *node_used)
{
	struct an *an = p->an;
	size_t i;

	for (i = 0; i < n; i++)
		if (!(an->s.part[idx[i]] & AN_PART_USER) && !an_sample_traced(an, idx[i])) {
			node_used[an->s.stack[idx[i]]] = 1;
			event(p, an->s.time[idx[i]], E_SAMPLE, idx[i], 0);
		}
}

static int by_thread_start(const void *a, const void *b)
{
	const struct pcall *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	/* of two starting together, the longer encloses the other */
	return x->t1 > y->t1 ? -1 : x->t1 < y->t1;
}

static int by_call(const void *a, const void *b)
{
	const struct pflow *x = a, *y = b;

	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The messages both of whose calls are shown: a flow each. */
static int flows_find(struct pf *p)
{
	struct an *an = p->an;
	struct pflow *f, *t;
	size_t i;

	p->from.esz = p->to.esz = sizeof(struct pflow);
	for (i = 0; i < an->mpi_msgs.n; i++) {
		const struct an_mmsg *m = &AN_VEC(an->mpi_msgs, struct an_mmsg, i);

		if (!p->mpi_shown[m->send] || !p->mpi_shown[m->recv])
			continue;
		f = an_vec_push(&p->from);
		t = an_vec_push(&p->to);
		if (!f || !t)
			return -ENOMEM;
		*f = (struct pflow){ m->send, i + 1 };
		*t = (struct pflow){ m->recv, i + 1 };
	}
	an_vec_sort(&p->from, by_call);
	an_vec_sort(&p->to, by_call);
	return 0;
}

/* Write the ids of v's flows of call (field: begin or end them). */
static void flow_ids(struct pf *p, const struct an_vec *v, uint32_t call,
		     uint32_t field)
{
	const struct pflow *f = v->p;
	size_t lo = 0, hi = v->n, m;

	while (lo < hi) {	/* the first of call */
		m = (lo + hi) / 2;
		if (f[m].call < call)
			lo = m + 1;
		else
			hi = m;
	}
	for (; lo < v->n && f[lo].call == call; lo++)
		pb_fixed64(&p->b, field, f[lo].id);
}

/* Has call an end of a flow in v? */
static bool has_flow(const struct an_vec *v, uint32_t call)
{
	struct pflow key = { call, 0 };
	const struct pflow *f = v->p;
	size_t lo = 0, hi = v->n, m;

	while (lo < hi) {
		m = (lo + hi) / 2;
		if (by_call(&f[m], &key) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < v->n && f[lo].call == call;
}

/* The sync waits and I/O calls whose samples pass the filters, by thread. */
static int calls_find(struct pf *p)
{
	struct an *an = p->an;
	size_t i;

	p->calls.esz = sizeof(struct pcall);
	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *v = &AN_VEC(an->tev, struct an_tev, i);
		const struct exp_trace_event_info *e = exp_trace_event(v->event);
		struct pcall *c;

		if (!e || e->cls == EXP_TC_ALLOC || e->cls == EXP_TC_FREE ||
		    e->cls == EXP_TC_NONE || v->sample == UINT32_MAX ||
		    (p->vs->filter && !an_filter_pass(an, p->vs->filter, v->sample)))
			continue;
		c = an_vec_push(&p->calls);
		if (!c)
			return -ENOMEM;
		*c = (struct pcall){ an->s.thr[v->sample], v->event, v->t0,
				     v->t1 > v->t0 ? v->t1 : v->t0, UINT32_MAX };
		p->has_calls[c->thr] = 1;
		p->ev_used[v->event] = 1;
	}
	for (i = 0; i < an->mpi.n; i++) {
		const struct an_mcall *m = &AN_VEC(an->mpi, struct an_mcall, i);
		struct pcall *c;

		if (m->sample == UINT32_MAX ||
		    (p->vs->filter && !an_filter_pass(an, p->vs->filter, m->sample)))
			continue;
		c = an_vec_push(&p->calls);
		if (!c)
			return -ENOMEM;
		*c = (struct pcall){ an->s.thr[m->sample], EXP_TR_MAX + m->func,
				     m->t0, m->t1 > m->t0 ? m->t1 : m->t0, i };
		p->has_calls[c->thr] = 1;
		p->mpi_used[m->func] = 1;
		p->mpi_shown[i] = 1;
	}
	an_vec_sort(&p->calls, by_thread_start);
	return flows_find(p);
}

/*
 * The calls' slices, per thread: a call begins after the ends of those
 * that ended before it; one still open when it starts encloses it, and
 * its end is cut to that one's if it outlasts it.
 */
static int calls(struct pf *p)
{
	size_t i, top = 0;
	uint64_t *end = malloc((p->calls.n + 1) * sizeof(*end));
	uint32_t thr = UINT32_MAX;

	if (!end)
		return -ENOMEM;
	for (i = 0; i <= p->calls.n; i++) {
		const struct pcall *c = i < p->calls.n ?
			&AN_VEC(p->calls, struct pcall, i) : NULL;
		uint64_t t1;

		/* close what ended before c starts (all, at a new thread) */
		while (top && (!c || c->thr != thr || end[top - 1] <= c->t0)) {
			top--;
			event(p, end[top], E_CALL_END, thr, 0);
		}
		if (!c)
			break;
		thr = c->thr;
		t1 = top && c->t1 > end[top - 1] ? end[top - 1] : c->t1;
		event_mpi(p, c->t0, E_CALL_BEGIN, thr, c->event, c->mpi);
		/* a message it received arrives at its end, inside it */
		if (c->mpi != UINT32_MAX && has_flow(&p->to, c->mpi))
			event_mpi(p, t1, E_MESSAGE, thr, 0, c->mpi);
		end[top++] = t1;
	}
	free(end);
	return p->err;
}

/* Every timestamped packet, in time order. */
static int emit(struct pf *p)
{
	struct an *an = p->an;
	size_t i;

	an_vec_sort(&p->evs, by_ts);
	for (i = 0; i < p->evs.n && !p->err && !pb_err(&p->b); i++) {
		const struct pev *e = &AN_VEC(p->evs, struct pev, i);
		const struct an_thread *t;

		packet_open(p, SEQ_NEEDS);
		pb_uint(&p->b, TP_TIMESTAMP, e->ts);
		if (e->kind == E_SAMPLE) {
			t = &AN_VEC(an->threads, struct an_thread, an->s.thr[e->a]);
			pb_open(&p->b, TP_PERF_SAMPLE);
			pb_uint(&p->b, 1, an->s.cpu[e->a]);
			pb_uint(&p->b, 2, t->pid);
			pb_uint(&p->b, 3, t->tid);
			pb_uint(&p->b, 4, an->s.stack[e->a] + 1);
			pb_close(&p->b);
		} else if (e->kind == E_MESSAGE) {
			pb_open(&p->b, TP_TRACK_EVENT);
			pb_uint(&p->b, 9, SLICE_INSTANT);
			pb_uint(&p->b, 11, UUID_CALLS(e->a));
			pb_uint(&p->b, 10, IID_MESSAGE);
			flow_ids(p, &p->to, e->mpi, TE_FLOW_ENDS);
			pb_close(&p->b);
		} else {
			bool call = e->kind == E_CALL_BEGIN || e->kind == E_CALL_END;
			bool begin = e->kind == E_BEGIN || e->kind == E_CALL_BEGIN;

			pb_open(&p->b, TP_TRACK_EVENT);
			pb_uint(&p->b, 9, begin ? SLICE_BEGIN : SLICE_END);
			pb_uint(&p->b, 11, call ? UUID_CALLS(e->a) : UUID_THREAD(e->a));
			if (begin)	/* name_iid */
				pb_uint(&p->b, 10, call ? IID_CALL(e->b) : e->b + 1);
			if (e->kind == E_CALL_BEGIN && e->mpi != UINT32_MAX)
				flow_ids(p, &p->from, e->mpi, TE_FLOW_IDS);
			pb_close(&p->b);
		}
		packet_close(p);
	}
	return p->err ? p->err : pb_err(&p->b);
}

int an_export_perfetto(struct an *an, const struct an_settings *vs, FILE *f)
{
	struct pf p = { .an = an, .vs = vs, .f = f, .os.state = -1 };
	size_t *idx = NULL, *voff = NULL, n = 0, i, v = 0;
	uint8_t *node_used = NULL;
	int err = -ENOMEM;

	pb_init(&p.b);
	p.evs.esz = sizeof(struct pev);
	p.state = malloc(an->bases.n + 1);
	idx = malloc((an->s.n + 1) * sizeof(*idx));
	voff = malloc((an->s.n + 1) * sizeof(*voff));
	node_used = calloc(an->nodes.n + 1, 1);
	p.has_calls = calloc(an->threads.n + 1, 1);
	p.mpi_shown = calloc(an->mpi.n + 1, 1);
	if (!p.state || !idx || !voff || !node_used || !p.has_calls ||
	    !p.mpi_shown)
		goto out;
	for (i = 0; i < an->bases.n; i++) {
		const struct an_base *b = &AN_VEC(an->bases, struct an_base, i);

		p.state[i] = b->kind == AN_B_MSTATE ? (int8_t)b->idx :
			     b->kind == AN_B_IDLE ? NSTATES - 1 : -1;
	}
	for (i = 0; i < an->s.n; i++) {
		voff[i] = v;
		v += an_layout(an, an->s.layout[i])[0];
		if (!vs->filter || an_filter_pass(an, vs->filter, i))
			idx[n++] = i;
	}
	qsort_r(idx, n, sizeof(*idx), by_thread_time, an);
	err = calls_find(&p);
	if (!err)
		err = slices(&p, idx, voff, n);
	if (!err) {
		samples(&p, idx, n, node_used);
		err = calls(&p);
	}
	if (err)
		goto out;
	packet_open(&p, SEQ_CLEARED);
	pb_uint(&p.b, TP_FIRST_ON_SEQ, 1);
	packet_close(&p);
	descriptors(&p);
	state_names(&p);
	err = interned(&p, node_used);
	if (!err)
		err = emit(&p);
	if (!err)
		err = p.err;
	if (!err)
		err = pb_write(&p.b, f, 0);
out:
	if (err)
		err = an_errf(an, err, "perfetto: %s", strerror(-err));
	pb_free(&p.b);
	free(p.state);
	free(p.has_calls);
	free(p.mpi_shown);
	free(p.from.p);
	free(p.to.p);
	free(node_used);
	free(idx);
	free(voff);
	free(p.evs.p);
	free(p.calls.p);
	return err;
}
