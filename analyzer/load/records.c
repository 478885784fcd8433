// SPDX-License-Identifier: GPL-2.0
/*
 * One record file, read through libexp/reader.h (which checks the
 * header, every record's framing and size, flags and layout); here what
 * the analyzer needs on top (times, pids, counters, sums, log.txt's
 * limits).  Damage is an error naming the file and the byte offset, and a
 * record cut short at the end of the file is a warning: the records before
 * it are used.  Samples go into the compact sample table with their raw
 * user stack interned per address space.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/load/load.h"
#include "libexp/java.h"
#include "libexp/omp.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/stack.h"
#include "libexp/mpi.h"
#include "libexp/trace.h"

#define TIME_SLACK_NS	(60ULL * 1000000000ULL)

struct rec_ctx {
	struct an *an;
	struct an_exp *e;
	uint32_t exp, file;	/* the file's id (libexp/exp.h) */
	const char *path;
	uint64_t off;		/* of the current record */
	bool time_warned;
	uint32_t last_pid, last_tid, last_thr, last_as;	/* lookup cache */
	/* the hashes of the samples ahead, for prefetching */
	uint64_t la1_off, la1_hash, la2_off, la2_hash;
	bool cur_ok;
	uint64_t cur_hash;
	struct exp_stack_scan sd;	/* delta stack copies: the bases */
	uint32_t last_unw;	/* the last sample's an_unw_ref, or UINT32_MAX */
	struct an_heapfile *heap;	/* the heap tracer's records, or NULL */
	uint32_t field_base;	/* of the sample in its record (a trace record's) */
	const struct exp_rec_mpi *mpi;	/* the MPI record whose call is read */
	struct exp_reader rd;
};

static uint32_t raw_flags(const struct lwprof_rec_sample *r)
{
	uint32_t flags = 0, f = r->hdr.flags;

	if (f & LWPROF_RS_TRUNC)
		flags |= AN_RAW_TRUNC;
	if (f & LWPROF_RS_IDLE)
		flags |= AN_RAW_IDLE;
	if (f & LWPROF_RS_HARDIRQ)
		flags |= AN_RAW_HARDIRQ;
	else if (f & LWPROF_RS_SOFTIRQ)
		flags |= AN_RAW_SOFTIRQ;
	if (f & LWPROF_RS_KBLOCK)
		flags |= AN_RAW_KBLOCK;
	if (!r->nr_user && !r->nr_kernel && !(flags & (AN_RAW_IDLE |
	    AN_RAW_HARDIRQ | AN_RAW_SOFTIRQ)))
		flags |= r->kind == LWPROF_SK_COUNTER ? AN_RAW_NOPROG : AN_RAW_UNKNOWN;
	return flags | (uint32_t)r->nr_kernel << AN_RAW_KSHIFT;
}

/* The analyzer reads x86-64's register set only (an_read_rec checks). */
static const uint64_t *raw_ips(const struct lwprof_rec_sample *r)
{
	return (const uint64_t *)exp_sample_ips(r, LWPROF_NR_REGS);
}

/*
 * Before the record just read (at c->off) is handled: hash the sample two
 * records ahead and prefetch its table slot, prefetch the pool entry of
 * the one after this (its slot was prefetched a record ago), and hand
 * this one its hash.  Only samples of the last process seen (its address
 * space is known) and whole in the reader's buffer take part.
 */
/*
 * A sample ahead, whole or compact (not checked yet: only what the hash
 * reads is in bounds): its frames, and in *hd the fields the hash reads
 * (flags, kind, pid, the frame counts) where a sample has them.
 */
static const uint64_t *peek_sample(const struct rec_ctx *c,
				   const struct lwprof_rec *h,
				   struct lwprof_rec_sample *hd)
{
	const struct lwprof_rec_sample *r = (const void *)h;
	const struct exp_rec_csample *cs = (const void *)h;
	uint64_t end;

	if (h->type == LWPROF_REC_SAMPLE) {
		if (h->size < sizeof(*r) ||
		    exp_sample_frames_end(r, LWPROF_NR_REGS) > h->size)
			return NULL;
		*hd = (struct lwprof_rec_sample){ .hdr.flags = h->flags,
			.kind = r->kind, .pid = r->pid, .nr_user = r->nr_user,
			.nr_kernel = r->nr_kernel };
		return raw_ips(r);
	}
	if (h->type != EXP_REC_CSAMPLE || c->rd.hdr.minor < EXP_MINOR_CSAMPLE ||
	    h->size < sizeof(*cs))
		return NULL;
	end = exp_csample_known(cs) - (((uint64_t)cs->stack_size + 7) & ~7ULL);
	if (end > h->size)
		return NULL;
	*hd = (struct lwprof_rec_sample){ .hdr.flags = h->flags,
		.kind = cs->kind, .pid = cs->pid, .nr_user = cs->nr_user,
		.nr_kernel = cs->nr_kernel };
	return (const uint64_t *)((const uint8_t *)h + end) -
	       ((uint32_t)cs->nr_user + cs->nr_kernel);
}

