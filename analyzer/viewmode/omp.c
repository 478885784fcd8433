// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMP in the view modes (viewmode.h, docs/guide/openmp.md).  A frame
 * is the program's, the system's (libc, the dynamic linker, the
 * kernel), the OpenMP runtime's (libomp, libgomp; the tracing library's
 * own) or an outlined function the compiler made of a parallel region or
 * a task (clang's .omp_outlined., gcc's main._omp_fn.0).
 *
 * expert: the runtime's frames go; a thread of a team that is not the
 * region's encountering thread gets, instead of its thread's start and
 * the runtime below the outlined function, the stack that encountered
 * the region (recorded by the OMPT tool, load/omp.c): compute() called
 * in a region of main() is main's callee on every thread.  Time spent in
 * the runtime itself becomes one pseudo-function at the leaf:
 * <OMP-implicit_barrier>, <OMP-lock> ... by the wait the OMPT tool
 * recorded the thread in at that time, <OMP-overhead> where it recorded
 * none (the runtime at work around a wait: arriving at a barrier,
 * forking a team); where OMPT did not record, by the runtime entry point
 * the program called, <OMP-idle> for a thread with no work.  A sample
 * or wait in an explicit task's run goes below the stack that created
 * the task (recorded at its creation), not its region's, so that the
 * function that made the task calls it on every thread.  user: the
 * outlined functions go too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/omp.h"
#include "analyzer/viewmode/viewmode.h"

enum { C_UNSET, C_USER, C_SYSTEM, C_RUNTIME, C_OUTLINED, C_PSEUDO };

#define OMP_OBJ "<OpenMP>"
#define TPRE	64	/* task creation stacks kept rewritten */

/* How rewrite_frames() rewrites a stack: */
#define RW_LEAF		0x1	/* the runtime's pseudo-function at the leaf */
#define RW_NOPRE	0x2	/* no region's stack below a team thread's frames */
#define RW_TEAM		0x4	/* a team thread's frames, whichever thread */

struct omp_vm {
	uint8_t *cls;		/* per function: C_* (C_UNSET: not looked at) */
	size_t ncls;
	uint32_t pseudo[AN_OMP_NKINDS];	/* their pcs, made on first use */
	/* per region and mode: its encountering stack in that mode */
	struct an_vm_stack *prefix[AN_VM_MACHINE];
	uint8_t *busy[AN_VM_MACHINE];	/* 1: being made, 2: made */
	size_t nreg;
	/*
	 * per outlined function: the machine stack's node of the program's
	 * frame that called the runtime for it (on the thread that
	 * encountered its region), for team threads the OMPT tool did not
	 * record; UINT32_MAX: not seen
	 */
	uint32_t *holder;
	size_t nholder;
	struct an_vm_stack hpre;	/* a holder's frames, being rewritten */
	/* the stacks that created explicit tasks, by node, region and mode */
	struct tpre {
		uint32_t node, region;
		int mode;		/* -1: empty */
		bool ok;
		struct an_vm_stack st;
	} tpre[TPRE];
};

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* An OpenMP runtime's library: what makes a program an OpenMP one. */
static bool omp_runtime(const char *n)
{
	return starts(n, "libomp") || starts(n, "libgomp") || starts(n, "libiomp");
}

static int obj_class(const struct an *an, const struct an_obj *o)
{
	const char *n = o->name ? o->name : "";

	if (o->kernel)
		return C_SYSTEM;
	if (o->pseudo && n[0] == '<')
		return C_PSEUDO;
	if (omp_runtime(n) || starts(n, "liblwprof_trace"))
		return C_RUNTIME;
	if (starts(n, "libc.so") || starts(n, "libc-") || starts(n, "ld-linux") ||
	    starts(n, "libpthread") || starts(n, "[vdso]") || starts(n, "libgcc_s"))
		return C_SYSTEM;
	return C_USER;
}

static bool outlined_name(const char *n)
{
	return strstr(n, ".omp_outlined") || strstr(n, "_omp_fn.") ||
	       strstr(n, ".omp_task_entry") || strstr(n, ".omp.reduction") ||
	       strstr(n, "_omp_cpyfn.");
}

