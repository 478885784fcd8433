// SPDX-License-Identifier: GPL-2.0
/*
 * Which Java stack each sample of a JVM's thread gets (user and expert
 * modes, docs/guide/java.md).  The agent's stacks and the recorder's
 * samples are taken apart (a tick of the thread's own CPU clock in the
 * JVM, a clock packet in the kernel or perf), so they are paired here:
 *
 * - time the thread spent off CPU (a packet mostly not User, System or
 *   Trap CPU) inside a block the agent saw (sleep, park, wait, a
 *   contended monitor, a read) goes to the stack where it blocked;
 * - on CPU in JIT-compiled code, the sample's own pcs name the compiled
 *   frames (symbols/java.c's an_java_jit_node), under the callers of the
 *   tick chosen as below;
 * - otherwise the tick nearest in the thread's own CPU time: the
 *   thread's samples in time order give its CPU clock at each instant,
 *   a tick lies at some point of it and a sample covers an interval of
 *   it, and a tick at most one clock interval of CPU time away is taken
 *   (one fires every interval of it, so one always is while the thread
 *   runs Java code; half the distance between the ticks around it where
 *   a busy machine merged expiries), one on the same side of every
 *   block first; a tick
 *   the JVM could not walk stands for <no Java callstack recorded>, as
 *   does a sample with no tick near;
 * - a thread of the JVM that never ran Java (GC, the compilers, the VM
 *   thread) is <JVM-System> throughout, and so is a Java thread more
 *   than an interval of its CPU time before its first walked tick or
 *   after its last (the JVM starting it, ending).
 *
 * A wait that collect -s traced (the JVM's own pthread_cond_wait under
 * LockSupport.park, Object.wait, Thread.sleep) takes the stack of the
 * block it was in.  Expert mode adds, below a Java leaf that is a
 * native method, the native frames it called (the machine stack's, from
 * the innermost Java frame in).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/java.h"

#define JAVA_AGENT_SO	"liblwprof_jvmti"

static int oom(struct an *an)
{
	return an_errf(an, -ENOMEM, "out of memory");
}

/* Per sample: its span (the sum of its microstates) and its CPU part. */
struct span {
	uint64_t span, cpu;
};