static void lookahead(struct rec_ctx *c)
{
	struct lwprof_rec_sample r;
	const struct lwprof_rec *h;
	const uint64_t *ips;
	uint64_t o = c->off, o1, o2;

	c->cur_ok = c->la1_off == o && c->la1_hash;
	c->cur_hash = c->la1_hash;
	c->la1_off = c->la2_off;
	c->la1_hash = c->la2_hash;
	c->la2_hash = 0;
	o1 = exp_reader_tell(&c->rd);
	if (c->la1_off == o1 && c->la1_hash)
		an_raw_prefetch(c->an, c->la1_hash, 1);
	h = exp_reader_peek(&c->rd, 2, &o2);
	ips = h ? peek_sample(c, h, &r) : NULL;
	if (!ips || r.pid != c->last_pid || !c->last_pid)
		return;
	c->la2_off = o2;
	c->la2_hash = an_raw_hash(c->last_as, ips, r.nr_user + r.nr_kernel,
				  raw_flags(&r));
	an_raw_prefetch(c->an, c->la2_hash, 0);
}

static int bad(struct rec_ctx *c, uint64_t field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct rec_ctx *c, uint64_t field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return an_errf(c->an, -EINVAL, "%s: byte %" PRIu64 ": %s", c->path,
		       c->off + c->field_base + field, msg);
}

/*
 * A record's time should be within the run (records are taken while
 * sampling is on).  One outside it is kept, with one warning per file: a
 * damaged time, or a clock the log does not describe.
 */
static void time_check(struct rec_ctx *c, uint64_t t)
{
	struct an_exp *e = c->e;

	if (c->time_warned || !e->log->start_ns)
		return;
	/* a flight recorder's window keeps its processes' older records */
	if ((t + TIME_SLACK_NS >= e->log->start_ns || e->log->flight) &&
	    (!e->log->end_ns || t <= e->log->end_ns + TIME_SLACK_NS))
		return;
	c->time_warned = true;
	an_warn(c->an, "%s: byte %" PRIu64 ": time %" PRIu64 " is outside the run (%" PRIu64 " to %" PRIu64 " ns); the first such record in this file",
		c->path, c->off + 8, t, e->log->start_ns, e->log->end_ns);
}

/*
 * The packets of ABI 1.4's whole-machine kernel profiling: an idle packet
 * (pid and tid 0, the only ones) is a clock packet without a user stack;
 * an interrupt packet holds TRAP time only, and no user stack.
 */
static int sample_kind_check(struct rec_ctx *c, const struct lwprof_rec_sample *r)
{
	uint16_t f = r->hdr.flags;
	int i;

	if (f & LWPROF_RS_IDLE) {
		if (r->pid || r->tid)
			return bad(c, 16, "idle packet of pid %u tid %u", r->pid, r->tid);
		if (r->kind != LWPROF_SK_CLOCK || r->nr_user)
			return bad(c, 2, "idle packet with a user stack or a counter");
	} else if (!r->pid || !r->tid) {
		return bad(c, 16, "pid %u tid %u", r->pid, r->tid);
	}
	if (!(f & (LWPROF_RS_HARDIRQ | LWPROF_RS_SOFTIRQ)))
		return 0;
	if ((f & LWPROF_RS_HARDIRQ) && (f & LWPROF_RS_SOFTIRQ))
		return bad(c, 2, "sample flags 0x%x: both HARDIRQ and SOFTIRQ", f);
	if (r->kind != LWPROF_SK_CLOCK || r->nr_user)
		return bad(c, 2, "interrupt packet with a user stack or a counter");
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (i != LWPROF_MS_TRAP && r->mstate_ns[i])
			return bad(c, 40 + 8 * i, "interrupt packet with time outside TRAP");
	return 0;
}

/*
 * CPU cpu's idle task: a thread of pid 0 per CPU (tid = the CPU), named
 * as Linux names it.
 */
static uint32_t idle_thread(struct an *an, uint32_t exp, uint32_t cpu)
{
	uint32_t thr = an_thread_get(an, exp, 0, cpu);
	struct an_thread *th;

	if (thr == UINT32_MAX)
		return thr;
	th = &AN_VEC(an->threads, struct an_thread, thr);
	if (!th->has_comm)
		snprintf(th->comm, sizeof(th->comm), "swapper/%u", cpu);
	return thr;
}