bool an_vm_omp_program(struct an *an, uint32_t pc, bool outlined)
{
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, pc);
	const struct an_func *fn = &AN_VEC(an->funcs, struct an_func,
					   an_pc_func(an, p));

	if (obj_class(an, &AN_VEC(an->objs, struct an_obj, p->obj)) != C_USER)
		return false;
	return outlined || !fn->name || !outlined_name(fn->name);
}

static int fclass(struct an *an, struct omp_vm *v, uint32_t f)
{
	const struct an_func *fn = &AN_VEC(an->funcs, struct an_func, f);
	size_t n;
	uint8_t *p;
	int c;

	if (f >= v->ncls) {
		n = an->funcs.n > f ? an->funcs.n : f + 1;
		p = realloc(v->cls, n);
		if (!p)
			return C_USER;
		memset(p + v->ncls, C_UNSET, n - v->ncls);
		v->cls = p;
		v->ncls = n;
	}
	if (v->cls[f] != C_UNSET)
		return v->cls[f];
	c = obj_class(an, &AN_VEC(an->objs, struct an_obj, fn->obj));
	if (c != C_PSEUDO && fn->name && outlined_name(fn->name))
		c = C_OUTLINED;
	v->cls[f] = c;
	return c;
}

static int pclass(struct an *an, struct omp_vm *v, uint32_t pc)
{
	return fclass(an, v, an_pc_func(an, &AN_VEC(an->pcs, struct an_pc, pc)));
}

/* The runtime entry points a program calls, by what a wait in them is. */
static const struct {
	const char *prefix;
	int kind;
} entries[] = {
	{ "__kmpc_barrier", AN_OMP_BARRIER_EXPLICIT },
	{ "GOMP_barrier", AN_OMP_BARRIER_EXPLICIT },
	{ "__kmpc_fork_call", AN_OMP_BARRIER_IMPLICIT },
	{ "GOMP_parallel", AN_OMP_BARRIER_IMPLICIT },
	{ "__kmpc_for_static_fini", AN_OMP_BARRIER_IMPLICIT },
	{ "GOMP_loop_end", AN_OMP_BARRIER_IMPLICIT },
	{ "__kmpc_critical", AN_OMP_CRITICAL },
	{ "GOMP_critical", AN_OMP_CRITICAL },
	{ "omp_set_lock", AN_OMP_LOCK },
	{ "omp_set_nest_lock", AN_OMP_LOCK },
	{ "__kmpc_set_lock", AN_OMP_LOCK },
	{ "__kmpc_set_nest_lock", AN_OMP_LOCK },
	{ "__kmpc_ordered", AN_OMP_ORDERED },
	{ "GOMP_ordered", AN_OMP_ORDERED },
	{ "__kmpc_atomic", AN_OMP_ATOMIC },
	{ "GOMP_atomic", AN_OMP_ATOMIC },
	{ "__kmpc_reduce", AN_OMP_REDUCTION },
	{ "__kmpc_end_reduce", AN_OMP_REDUCTION },
	{ "__kmpc_omp_taskwait", AN_OMP_TASKWAIT },
	{ "GOMP_taskwait", AN_OMP_TASKWAIT },
	{ "__kmpc_end_taskgroup", AN_OMP_TASKWAIT },
	{ "GOMP_taskgroup_end", AN_OMP_TASKWAIT },
};

static int entry_kind(struct an *an, uint32_t pc)
{
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, pc);
	const char *n = AN_VEC(an->funcs, struct an_func, p->func).name;
	size_t i;

	for (i = 0; n && i < sizeof(entries) / sizeof(entries[0]); i++)
		if (starts(n, entries[i].prefix))
			return entries[i].kind;
	return AN_OMP_OVERHEAD;
}

static uint32_t kind_pc(struct an *an, struct omp_vm *v, int k)
{
	char name[64];

	if (v->pseudo[k] == UINT32_MAX) {
		snprintf(name, sizeof(name), "<OMP-%s>", an_omp_kind_name(k));
		v->pseudo[k] = an_vm_pseudo_pc(an, OMP_OBJ, name);
	}
	return v->pseudo[k];
}