static int spans_make(const struct an *an, struct span *sp)
{
	const struct an_base *b = an->bases.p;
	const uint64_t *v = an->s.vals;
	size_t i;
	uint32_t k;

	for (i = 0; i < an->s.n; i++) {
		const uint32_t *l = an_layout(an, an->s.layout[i]);

		sp[i].span = sp[i].cpu = 0;
		for (k = 1; k <= l[0]; k++) {
			if (b[l[k]].kind != AN_B_MSTATE)
				continue;
			sp[i].span += v[k - 1];
			if (b[l[k]].idx == LWPROF_MS_USER ||
			    b[l[k]].idx == LWPROF_MS_SYSTEM ||
			    b[l[k]].idx == LWPROF_MS_TRAP)
				sp[i].cpu += v[k - 1];
		}
		v += l[0];
	}
	return 0;
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct an_samples *s = arg;

	if (s->thr[x] != s->thr[y])
		return s->thr[x] < s->thr[y] ? -1 : 1;
	if (s->time[x] != s->time[y])
		return s->time[x] < s->time[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The stacks of (jvm, tid) in j->stacks: [*first, return). */
static size_t thread_stacks(const struct an_java *j, uint32_t jvm,
			    uint32_t tid, size_t *first)
{
	const struct an_jstack *s = j->stacks.p;
	size_t lo = 0, hi = j->stacks.n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s[mid].jvm < jvm || (s[mid].jvm == jvm && s[mid].tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < j->stacks.n && s[lo].jvm == jvm && s[lo].tid == tid)
		lo++;
	return lo;
}

static bool java_thread(const struct an_java *j, uint32_t jvm, uint32_t tid,
			bool stacks)
{
	const struct an_jthread *t = j->threads.p;
	size_t i;

	if (stacks)
		return true;
	for (i = 0; i < j->threads.n; i++)
		if (t[i].jvm == jvm && t[i].tid == tid)
			return true;
	return false;
}

/* One thread's samples (order[0..n), by time) and its stacks [first, end). */
struct thr {
	struct an *an;
	uint32_t jvm;
	bool reused;		/* an address of the JVM's code held by two */
	const uint32_t *order;
	size_t n, first, end;
	const struct span *sp;
	uint64_t interval;
	uint64_t *cum;		/* per sample: the thread's CPU time at its end */
	uint64_t *tick_c;	/* per tick: the CPU time at it */
	const struct an_jstack **tick;	/* the ticks, in time order */
	size_t nticks;
	uint64_t walked0, walked1;	/* CPU times of the first and last walked tick */
	uint32_t *nblk;		/* per stack from first: the blocks before it */
};

/* The thread's CPU time at each sample's end and at each tick. */
static void cpu_clock(struct thr *t)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	const struct an_samples *sm = &t->an->s;
	uint64_t c = 0, prev_t = 0, d;
	size_t k, q = t->first;

	t->nticks = 0;
	t->nblk[0] = 0;
	for (k = t->first; k < t->end; k++)
		t->nblk[k - t->first + 1] = t->nblk[k - t->first] +
					    (s[k].what != EXP_JW_TICK);
	for (k = 0; k <= t->n; k++) {
		uint64_t st = k < t->n ? sm->time[t->order[k]] : UINT64_MAX;
		uint64_t cpu = k < t->n ? t->sp[t->order[k]].cpu : 0;

		/* the ticks before this sample's end lie in its CPU time */
		for (; q < t->end && s[q].t <= st; q++) {
			if (s[q].what != EXP_JW_TICK)
				continue;
			d = s[q].t - prev_t;
			t->tick[t->nticks] = &s[q];
			t->tick_c[t->nticks++] = c + (d < cpu ? d : cpu);
		}
		if (k == t->n)
			break;
		c += cpu;
		t->cum[k] = c;
		prev_t = st;
	}
	t->walked0 = UINT64_MAX;
	t->walked1 = 0;
	for (q = 0; q < t->nticks; q++)
		if (t->tick[q]->nframes) {
			if (t->walked0 == UINT64_MAX)
				t->walked0 = t->tick_c[q];
			t->walked1 = t->tick_c[q];
		}
}

/* The first of the thread's stacks after time te (an index of j->stacks). */
static size_t stack_after(const struct thr *t, uint64_t te)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	size_t lo = t->first, hi = t->end, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s[mid].t <= te)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The block of off-CPU sample k that holds most of its time off CPU. */
static const struct an_jstack *block_for(const struct thr *t, size_t k)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	const struct span *sp = &t->sp[t->order[k]];
	uint64_t te = t->an->s.time[t->order[k]];
	uint64_t from = te > sp->span ? te - sp->span : 0, o0, o1;
	size_t lo = stack_after(t, te), q;

	for (q = lo; q > t->first && q + 4096 > lo; q--) {
		const struct an_jstack *b = &s[q - 1];

		if (b->what == EXP_JW_TICK)
			continue;
		o0 = b->t > from ? b->t : from;
		o1 = b->end < te ? b->end : te;
		if (o1 > o0 && 2 * (o1 - o0) >= sp->span - sp->cpu)
			return b;
		if (b->end < from)
			break;
	}
	return NULL;
}

/* The block the thread was in at time te (a traced call's end), or NULL. */
static const struct an_jstack *block_at(const struct thr *t, uint64_t te)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	size_t q, lo = stack_after(t, te);

	for (q = lo; q > t->first && q + 64 > lo; q--)
		if (s[q - 1].what != EXP_JW_TICK)
			return s[q - 1].end >= te ? &s[q - 1] : NULL;
	return NULL;
}

/*
 * The tick nearest sample k in the thread's CPU time within win of it
 * (mid_c the middle of its CPU time), by class: 0 walked by the JVM with
 * no block between it and the sample, 1 not walked, none between, 2 and
 * 3 the same across a block.  best[c], or NULL.
 */
static void ticks_near(const struct thr *t, size_t k, uint64_t mid_c,
		       uint64_t win, const struct an_jstack *best[4])
{
	const struct an_jstack *s0 = t->an->java->stacks.p;
	uint64_t best_d[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX }, d;
	size_t lo = 0, hi = t->nticks, m, q, pos, x, a, b;
	int c;

	pos = stack_after(t, t->an->s.time[t->order[k]]);
	while (lo < hi) {	/* the first tick at or after mid_c */
		m = (lo + hi) / 2;
		if (t->tick_c[m] < mid_c)
			lo = m + 1;
		else
			hi = m;
	}
	for (q = lo; q < t->nticks && t->tick_c[q] - mid_c <= win; q++)
		;
	hi = q;
	for (q = lo; q > 0 && mid_c - t->tick_c[q - 1] <= win; q--)
		;
	for (c = 0; c < 4; c++)
		best[c] = NULL;
	for (; q < hi; q++) {
		x = t->tick[q] - s0;	/* its index in the stacks */
		a = x < pos ? x + 1 : pos;
		b = x < pos ? pos : x;
		c = (t->nblk[b - t->first] != t->nblk[a - t->first]) * 2 +
		    !t->tick[q]->nframes;
		d = t->tick_c[q] > mid_c ? t->tick_c[q] - mid_c : mid_c - t->tick_c[q];
		if (d < best_d[c]) {
			best_d[c] = d;
			best[c] = t->tick[q];
		}
	}
}