/*
 * A clock packet holds all its thread's time since its previous packet,
 * charged to the stack it was taken with; with kernel frames (-K) below
 * the user stack, its User CPU is not theirs: a tick in the kernel
 * carries the user time before the system call, a packet with the kernel
 * stack where the thread blocked (KBLOCK) the user time before it
 * blocked.  So User CPU goes on the user stack alone (AN_PART_USER), the
 * rest on the whole stack (AN_PART_CONT after a user part): System and
 * Trap CPU in the kernel path the thread was on (where a preempted thread
 * ran, the system call a sleeping one made), the off-CPU states where it
 * blocked.  A packet without user frames (a kernel thread's) has no User
 * CPU.  Fills part[] with the parts' records (their fixed part) and
 * kinds; returns how many (0: the packet as it is).
 */
static int user_parts(const struct lwprof_rec_sample *r,
		      struct lwprof_rec_sample part[2], uint8_t kind[2])
{
	uint64_t user = r->mstate_ns[LWPROF_MS_USER];
	int i;

	if (r->kind != LWPROF_SK_CLOCK || !r->nr_kernel || !r->nr_user ||
	    (r->hdr.flags & LWPROF_RS_EXIT) || !user)
		return 0;
	part[0] = *r;
	kind[0] = AN_PART_USER;
	part[0].value = user;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (i != LWPROF_MS_USER)
			part[0].mstate_ns[i] = 0;
	if (r->value == user)
		return 1;
	part[1] = *r;
	kind[1] = AN_PART_CONT;
	part[1].value = r->value - user;
	part[1].mstate_ns[LWPROF_MS_USER] = 0;
	return 2;
}

/*
 * Paused time (model/spans.c) is in no metric: a packet wholly in it is left
 * out (0), one partly in it keeps the unpaused share of each microstate
 * (its span is the time since the thread's last packet, the sum of its
 * microstates), in *cut (1); 2: as it is.
 */
static int unpaused(const struct an_exp *e, const struct lwprof_rec_sample *r,
		    struct lwprof_rec_sample *cut)
{
	uint64_t span = r->value, t0, keep, sum = 0;
	int i;

	if (r->kind != LWPROF_SK_CLOCK || !span)
		return an_unpaused(e, r->time_ns, r->time_ns + 1) ? 2 : 0;
	t0 = r->time_ns > span ? r->time_ns - span : 0;
	keep = an_unpaused(e, t0, r->time_ns);
	if (keep == span)
		return 2;
	if (!keep)
		return 0;
	*cut = *r;
	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		cut->mstate_ns[i] = (unsigned __int128)r->mstate_ns[i] * keep / span;
		sum += cut->mstate_ns[i];
	}
	cut->value = sum;
	return 1;
}

/*
 * A sample left out (paused time) still hands its stack copy to the
 * scan: it may be the base the next delta copies of its thread need
 * (LWPROF_RS_SBASE); dropping it would cost those samples their callers.
 */
static int keep_base(struct rec_ctx *c, const struct lwprof_rec_sample *r)
{
	const uint64_t *ips = raw_ips(r);
	const char *why = NULL;
	uint64_t at;
	int ok;

	if (!r->stack_size || (r->hdr.flags & LWPROF_RS_EXIT))
		return 0;
	ok = exp_stack_sample(&c->sd, c->off, r,
			      (const uint8_t *)(ips + r->nr_user + r->nr_kernel),
			      c->e->log->stack_bytes, &why, &at);
	if (ok == -ENOMEM)
		return an_errf(c->an, -ENOMEM, "out of memory");
	if (ok < 0)
		return bad(c, at, "%s", why);
	return 0;
}

/*
 * A sample record, or (t) a traced call's: its values are the call's
 * (trace.c), with no microstates and no parts.  A type-16 record's is its
 * own sample; a trace call record's (type 20) is made of its fields
 * (tcall_sample()), and its stack copy is the record's own (t->st).
 */