static int rewrite_frames(struct an *an, struct omp_vm *v, enum an_viewmode m,
			  uint32_t thr, uint64_t t, int wait, unsigned int fl,
			  struct an_vm_stack *s);

/*
 * Region r's encountering stack in mode m, its runtime leaf cut: the
 * callers every thread of its team shows (NULL: not known).
 */
static const struct an_vm_stack *prefix(struct an *an, struct omp_vm *v,
					enum an_viewmode m, uint32_t r)
{
	const struct an_omp_region *g = an_omp_region(an->omp, r);
	struct an_vm_stack *p;

	if (!v->prefix[m]) {
		v->nreg = an_omp_nregions(an->omp);
		v->prefix[m] = calloc(v->nreg + 1, sizeof(*p));
		v->busy[m] = calloc(v->nreg + 1, 1);
		if (!v->prefix[m] || !v->busy[m])
			return NULL;
	}
	p = &v->prefix[m][r];
	if (v->busy[m][r] == 2)
		return p;
	if (v->busy[m][r] == 1 || g->stack == UINT32_MAX)
		return NULL;	/* a cycle (damage), or no stack */
	v->busy[m][r] = 1;
	if (an_vm_frames(an, g->stack, p) ||
	    rewrite_frames(an, v, m, g->thr, g->t0, -1, 0, p))
		p->n = 0;
	v->busy[m][r] = 2;
	return p;
}

/*
 * Without the tool's records: the stack of the frame that called the
 * runtime for outlined function pc's region, in mode m (NULL: not seen).
 */
static const struct an_vm_stack *holder_prefix(struct an *an, struct omp_vm *v,
					       enum an_viewmode m, uint32_t thr,
					       uint64_t t, uint32_t pc)
{
	uint32_t f = an_pc_func(an, &AN_VEC(an->pcs, struct an_pc, pc));

	if (f >= v->nholder || v->holder[f] == UINT32_MAX ||
	    an_vm_frames(an, v->holder[f], &v->hpre) ||
	    rewrite_frames(an, v, m, thr, t, -1, 0, &v->hpre))
		return NULL;
	return &v->hpre;
}

/*
 * s (root first) in mode m for thread thr at time t; wait: the OMPT
 * wait the frames are in (-1: look it up by time); fl: RW_*.
 */
static int rewrite_frames(struct an *an, struct omp_vm *v, enum an_viewmode m,
			  uint32_t thr, uint64_t t, int wait, unsigned int fl,
			  struct an_vm_stack *s)
{
	bool leaf = fl & RW_LEAF;
	struct an_omp_at at = { .region = UINT32_MAX, .wait = -1 };
	const struct an_vm_stack *pre = NULL;
	uint32_t i, o = UINT32_MAX, last_rt = UINT32_MAX, first_rt = UINT32_MAX,
		 n = s->n, out = 0, entry;
	bool user_before = false, after_rt_user = false;
	int c, kind;

