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
 * - otherwise the tick nearest in the thread's own CPU time: the
 *   thread's samples in time order give its CPU clock at each instant,
 *   a tick lies at some point of it and a sample covers an interval of
 *   it, and a tick at most one clock interval of CPU time away is taken
 *   (one fires every interval of it, so one always is while the thread
 *   runs Java code); a tick the JVM could not walk stands for <no Java
 *   callstack recorded>, as does a sample with no tick near;
 * - a thread of the JVM that never ran Java (GC, the compilers, the VM
 *   thread) is <JVM-System> throughout, and so is a Java thread before
 *   its first Java stack and after its last (the JVM starting, ending).
 *
 * Expert mode adds, below a Java leaf that is a native method, the
 * native frames it called (the machine stack's, from the innermost Java
 * frame in).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/java.h"

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
	const uint32_t *order;
	size_t n, first, end;
	const struct span *sp;
	uint64_t interval;
	uint64_t *cum;		/* per sample: the thread's CPU time at its end */
	uint64_t *tick_c;	/* per tick: the CPU time at it */
	const struct an_jstack **tick;	/* the ticks, in time order */
	size_t nticks;
};

/* The thread's CPU time at each sample's end and at each tick. */
static void cpu_clock(struct thr *t)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	const struct an_samples *sm = &t->an->s;
	uint64_t c = 0, prev_t = 0, d;
	size_t k, q = t->first;

	t->nticks = 0;
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
}

/* The block of off-CPU sample k that holds most of its time off CPU. */
static const struct an_jstack *block_for(const struct thr *t, size_t k)
{
	const struct an_jstack *s = t->an->java->stacks.p;
	const struct span *sp = &t->sp[t->order[k]];
	uint64_t te = t->an->s.time[t->order[k]];
	uint64_t from = te > sp->span ? te - sp->span : 0, o0, o1;
	size_t lo = t->first, hi = t->end, mid, q;

	while (lo < hi) {	/* the first stack after te */
		mid = (lo + hi) / 2;
		if (s[mid].t <= te)
			lo = mid + 1;
		else
			hi = mid;
	}
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

/* The tick nearest sample k in the thread's CPU time, within an interval. */
static const struct an_jstack *tick_for(const struct thr *t, size_t k)
{
	uint64_t cpu = t->sp[t->order[k]].cpu, mid_c = t->cum[k] - cpu / 2, d;
	size_t lo = 0, hi = t->nticks, m;
	const struct an_jstack *best = NULL;
	uint64_t best_d = UINT64_MAX;

	while (lo < hi) {	/* the first tick at or after mid_c */
		m = (lo + hi) / 2;
		if (t->tick_c[m] < mid_c)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < t->nticks) {
		best_d = t->tick_c[lo] - mid_c;
		best = t->tick[lo];
	}
	if (lo > 0) {
		d = mid_c - t->tick_c[lo - 1];
		if (d < best_d) {
			best_d = d;
			best = t->tick[lo - 1];
		}
	}
	return best && best_d <= t->interval + cpu / 2 ? best : NULL;
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

	if (!s || !s->nframes)
		return user;
	leaf = &AN_VEC(j->frames, struct an_jframe, s->frames);
	if (leaf->method == UINT32_MAX ||
	    !AN_VEC(j->methods, struct an_jmethod, leaf->method).native)
		return user;
	while (node != UINT32_MAX && n < 256) {
		pc = AN_VEC(an->nodes, struct an_node, node).pc;
		p = &AN_VEC(an->pcs, struct an_pc, pc);
		if (AN_VEC(an->objs, struct an_obj, p->obj).pseudo)
			break;	/* Java code, or no object: the native part ends */
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
	const struct an_jstack *s, *stk = j->stacks.p;
	uint32_t node, i;
	size_t k;

	if (!java) {
		node = an_pseudo_node(an, UINT32_MAX, &j->f_jvm_system, "<JVM-System>");
		if (node == UINT32_MAX)
			return -ENOMEM;
		for (k = 0; k < t->n; k++)
			if (!an_sample_traced(an, t->order[k]))
				j->user[t->order[k]] = j->expert[t->order[k]] = node;
		return 0;
	}
	cpu_clock(t);
	for (k = 0; k < t->n; k++) {
		i = t->order[k];
		if (an_sample_traced(an, i))
			continue;	/* a traced call keeps its own stack */
		s = t->sp[i].span > 2 * t->sp[i].cpu ? block_for(t, k) : NULL;
		if (!s)
			s = tick_for(t, k);
		if (!s && (t->first == t->end || an->s.time[i] < stk[t->first].t ||
			   an->s.time[i] > stk[t->end - 1].end + t->interval)) {
			/* before its first Java stack or after its last: the
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
	int err = 0;

	j->user = malloc(sizeof(*j->user) * (n + 1));
	j->expert = malloc(sizeof(*j->expert) * (n + 1));
	tick_c = malloc(sizeof(*tick_c) * (j->stacks.n + 1));
	tick = malloc(sizeof(*tick) * (j->stacks.n + 1));
	if (!sp || !order || !cum || !tick_c || !tick || !j->user || !j->expert) {
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
				 .cum = cum + i, .tick_c = tick_c, .tick = tick };

		for (g = i; g < n && an->s.thr[order[g]] == an->s.thr[order[i]]; g++)
			;
		jvm = an_jvm_find(j, th->exp, th->pid);
		if (jvm == UINT32_MAX)
			continue;	/* not a JVM's thread: its stacks as they are */
		end = thread_stacks(j, jvm, th->tid, &first);
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
	return err ? oom(an) : 0;
}