static int do_sample(struct rec_ctx *c, const struct lwprof_rec_sample *r,
		     const struct exp_tcall *t)
{
	static const uint64_t no_ips[1];
	const bool tc = t && t->type == EXP_REC_TCALL;
	const struct lwprof_rec_sample *v = r;	/* its values */
	struct lwprof_rec_sample cut;
	struct an *an = c->an;
	struct an_exp *e = c->e;
	uint64_t vals[AN_SAMPLE_VALUES_MAX], pvals[2][AN_SAMPLE_VALUES_MAX], at;
	struct lwprof_rec_sample part[2];
	uint32_t thr, as, raw, flags = 0, layout, play[2];
	const uint64_t *ips;
	struct an_thread *th;
	uint8_t kind[2];
	char msg[128];
	int nv, err, np, pnv[2], k;

	if (r->stack_size && !(r->hdr.flags & LWPROF_RS_REGS) && !tc)
		return bad(c, 124, "stack copy without registers");
	if (e->log->stack_bytes && r->stack_size > e->log->stack_bytes)
		return bad(c, 124, "stack copy of %u bytes, " EXP_LOG " says at most %u",
			   r->stack_size, e->log->stack_bytes);
	if (e->log->max_depth && (r->nr_user > e->log->max_depth + 1 ||
			     r->nr_kernel > e->log->max_depth + 1))
		return bad(c, 120, "%u user / %u kernel frames, max_depth is %u",
			   r->nr_user, r->nr_kernel, e->log->max_depth);
	time_check(c, r->time_ns);
	if (e->log->cpus_possible && r->cpu >= e->log->cpus_possible)
		return bad(c, 24, "cpu %u of %u", r->cpu, e->log->cpus_possible);
	err = sample_kind_check(c, r);
	if (err)
		return err;
	c->last_unw = UINT32_MAX;
	if (t && c->mpi) {
		nv = an_mpi_decode(an, c->mpi, &layout, vals);
	} else if (t) {
		nv = an_trace_decode(an, t, &layout, vals);
	} else {
		/* pauses apply to the sampled data; tracing goes on */
		if (e->pauses.n) {
			k = unpaused(e, r, &cut);
			if (!k) {
				e->dropped_paused++;
				return keep_base(c, r);
			}
			if (k == 1)
				v = &cut;
		}
		nv = an_decode_sample(an, e, v, &layout, vals, msg, sizeof(msg), &at);
	}
	if (nv == -ENOMEM)
		return an_errf(an, -ENOMEM, "out of memory");
	if (nv < 0)
		return bad(c, at, "%s", msg);
	np = t ? 0 : user_parts(v, part, kind);
	for (k = 0; k < np; k++) {
		pnv[k] = an_decode_sample(an, e, &part[k], &play[k], pvals[k], msg,
					  sizeof(msg), &at);
		if (pnv[k] == -ENOMEM)
			return an_errf(an, -ENOMEM, "out of memory");
		if (pnv[k] < 0)
			return bad(c, at, "%s", msg);
	}

	if (r->pid && r->pid == c->last_pid && r->tid == c->last_tid) {
		thr = c->last_thr;
		as = c->last_as;
	} else {
		thr = r->pid ? an_thread_get(an, c->exp, r->pid, r->tid) :
			idle_thread(an, c->exp, r->cpu);
		as = an_as_get(an, c->exp, r->pid, 0);
		c->last_pid = r->pid;
		c->last_tid = r->tid;
		c->last_thr = thr;
		c->last_as = as;
	}
	if (thr == UINT32_MAX || as == UINT32_MAX)
		return an_errf(an, -ENOMEM, "out of memory");
	th = &AN_VEC(an->threads, struct an_thread, thr);
	ips = tc ? no_ips : raw_ips(r);
	flags = raw_flags(r);
	raw = an_raw_intern_h(an, c->cur_ok && as == c->last_as ? c->cur_hash :
			      an_raw_hash(as, ips, r->nr_user + r->nr_kernel, flags),
			      as, ips, r->nr_user + r->nr_kernel, flags);
	if (raw == UINT32_MAX)
		return an_errf(an, -ENOMEM, "out of memory");
	if (t) {
		/* a traced call is no clock packet */
	} else if (r->kind == LWPROF_SK_CLOCK && (r->hdr.flags & LWPROF_RS_EXIT)) {
		uint32_t *x;

		an->ld->exits.esz = 4;
		x = an_vec_push(&an->ld->exits);
		if (!x)
			return an_errf(an, -ENOMEM, "out of memory");
		*x = an->s.n;
	} else if (r->kind == LWPROF_SK_CLOCK &&
		   !(r->hdr.flags & (LWPROF_RS_HARDIRQ | LWPROF_RS_SOFTIRQ)) &&
		   (!th->has_last || r->time_ns >= th->last_clock_ns)) {
		/* an exit packet goes where the thread's own time went last */
		th->has_last = true;
		th->last_clock = an->s.n;
		th->last_clock_ns = r->time_ns;
	}
	if (r->stack_size && !(r->hdr.flags & LWPROF_RS_EXIT)) {
		const uint8_t *stack = (const uint8_t *)(ips + r->nr_user + r->nr_kernel);
		struct an_unw_ref *u;
		const char *why = NULL;
		int ok;

		ok = tc ? exp_stack_tcall(&c->sd, c->off, t) :
			exp_stack_sample(&c->sd, c->off, r, stack,
					 e->log->stack_bytes, &why, &at);
		if (ok == -ENOMEM)
			return an_errf(an, -ENOMEM, "out of memory");
		if (ok < 0)
			return bad(c, at, "%s", why);
		if (!ok)
			goto no_copy;

		an->ld->deferred.esz = sizeof(*u);
		u = an_vec_push(&an->ld->deferred);
		if (!u)
			return an_errf(an, -ENOMEM, "out of memory");
		u->sample = an->s.n + (np ? np - 1 : 0);	/* parts: copied */
		u->exp = c->exp;
		u->file = c->file;
		u->off = c->off;
		u->as = as;
		u->flags = flags;
		c->last_unw = an->ld->deferred.n - 1;
	}
no_copy:
	if (!th->nsamples || r->time_ns < th->first_ns)
		th->first_ns = r->time_ns;
	if (r->time_ns > th->last_ns)
		th->last_ns = r->time_ns;
	th->nsamples++;
	e->nsamples++;
	if (!np && an_sample_add(an, r->time_ns, raw, thr, r->cpu, layout, vals,
				 nv, 0))
		return an_errf(an, -ENOMEM, "out of memory");
	for (k = 0; k < np; k++)
		if (an_sample_add(an, r->time_ns, raw, thr, r->cpu, play[k],
				  pvals[k], pnv[k], kind[k]))
			return an_errf(an, -ENOMEM, "out of memory");
	return 0;
}