	if (an->omp)
		an_omp_lookup(an->omp, thr, t, &at);
	for (i = 0; i < n; i++) {
		c = pclass(an, v, s->pc[i]);
		if (c == C_OUTLINED && o == UINT32_MAX)
			o = i;
		if (c == C_USER && o == UINT32_MAX && first_rt == UINT32_MAX)
			user_before = true;
		if (c == C_RUNTIME) {
			if (first_rt == UINT32_MAX)
				first_rt = i;
			last_rt = i;
			after_rt_user = false;
		} else if ((c == C_OUTLINED || c == C_USER) && last_rt != UINT32_MAX &&
			   (after_rt_user || c == C_OUTLINED)) {
			after_rt_user = true;	/* the runtime called the program */
		}
	}
	/* a team's thread: the region's encountering stack below its body */
	if (o != UINT32_MAX && !user_before) {
		if (fl & RW_NOPRE)
			;	/* the caller puts what goes below */
		else if (at.region != UINT32_MAX && (at.worker || (fl & RW_TEAM)))
			pre = prefix(an, v, m, at.region);
		else if (!at.traced && leaf)
			pre = holder_prefix(an, v, m, thr, t, s->pc[o]);
	} else {
		o = 0;
	}
	/* the runtime's entry the program called: where the leaf's run of
	 * runtime (and system) frames starts */
	entry = last_rt;
	while (entry != UINT32_MAX && entry > 0 &&
	       ((c = pclass(an, v, s->pc[entry - 1])) == C_RUNTIME || c == C_SYSTEM))
		entry--;
	kind = wait >= 0 ? wait : at.wait;
	if (kind < 0 && at.traced)
		kind = AN_OMP_OVERHEAD;	/* the tool saw no wait then */
	else if (kind < 0 && entry != UINT32_MAX)
		kind = entry > 0 && pclass(an, v, s->pc[entry - 1]) != C_PSEUDO ?
			entry_kind(an, s->pc[entry]) : AN_OMP_IDLE;
	/* the runtime's own frames at the leaf: one pseudo-function */
	if (last_rt != UINT32_MAX && !after_rt_user)
		n = entry;
	else
		last_rt = UINT32_MAX;
	{
		uint32_t keep[n + (pre ? pre->n : 0) + 1], k = 0;

		for (i = 0; pre && i < pre->n; i++)
			keep[k++] = pre->pc[i];
		for (i = o; i < n; i++) {
			c = pclass(an, v, s->pc[i]);
			if (c == C_RUNTIME || (c == C_OUTLINED && m == AN_VM_USER))
				continue;
			keep[k++] = s->pc[i];
		}
		/* a team thread in its region's body, whose holder is not
		 * known (no OMPT records): the body stands for it */
		if (!k && o < n && !(fl & RW_NOPRE) &&
		    pclass(an, v, s->pc[o]) == C_OUTLINED)
			keep[k++] = s->pc[o];
		out = k;
		s->n = 0;
		for (i = 0; i < out; i++)
			if (an_vm_push(s, keep[i]))
				return -ENOMEM;
	}
	if (leaf && last_rt != UINT32_MAX) {
		uint32_t pc = kind_pc(an, v, kind < 0 ? AN_OMP_OVERHEAD : kind);

		if (pc == UINT32_MAX || an_vm_push(s, pc))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The stack that created explicit task x, in mode m, its runtime leaf
 * cut (NULL: not known): of a team thread of x's region, as the thread
 * that made it may not be the one that ran it.
 */
static const struct an_vm_stack *task_prefix(struct an *an, struct omp_vm *v,
					     enum an_viewmode m,
					     const struct an_omp_span *x)
{
	struct tpre *p = &v->tpre[(x->stack * 31u + x->region) % TPRE];

	if (p->mode == (int)m && p->node == x->stack && p->region == x->region)
		return p->ok ? &p->st : NULL;
	p->mode = m;
	p->node = x->stack;
	p->region = x->region;
	p->ok = !an_vm_frames(an, x->stack, &p->st) &&
		!rewrite_frames(an, v, m, x->thr, x->t0, -1, RW_TEAM, &p->st);
	return p->ok ? &p->st : NULL;
}

static bool task_entry(struct an *an, uint32_t pc)
{
	const char *n = AN_VEC(an->funcs, struct an_func,
			       an_pc_func(an, &AN_VEC(an->pcs, struct an_pc, pc))).name;

	return n && strstr(n, ".omp_task_entry");
}

/*
 * s, taken in explicit task x's run: the task's own frames (from the
 * outlined function the runtime called for it, or clang's task entry
 * that an undeferred task is called through) below the stack that
 * created it.  1: s holds no task's frames, left as it was.
 */
static int task_rewrite(struct an *an, struct omp_vm *v, enum an_viewmode m,
			uint32_t thr, uint64_t t, int wait,
			const struct an_omp_span *x, struct an_vm_stack *s)
{
	const struct an_vm_stack *pre;
	uint32_t i, tk = UINT32_MAX, n;
	int err;

	for (i = 0; i < s->n; i++)
		if (pclass(an, v, s->pc[i]) == C_OUTLINED &&
		    ((i && pclass(an, v, s->pc[i - 1]) == C_RUNTIME) ||
		     task_entry(an, s->pc[i])))
			tk = i;
	if (tk == UINT32_MAX || x->stack == UINT32_MAX ||
	    !(pre = task_prefix(an, v, m, x)))
		return 1;
	memmove(s->pc, s->pc + tk, sizeof(*s->pc) * (s->n - tk));
	s->n -= tk;
	err = rewrite_frames(an, v, m, thr, t, wait, RW_LEAF | RW_NOPRE, s);
	for (i = 0, n = s->n; !err && i < pre->n; i++)
		err = an_vm_push(s, 0);
	if (err)
		return err;
	memmove(s->pc + pre->n, s->pc, sizeof(*s->pc) * n);
	memcpy(s->pc, pre->pc, sizeof(*s->pc) * pre->n);
	return 0;
}

static int omp_rewrite(struct an *an, void *state, enum an_viewmode m,
		       size_t i, struct an_vm_stack *s)
{
	struct omp_vm *v = state;
	uint32_t thr = an->s.thr[i];
	uint64_t t = an->s.time[i];
	int wait = an->omp ? an_omp_sample_wait(an->omp, i) : -1, err;
	const struct an_omp_span *x;

	x = an->omp ? an_omp_sample_xtask(an->omp, i, thr, t) : NULL;
	if (x && (err = task_rewrite(an, v, m, thr, t, wait, x, s)) <= 0)
		return err;
	return rewrite_frames(an, v, m, thr, t, wait, RW_LEAF, s);
}

/*
 * Each outlined function's holder: a node of the machine stacks whose
 * frame is the outlined function, below runtime frames only, below a
 * program's frame (the encountering thread's fork).
 */
static int holders(struct an *an, struct omp_vm *v)
{
	const struct an_node *nd = an->nodes.p;
	uint32_t n, u, f;
	size_t i;

	v->nholder = an->funcs.n;
	v->holder = malloc(sizeof(*v->holder) * (v->nholder ? v->nholder : 1));
	if (!v->holder)
		return -ENOMEM;
	memset(v->holder, 0xff, sizeof(*v->holder) * v->nholder);
	for (i = 0; i < an->nodes.n; i++) {
		if (pclass(an, v, nd[i].pc) != C_OUTLINED)
			continue;
		f = an_pc_func(an, &AN_VEC(an->pcs, struct an_pc, nd[i].pc));
		if (f >= v->nholder || v->holder[f] != UINT32_MAX)
			continue;
		for (n = nd[i].parent, u = 0; n != UINT32_MAX &&
		     pclass(an, v, nd[n].pc) == C_RUNTIME; n = nd[n].parent)
			u++;
		if (u && n != UINT32_MAX && pclass(an, v, nd[n].pc) == C_USER)
			v->holder[f] = n;
	}
	return 0;
}

/* It applies where a runtime was mapped, or the OMPT tool recorded. */
static int omp_open(struct an *an, void **state)
{
	struct omp_vm *v;
	bool any = an->omp != NULL;
	size_t i;
	int k;

	/* The tracing library alone (I/O or heap tracing) is not OpenMP. */
	for (i = 0; i < an->objs.n && !any; i++) {
		const struct an_obj *o = &AN_VEC(an->objs, struct an_obj, i);

		any = !o->kernel && o->name && omp_runtime(o->name);
	}
	*state = NULL;
	if (!any)
		return 0;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < AN_OMP_NKINDS; k++)
		v->pseudo[k] = UINT32_MAX;
	for (k = 0; k < TPRE; k++)
		v->tpre[k].mode = -1;
	*state = v;
	return holders(an, v);
}

static void omp_close(void *state)
{
	struct omp_vm *v = state;
	size_t m, r;

	for (m = 0; m < AN_VM_MACHINE; m++) {
		for (r = 0; v->prefix[m] && r < v->nreg; r++)
			free(v->prefix[m][r].pc);
		free(v->prefix[m]);
		free(v->busy[m]);
	}
	for (r = 0; r < TPRE; r++)
		free(v->tpre[r].st.pc);
	free(v->cls);
	free(v->holder);
	free(v->hpre.pc);
	free(v);
}

const struct an_vm_lang an_vm_omp = {
	.name = "OpenMP",
	.open = omp_open,
	.rewrite = omp_rewrite,
	.close = omp_close,
};