/*
 * The tick for sample k: the nearest in the thread's CPU time within an
 * interval, one the JVM walked with no block between it and the sample
 * first (a block is where the program moves on: the stack before it is
 * not the one after).  Where the nearest is one the JVM could not walk
 * (HotSpot's runtime called from the interpreter is not walkable by
 * AsyncGetCallTrace), the nearest walked one of the same stretch (no
 * block between) up to JAVA_STRETCH intervals away stands for it; else
 * it stands for <no Java callstack recorded>.  NULL: no tick is near.
 */
#define JAVA_STRETCH	8

static const struct an_jstack *tick_for(const struct thr *t, size_t k)
{
	uint64_t cpu = t->sp[t->order[k]].cpu, mid_c = t->cum[k] - cpu / 2;
	uint64_t win = t->interval + cpu / 2;
	const struct an_jstack *best[4], *wide[4];
	size_t lo = 0, hi = t->nticks, m;
	int c;

	while (lo < hi) {	/* the ticks around mid_c */
		m = (lo + hi) / 2;
		if (t->tick_c[m] < mid_c)
			lo = m + 1;
		else
			hi = m;
	}
	/*
	 * A busy machine delivers a CPU-time timer late, its expiries
	 * merged into one signal: where the ticks around the sample are
	 * further apart than an interval, half their distance is near.
	 */
	if (lo > 0 && lo < t->nticks &&
	    (t->tick_c[lo] - t->tick_c[lo - 1]) / 2 > win)
		win = (t->tick_c[lo] - t->tick_c[lo - 1]) / 2;
	ticks_near(t, k, mid_c, win, best);
	if (best[0])
		return best[0];
	if (best[1]) {
		ticks_near(t, k, mid_c, JAVA_STRETCH * t->interval + cpu / 2, wide);
		return wide[0] ? wide[0] : best[1];
	}
	for (c = 2; c < 4; c++)
		if (best[c])
			return best[c];
	return NULL;
}

/*
 * Expert mode: below a Java leaf that is a native method, the native
 * frames of the machine stack from the innermost Java frame in.
 */
static uint32_t expert_node(struct an *an, uint32_t user, uint32_t machine,
			    const struct an_jstack *s)
{
	struct an_java *j = an->java;
	const struct an_jframe *leaf;
	uint32_t nat[256], n = 0, node = machine, pc;
	const struct an_pc *p;
	const struct an_obj *o;

	if (!s || !s->nframes)
		return user;
	leaf = &AN_VEC(j->frames, struct an_jframe, s->frames);
	if (leaf->method == UINT32_MAX ||
	    !AN_VEC(j->methods, struct an_jmethod, leaf->method).native)
		return user;
	while (node != UINT32_MAX && n < 256) {
		pc = AN_VEC(an->nodes, struct an_node, node).pc;
		p = &AN_VEC(an->pcs, struct an_pc, pc);
		o = &AN_VEC(an->objs, struct an_obj, p->obj);
		if (o->pseudo)
			break;	/* Java code, or no object: the native part ends */
		/* the agent's wrappers of blocking natives are not the program's */
		if (!o->name || strncmp(o->name, JAVA_AGENT_SO, strlen(JAVA_AGENT_SO)))
			nat[n++] = pc;
		node = AN_VEC(an->nodes, struct an_node, node).parent;
	}
	if (node == UINT32_MAX)
		return user;	/* no Java frame in it: nothing to tell apart */
	while (n-- && user != UINT32_MAX)
		user = an_node_intern(an, user, nat[n]);
	return user;
}