/* The time of a record counted but not decoded, for an->tmin and tmax. */
static void skip_time(struct an *an, uint64_t t)
{
	if (t < an->ld->skip_tmin)
		an->ld->skip_tmin = t;
	if (t > an->ld->skip_tmax)
		an->ld->skip_tmax = t;
}

/*
 * A clock or counter packet the commands do not need (an->need): only
 * counted, as do_sample() would count it (-header's figures, the time
 * span), and not checked beyond what the reader checks.
 */
static int count_sample(struct rec_ctx *c, const struct lwprof_rec_sample *r)
{
	struct lwprof_rec_sample cut;

	time_check(c, r->time_ns);
	if (c->e->pauses.n && !unpaused(c->e, r, &cut)) {
		c->e->dropped_paused++;
		return 0;
	}
	c->e->nsamples++;
	skip_time(c->an, r->time_ns);
	return 0;
}

static int do_task(struct rec_ctx *c, const struct lwprof_rec_task *r)
{
	struct an_thread *th;
	struct an_task_ev *ev;
	uint32_t thr;

	if (r->event < LWPROF_TASK_START || r->event > LWPROF_TASK_COMM)
		return bad(c, 28, "unknown task event %u", r->event);
	time_check(c, r->time_ns);
	if (!r->pid || !r->tid)
		return bad(c, 16, "pid %u tid %u", r->pid, r->tid);
	thr = an_thread_get(c->an, c->exp, r->pid, r->tid);
	if (thr == UINT32_MAX)
		return an_errf(c->an, -ENOMEM, "out of memory");
	th = &AN_VEC(c->an->threads, struct an_thread, thr);
	/*
	 * The latest record by time names the thread, whatever file it is
	 * in (the files are read one after the other); a tie goes to the one
	 * read last.
	 */
	if (r->event != LWPROF_TASK_EXIT &&
	    (!th->has_comm || r->time_ns >= th->comm_ns)) {
		memcpy(th->comm, r->comm, sizeof(th->comm) - 1);
		th->comm_ns = r->time_ns;
		th->has_comm = true;
	}
	if (r->ppid && (!th->ppid || r->time_ns >= th->ppid_ns)) {
		th->ppid = r->ppid;
		th->ppid_ns = r->time_ns;
	}
	if (r->event == LWPROF_TASK_EXEC ||
	    (r->event == LWPROF_TASK_FORK && r->pid == r->tid)) {
		ev = an_vec_push(&c->an->ld->tasks);
		if (!ev)
			return an_errf(c->an, -ENOMEM, "out of memory");
		*ev = (struct an_task_ev){ c->exp, r->pid, r->ppid, r->event,
					   r->time_ns };
	}
	return 0;
}

/* 1.6: the session stopped recording a thread, or (pid 0) ended. */
static int do_stop(struct rec_ctx *c, const struct lwprof_rec_stop *r)
{
	struct an_thread *th;
	uint32_t thr;

	time_check(c, r->time_ns);
	if (!r->pid) {
		c->e->revoked = r->reason;
		c->e->revoked_ns = r->time_ns;
		return 0;
	}
	thr = an_thread_get(c->an, c->exp, r->pid, r->tid);
	if (thr == UINT32_MAX)
		return an_errf(c->an, -ENOMEM, "out of memory");
	th = &AN_VEC(c->an->threads, struct an_thread, thr);
	th->stop_reason = r->reason;
	th->stop_ns = r->time_ns;
	if (!th->has_comm) {
		memcpy(th->comm, r->comm, sizeof(th->comm) - 1);
		th->comm_ns = r->time_ns;
		th->has_comm = true;
	}
	return 0;
}

static int do_mmap(struct rec_ctx *c, const struct lwprof_rec_mmap *r)
{
	const char *path = r->path;
	struct an_map *m;
	uint32_t as, obj;

	if (r->pad0)
		return bad(c, 68, "mmap pad0 not zero");
	if (!r->len || r->start + r->len < r->start)
		return bad(c, 24, "mapping 0x%llx + 0x%llx",
			   (unsigned long long)r->start, (unsigned long long)r->len);
	if (!r->pid)
		return bad(c, 16, "mmap of pid 0");
	time_check(c, r->time_ns);
	as = an_as_get(c->an, c->exp, r->pid, 0);
	obj = an_obj_get(c->an, c->exp, path, r->dev_major, r->dev_minor, r->ino,
			 r->hdr.flags & LWPROF_MMAP_ANON);
	if (as == UINT32_MAX || obj == UINT32_MAX)
		return an_errf(c->an, -ENOMEM, "out of memory");
	m = an_vec_push(&AN_VEC(c->an->as, struct an_as, as).maps);
	if (!m)
		return an_errf(c->an, -ENOMEM, "out of memory");
	m->start = r->start;
	m->end = r->start + r->len;
	m->pgoff = r->pgoff;
	m->time_ns = r->time_ns;
	m->obj = obj;
	return 0;
}

/*
 * The sample fields of a trace call record (type 20) for do_sample(),
 * after the checks the analyzer makes of a sample's (with this record's
 * offsets): the CPU, the stack copy's size against log.txt's.
 */
static int tcall_sample(struct rec_ctx *c, const struct lwprof_rec *h,
			const struct exp_tcall *t, struct lwprof_rec_sample *s)
{
	const struct an_exp *e = c->e;
	uint32_t size = t->st ? t->st->size : 0;

	if (e->log->cpus_possible && t->cpu >= e->log->cpus_possible)
		return bad(c, offsetof(struct exp_rec_tcall, cpu), "cpu %u of %u",
			   t->cpu, e->log->cpus_possible);
	if (e->log->stack_bytes && size > e->log->stack_bytes)
		return bad(c, (const uint8_t *)t->st - (const uint8_t *)h,
			   "stack copy of %u bytes, " EXP_LOG " says at most %u",
			   size, e->log->stack_bytes);
	memset(s, 0, sizeof(*s));
	s->hdr.type = LWPROF_REC_SAMPLE;
	s->hdr.size = sizeof(*s);
	s->time_ns = t->time_ns;
	s->pid = t->pid;
	s->tid = t->tid;
	s->cpu = t->cpu;
	s->kind = LWPROF_SK_CLOCK;
	s->stack_size = size;
	return 0;
}

/*
 * What a traced call is to the commands' needs (AN_NEED_*).  A format
 * 1.4 call's stack copy may be the base of another kind's delta, and a
 * base is found only by decoding its sample: those go all or none.
 */
static uint32_t tcall_need(const struct exp_tcall *t)
{
	if (t->s)
		return AN_NEED_TRACE;
	switch (exp_trace_event(t->event)->cls) {
	case EXP_TC_ALLOC:
	case EXP_TC_FREE:
		return AN_NEED_HEAP;
	case EXP_TC_SYNC:
		return AN_NEED_SYNC;
	case EXP_TC_IOREAD:
	case EXP_TC_IOWRITE:
	case EXP_TC_IOOTHER:
		return AN_NEED_IO;
	default:
		return AN_NEED_TRACE;
	}
}

/*
 * Does traced call t get its entry of the side table?  Heap calls always
 * (their frees are matched with allocations there: leaks); a sync wait
 * or an I/O call only for views that take calls one by one
 * (AN_NEED_CALLS): its sample holds what the others sum.
 */
static bool one_by_one(const struct an *an, const struct exp_tcall *t)
{
	switch (exp_trace_event(t->event)->cls) {
	case EXP_TC_SYNC:
	case EXP_TC_IOREAD:
	case EXP_TC_IOWRITE:
	case EXP_TC_IOOTHER:
		return an->need & AN_NEED_CALLS;
	default:
		return true;
	}
}

/*
 * A traced call (libexp/trace.h: types 16, 18, 20): a sample with its
 * values, and an entry of the side table (one_by_one()); a free only the
 * entry.
 */