/* The user and expert nodes of one thread's samples. */
static int thread_nodes(struct thr *t, bool java)
{
	struct an *an = t->an;
	struct an_java *j = an->java;
	const struct an_jstack *s;
	uint32_t node, i;
	size_t k;

	if (!java) {
		node = an_pseudo_node(an, UINT32_MAX, &j->f_jvm_system, "<JVM-System>");
		if (node == UINT32_MAX)
			return -ENOMEM;
		for (k = 0; k < t->n; k++)
			j->user[t->order[k]] = j->expert[t->order[k]] = node;
		return 0;
	}
	cpu_clock(t);
	for (k = 0; k < t->n; k++) {
		i = t->order[k];
		if (t->reused) {	/* machine frames by the code of their time */
			an->s.stack[i] = an_java_machine_at(an, t->jvm, an->s.stack[i],
							    an->s.time[i]);
			if (an->s.stack[i] == UINT32_MAX)
				return -ENOMEM;
		}
		if (an_sample_traced(an, i))	/* a wait collect -s traced */
			s = block_at(t, an->s.time[i]);
		else if (t->sp[i].span > 2 * t->sp[i].cpu)
			s = block_for(t, k);
		else
			s = NULL;
		if (!s) {
			s = tick_for(t, k);
			/* running compiled code: its own pc names the methods */
			node = an_java_jit_node(an, t->jvm, an->s.stack[i],
						an->s.time[i], s);
			if (node == UINT32_MAX)
				return -ENOMEM;
			if (node != AN_JAVA_NONE) {
				j->user[i] = j->expert[i] = node;
				continue;
			}
		}
		if ((!s || !s->nframes) && (t->walked0 == UINT64_MAX ||
			   t->cum[k] + t->interval < t->walked0 ||
			   t->cum[k] > t->walked1 + t->interval + t->sp[i].cpu)) {
			/* before its first walked tick or after its last: the
			 * JVM starting it or ending (DestroyJavaVM) */
			node = an_pseudo_node(an, UINT32_MAX, &j->f_jvm_system,
					      "<JVM-System>");
			if (node == UINT32_MAX)
				return -ENOMEM;
			j->user[i] = j->expert[i] = node;
			continue;
		}
		if (!s || !s->nframes) {
			node = an_pseudo_node(an, UINT32_MAX, &j->f_no_jstack,
					      "<no Java callstack recorded>");
			if (node == UINT32_MAX)
				return -ENOMEM;
			j->user[i] = j->expert[i] = node;
			continue;
		}
		j->user[i] = an_java_stack_node(an, s);
		if (j->user[i] == UINT32_MAX)
			return -ENOMEM;
		j->expert[i] = expert_node(an, j->user[i], an->s.stack[i], s);
		if (j->expert[i] == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

int an_java_stacks(struct an *an)
{
	struct an_java *j = an->java;
	size_t n = an->s.n, i, g, first, end;
	struct span *sp = malloc(sizeof(*sp) * (n + 1));
	uint32_t *order = malloc(sizeof(*order) * (n + 1)), jvm;
	uint64_t *cum = malloc(sizeof(*cum) * (n + 1)), *tick_c = NULL;
	const struct an_jstack **tick = NULL;
	uint32_t *nblk = malloc(sizeof(*nblk) * (j->stacks.n + 1));
	int err = 0;

	j->user = malloc(sizeof(*j->user) * (n + 1));
	j->expert = malloc(sizeof(*j->expert) * (n + 1));
	tick_c = malloc(sizeof(*tick_c) * (j->stacks.n + 1));
	tick = malloc(sizeof(*tick) * (j->stacks.n + 1));
	if (!sp || !order || !cum || !tick_c || !tick || !nblk || !j->user ||
	    !j->expert) {
		err = -ENOMEM;
		goto out;
	}
	spans_make(an, sp);
	for (i = 0; i < n; i++) {
		order[i] = i;
		j->user[i] = j->expert[i] = an->s.stack[i];
	}
	qsort_r(order, n, sizeof(*order), order_cmp, &an->s);
	for (i = 0; i < n && !err; i = g) {
		const struct an_thread *th = &AN_VEC(an->threads, struct an_thread,
						     an->s.thr[order[i]]);
		struct thr t = { .an = an, .order = order + i, .sp = sp,
				 .cum = cum + i, .tick_c = tick_c, .tick = tick,
				 .nblk = nblk };

		for (g = i; g < n && an->s.thr[order[g]] == an->s.thr[order[i]]; g++)
			;
		jvm = an_jvm_find(j, th->exp, th->pid);
		if (jvm == UINT32_MAX)
			continue;	/* not a JVM's thread: its stacks as they are */
		end = thread_stacks(j, jvm, th->tid, &first);
		t.jvm = jvm;
		t.reused = an_java_reused(j, jvm);
		t.n = g - i;
		t.first = first;
		t.end = end;
		t.interval = AN_VEC(an->exps, struct an_exp, th->exp).log->clock_interval_ns;
		err = thread_nodes(&t, java_thread(j, jvm, th->tid, end > first));
	}
out:
	free(sp);
	free(order);
	free(cum);
	free(tick_c);
	free(tick);
	free(nblk);
	return err ? oom(an) : 0;
}