static int do_trace(struct rec_ctx *c, const struct lwprof_rec *h)
{
	uint32_t layout, sample = UINT32_MAX;
	struct lwprof_rec_sample fs;
	const struct lwprof_rec_sample *s = &fs;
	struct exp_tcall t;
	uint64_t vals[4];
	int err, nv;

	exp_tcall_view(h, &t);
	if (!(c->an->need & tcall_need(&t))) {
		/* counted only, as below (-header's traced calls) */
		time_check(c, t.time_ns);
		/* its stack copy stays the base of the next call's delta */
		if (t.st && (c->an->need & AN_NEED_TRACE) &&
		    exp_stack_tcall(&c->sd, c->off, &t) == -ENOMEM)
			return an_errf(c->an, -ENOMEM, "out of memory");
		if (an_trace_has_sample(&t)) {
			c->e->nsamples++;
			c->e->ncalls++;
			skip_time(c->an, t.time_ns);
		}
		return 0;
	}
	nv = an_trace_decode(c->an, &t, &layout, vals);
	if (nv < 0)
		return an_errf(c->an, -ENOMEM, "out of memory");
	if (nv > 0) {
		sample = c->an->s.n;
		if (t.s) {
			s = t.s;
			c->field_base = offsetof(struct exp_rec_trace, s);
		} else {
			err = tcall_sample(c, h, &t, &fs);
			if (err)
				return err;
		}
		err = do_sample(c, s, &t);
		c->field_base = 0;
		if (err)
			return err;
		c->e->ncalls++;
	} else {
		c->last_unw = UINT32_MAX;
		time_check(c, t.time_ns);
	}
	if (!one_by_one(c->an, &t))
		return 0;	/* its sample is all the views read */
	if (an_trace_add(c->an, c->exp, &t, sample, c->last_unw))
		return an_errf(c->an, -ENOMEM, "out of memory");
	return 0;
}

/* The heap tracer's records (format 1.10): load/heap.c's. */
static int do_heaprec(struct rec_ctx *c, const struct lwprof_rec *h)
{
	const char *why = NULL;
	uint32_t at;
	int err;

	if (!c->heap && !(c->heap = an_heap_open(c->an, c->exp)))
		return an_errf(c->an, -ENOMEM, "out of memory");
	switch (h->type) {
	case EXP_REC_TSTACK:
		err = an_heap_stack(c->heap, (const void *)h, &why);
		break;
	case EXP_REC_TZ:
		err = an_heap_tz(c->heap, (const void *)h, &why, &at);
		if (err == -EINVAL)
			return bad(c, 0, "deflated records: byte %u: %s", at, why);
		break;
	default:
		time_check(c, ((const struct exp_rec_theap *)h)->time_ns);
		err = an_heap_counts(c->heap, (const void *)h, &why);
		break;
	}
	if (err == -ENOMEM)
		return an_errf(c->an, -ENOMEM, "out of memory");
	return err ? bad(c, 0, "%s", why) : 0;
}

/*
 * An MPI call (libexp/mpi.h): a sample with its MPI values on the stack
 * of its call part, which is read as the trace call record it is, at its
 * own offset (the stack copies' bases and the unwinding find it there),
 * and an entry of the MPI table.
 */
static int do_mpi(struct rec_ctx *c, const struct exp_rec_mpi *m)
{
	const uint32_t part = offsetof(struct exp_rec_mpi, call);
	uint32_t sample = UINT32_MAX;
	struct lwprof_rec_sample fs;
	struct exp_tcall t;
	int err;

	exp_tcall_view(&m->call.hdr, &t);
	if (!(c->an->need & AN_NEED_MPI)) {
		time_check(c, t.time_ns);	/* counted only, as do_trace() */
		c->e->nsamples++;
		c->e->ncalls++;
		skip_time(c->an, t.time_ns);
		return 0;
	}
	c->off += part;
	err = tcall_sample(c, &m->call.hdr, &t, &fs);
	if (!err) {
		sample = c->an->s.n;
		c->mpi = m;
		err = do_sample(c, &fs, &t);
		c->mpi = NULL;
	}
	c->off -= part;
	if (err)
		return err;
	c->e->ncalls++;
	if (an_mpi_add(c->an, c->exp, m, &t, sample, c->last_unw))
		return an_errf(c->an, -ENOMEM, "out of memory");
	return 0;
}

static int do_record(struct rec_ctx *c, const uint8_t *p)
{
	const struct lwprof_rec *h = (const void *)p;

	switch (h->type) {
	case LWPROF_REC_SAMPLE:
		if (!(c->an->need & AN_NEED_SAMPLES))
			return count_sample(c, (const void *)p);
		return do_sample(c, (const void *)p, NULL);
	case EXP_REC_TCALL:
		if (c->rd.hdr.minor < EXP_MINOR_TCALL)
			return 0;	/* not this format's type: skipped */
		return do_trace(c, h);
	case EXP_REC_TRACE:
	case EXP_REC_TRACE_FREE:
		return do_trace(c, h);
	case EXP_REC_TSTACK:
	case EXP_REC_THEAP:
	case EXP_REC_TZ:
		if (c->rd.hdr.minor < EXP_MINOR_THEAP)
			return 0;	/* not this format's: skipped */
		return do_heaprec(c, h);
	case EXP_REC_TRACE_FILE:	/* names the side table's descriptors */
		if (!(c->an->need & AN_NEED_CALLS))
			return 0;
		return an_trace_file(c->an, c->exp, (const void *)p) ?
			an_errf(c->an, -ENOMEM, "out of memory") : 0;
	case EXP_REC_TRACE_UNTRACED:
		if (c->rd.hdr.minor < EXP_MINOR_UNTRACED)
			return 0;	/* not this format's: skipped */
		return exp_untraced_add(&c->e->untraced, (const void *)p) ?
			an_errf(c->an, -ENOMEM, "out of memory") : 0;
	case EXP_REC_OMP_RUNTIME:
	case EXP_REC_OMP_STACK:
	case EXP_REC_OMP_EVENT:
		if (c->rd.hdr.minor < EXP_MINOR_OMP)
			return 0;	/* not this format's: skipped */
		return an_omp_rec(c->an, c->exp, h) ?
			an_errf(c->an, -ENOMEM, "out of memory") : 0;
	case EXP_REC_OMP_FOLD:
		if (c->rd.hdr.minor < EXP_MINOR_OMP_FOLD)
			return 0;	/* not this format's: skipped */
		return an_omp_rec(c->an, c->exp, h) ?
			an_errf(c->an, -ENOMEM, "out of memory") : 0;
	case EXP_REC_MPI:
		if (c->rd.hdr.minor < EXP_MINOR_MPI)
			return 0;	/* not this format's: skipped */
		return do_mpi(c, (const void *)p);
	case EXP_REC_MPI_REQ:
		if (c->rd.hdr.minor < EXP_MINOR_MPI ||
		    !(c->an->need & AN_NEED_MPI))
			return 0;
		return an_mpi_req(c->an, c->exp, (const void *)p) ?
			an_errf(c->an, -ENOMEM, "out of memory") : 0;
	case LWPROF_REC_TASK:
		return do_task(c, (const void *)p);
	case LWPROF_REC_MMAP:
		return do_mmap(c, (const void *)p);
	case LWPROF_REC_LOST: {
		const struct lwprof_rec_lost *l = (const void *)p;

		if (l->pad0 || h->flags)
			return bad(c, 28, "lost record padding not zero");
		c->e->lost_read += l->lost;
		return 0;
	}
	case LWPROF_REC_STOP:
		if (c->rd.hdr.minor < EXP_MINOR_STOP)
			return 0;	/* not this format's: skipped */
		return do_stop(c, (const void *)p);
	case EXP_REC_JMETHOD:
	case EXP_REC_JCODE:
	case EXP_REC_JUNLOAD:
	case EXP_REC_JSTACK:
	case EXP_REC_JTHREAD:
		if (c->rd.hdr.minor < EXP_MINOR_JAVA)
			return 0;	/* not this format's: skipped */
		return an_java_rec(c->an, c->exp, h);
	default:
		return 0;	/* a later minor's record: skip by size */
	}
}

static void rec_warn(void *arg, const char *msg)
{
	an_warn(arg, "%s", msg);
}

int an_read_rec(struct an *an, uint32_t exp, uint32_t file)
{
	struct an_exp *e = &AN_VEC(an->exps, struct an_exp, exp);
	struct rec_ctx c = { .an = an, .e = e, .exp = exp, .file = file,
			     .path = exp_file_path(e->x, file) };
	struct exp_stacks *st = exp_stacks(e->x);
	const struct lwprof_rec *h;
	int err;

	if (!st)
		return an_errf(an, -ENOMEM, "out of memory");
	exp_stack_scan_begin(&c.sd, st, file);
	err = exp_file_open(e->x, file, &c.rd, rec_warn, an);
	if (err) {
		err = an_errf(an, err, "%s", c.rd.msg);
		goto out;
	}
	if (!exp_regs_x86_64(&c.rd.regs)) {
		err = bad(&c, 32, "registers of machine %u (DWARF mask 0x%llx): lwprof print reads x86-64's",
			  c.rd.regs.e_machine, (unsigned long long)c.rd.regs.mask);
		goto out;
	}
	while ((err = exp_reader_next(&c.rd, &h)) > 0) {
		c.off = c.rd.off;
		if (an->need & AN_NEED_SAMPLES)
			lookahead(&c);
		err = do_record(&c, (const uint8_t *)h);
		if (err)
			goto out;	/* said */
		c.e->nrecords++;
	}
	if (err == -ENODATA) {
		an_warn(an, "%s", c.rd.msg);	/* cut short: the rest is used */
		err = 0;
	} else if (err) {
		err = an_errf(an, err, "%s", c.rd.msg);
	}
out:
	exp_reader_close(&c.rd);
	if (c.sd.missing)
		an_warn(an, "%s: %" PRIu64 " delta stack copies without their base (records lost or damaged): those samples keep their frame-pointer stacks",
			c.path, c.sd.missing);
	exp_stack_scan_end(&c.sd);
	if (c.heap && an_heap_close(c.heap) && !err)
		err = an_errf(an, -ENOMEM, "out of memory");
	return err;
}
