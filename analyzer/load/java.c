// SPDX-License-Identifier: GPL-2.0
/*
 * The JVMTI agent's records (libexp/java.h) into the model's Java part
 * (model/java.h): each JVM's methods with their line tables by bci,
 * compiled code and stubs with the methods inlined at their pcs, the
 * Java stacks of ticks and blocks (a block's end closes the one its
 * thread has under way), and the Java names of threads.  What needs the
 * whole experiment (frames named by method, unloads matched to code,
 * the order of stacks) is symbols/java.c's, at an_finish().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "analyzer/model/java.h"

static int oom(struct an *an)
{
	return an_errf(an, -ENOMEM, "out of memory");
}

static struct an_java *java_get(struct an *an)
{
	struct an_java *j = an->java;

	if (j)
		return j;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->jvms.esz = sizeof(struct an_jvm);
	j->methods.esz = sizeof(struct an_jmethod);
	j->lines.esz = sizeof(struct exp_jline);
	j->code.esz = sizeof(struct an_jcode);
	j->pcs.esz = sizeof(struct an_jpc);
	j->frames.esz = sizeof(struct an_jframe);
	j->stacks.esz = sizeof(struct an_jstack);
	j->threads.esz = sizeof(struct an_jthread);
	j->unloads.esz = sizeof(struct an_jcode);
	j->alias.esz = sizeof(struct an_jalias);
	j->f_jvm_system = j->f_no_jstack = UINT32_MAX;
	an->java = j;
	return j;
}

/* The JVM of (exp, pid), made if new; UINT32_MAX: out of memory. */
static uint32_t jvm_get(struct an_java *j, uint32_t exp, uint32_t pid)
{
	uint32_t id = an_jvm_find(j, exp, pid);
	struct an_jvm *v;

	if (id != UINT32_MAX)
		return id;
	v = an_vec_push(&j->jvms);
	if (!v)
		return UINT32_MAX;
	v->exp = exp;
	v->pid = pid;
	return j->jvms.n - 1;
}

/* "Ljava/lang/String;" as Java writes it: "java.lang.String". */
static void class_name(const char *sig, char *out, size_t len)
{
	size_t n;

	if (sig[0] == 'L')
		sig++;
	n = strlen(sig);
	if (n && sig[n - 1] == ';')
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(out, sig, n);
	out[n] = 0;
	for (; *out; out++)
		if (*out == '/')
			*out = '.';
}

static int line_cmp(const void *a, const void *b)
{
	const struct exp_jline *x = a, *y = b;

	return x->bci < y->bci ? -1 : x->bci > y->bci;
}

static int do_method(struct an *an, struct an_java *j, uint32_t jvm,
		     const struct exp_rec_jmethod *r)
{
	const struct exp_jline *l = exp_jmethod_lines(r);
	struct exp_jmethod_strs s;
	struct an_jmethod *m;
	char cls[1024], path[2048], *slash;
	uint64_t h = an_mix(an_mix(31, jvm), r->id);
	uint32_t i;

	exp_jmethod_strs(r, &s);
	m = an_vec_push(&j->methods);
	if (!m)
		return oom(an);
	m->id = r->id;
	m->jvm = jvm;
	m->func = UINT32_MAX;
	m->native = r->hdr.flags & EXP_JM_NATIVE;
	class_name(s.cls, cls, sizeof(cls));
	m->cls = an_str_intern(&an->strs, cls);
	m->name = an_str_intern(&an->strs, s.name);
	m->sig = an_str_intern(&an->strs, s.sig);
	m->file = UINT32_MAX;
	if (*s.file) {
		/* the source's path as the package lays it out */
		snprintf(path, sizeof(path), "%s", s.cls[0] == 'L' ? s.cls + 1 : s.cls);
		slash = strrchr(path, '/');
		if (slash)
			snprintf(slash + 1, sizeof(path) - (slash + 1 - path), "%s", s.file);
		else
			snprintf(path, sizeof(path), "%s", s.file);
		m->file = an_str_intern(&an->strs, path);
		if (m->file == UINT32_MAX)
			return oom(an);
	}
	if (m->cls == UINT32_MAX || m->name == UINT32_MAX || m->sig == UINT32_MAX)
		return oom(an);
	m->lines = j->lines.n;
	m->nlines = r->nlines;
	if (an_vec_grow(&j->lines, j->lines.n + r->nlines))
		return oom(an);
	for (i = 0; i < r->nlines; i++)
		AN_VEC(j->lines, struct exp_jline, j->lines.n++) = l[i];
	qsort(&AN_VEC(j->lines, struct exp_jline, m->lines), m->nlines,
	      sizeof(*l), line_cmp);
	return an_htab_add(&j->methods_h, h, j->methods.n - 1) ? oom(an) : 0;
}

/* n recorded frames into j->frames; their first index. */
static int put_frames(struct an_java *j, const struct exp_jframe *f,
		      uint32_t n, uint32_t *first)
{
	uint32_t i;

	*first = j->frames.n;
	if (an_vec_grow(&j->frames, j->frames.n + n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct an_jframe *x = &AN_VEC(j->frames, struct an_jframe, j->frames.n++);

		x->id = f[i].method;
		x->method = UINT32_MAX;
		x->bci = f[i].bci;
	}
	return 0;
}

static int pc_cmp(const void *a, const void *b)
{
	const struct an_jpc *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int do_code(struct an *an, struct an_java *j, uint32_t jvm,
		   const struct exp_rec_jcode *r)
{
	const char *p = (const char *)(r + 1);
	struct an_jcode *c = an_vec_push(&j->code);
	struct an_jpc *pc;
	uint32_t i;

	if (!c)
		return oom(an);
	c->jvm = jvm;
	c->method = UINT32_MAX;
	c->name = UINT32_MAX;
	c->addr = r->addr;
	c->size = r->size;
	c->t0 = r->time_ns;
	c->t1 = UINT64_MAX;
	c->pcs = j->pcs.n;
	c->npcs = r->npcs;
	/* a method's id: resolved with the frames at the end */
	if (r->hdr.flags & EXP_JC_METHOD) {
			uint32_t first;

		if (put_frames(j, &(struct exp_jframe){ r->method, -1, 0 }, 1, &first))
			return oom(an);
		c->method = first;	/* a frame index until the end */
	} else {
		c->name = an_str_intern(&an->strs, exp_jcode_name(r));
		if (c->name == UINT32_MAX)
			return oom(an);
	}
	for (i = 0; i < r->npcs; i++) {
		const struct exp_jpc *x = (const void *)p;

		pc = an_vec_push(&j->pcs);
		if (!pc)
			return oom(an);
		pc->pc = x->pc;
		pc->nframes = x->nframes;
		if (put_frames(j, (const void *)(x + 1), x->nframes, &pc->frames))
			return oom(an);
		p += sizeof(*x) + x->nframes * sizeof(struct exp_jframe);
	}
	c = &AN_VEC(j->code, struct an_jcode, j->code.n - 1);
	qsort(&AN_VEC(j->pcs, struct an_jpc, c->pcs), c->npcs,
	      sizeof(struct an_jpc), pc_cmp);
	return 0;
}

static int do_unload(struct an *an, struct an_java *j, uint32_t jvm,
		     const struct exp_rec_junload *r)
{
	struct an_jcode *u = an_vec_push(&j->unloads);

	if (!u)
		return oom(an);
	u->jvm = jvm;
	u->addr = r->addr;
	u->t1 = r->time_ns;
	return 0;
}

/*
 * A tick, a block's begin (its end not known yet: UINT64_MAX) or a
 * block's end (no frames, what EXP_JW_MAX: symbols/java.c pairs it with
 * its thread's block once the stacks are in time order).
 */
static int do_stack(struct an *an, struct an_java *j, uint32_t jvm,
		    const struct exp_rec_jstack *r)
{
	struct an_jstack *s = an_vec_push(&j->stacks);

	if (!s)
		return oom(an);
	s->jvm = jvm;
	s->tid = r->tid;
	s->t = s->end = r->time_ns;
	s->what = r->hdr.flags & EXP_JS_END ? EXP_JW_MAX : r->what;
	s->err = r->err;
	if (put_frames(j, exp_jstack_frames(r), r->nframes, &s->frames))
		return oom(an);
	s = &AN_VEC(j->stacks, struct an_jstack, j->stacks.n - 1);
	s->nframes = r->nframes;
	if (r->what == EXP_JW_TICK) {
		j->nticks++;
		j->nticks_err += !r->nframes;
	} else if (!(r->hdr.flags & EXP_JS_END)) {
		s->end = UINT64_MAX;
	}
	return 0;
}

static int do_thread(struct an *an, struct an_java *j, uint32_t jvm,
		     const struct exp_rec_jthread *r)
{
	struct an_jthread *t = j->threads.p;
	size_t i;

	for (i = 0; i < j->threads.n; i++)
		if (t[i].jvm == jvm && t[i].tid == r->tid)
			return 0;	/* its first name: DestroyJavaVM is main */
	t = an_vec_push(&j->threads);
	if (!t)
		return oom(an);
	t->jvm = jvm;
	t->tid = r->tid;
	t->daemon = r->hdr.flags & EXP_JT_DAEMON;
	t->name = an_str_intern(&an->strs, r->name);
	return t->name == UINT32_MAX ? oom(an) : 0;
}

int an_java_rec(struct an *an, uint32_t exp, const struct lwprof_rec *h)
{
	struct an_java *j = java_get(an);
	uint32_t pid, jvm;

	if (!j)
		return oom(an);
	switch (h->type) {
	case EXP_REC_JMETHOD:
		pid = ((const struct exp_rec_jmethod *)h)->pid;
		break;
	case EXP_REC_JCODE:
		pid = ((const struct exp_rec_jcode *)h)->pid;
		break;
	case EXP_REC_JUNLOAD:
		pid = ((const struct exp_rec_junload *)h)->pid;
		break;
	case EXP_REC_JSTACK:
		pid = ((const struct exp_rec_jstack *)h)->pid;
		break;
	case EXP_REC_JTHREAD:
		pid = ((const struct exp_rec_jthread *)h)->pid;
		break;
	default:
		return 0;
	}
	jvm = jvm_get(j, exp, pid);
	if (jvm == UINT32_MAX)
		return oom(an);
	switch (h->type) {
	case EXP_REC_JMETHOD:
		return do_method(an, j, jvm, (const void *)h);
	case EXP_REC_JCODE:
		return do_code(an, j, jvm, (const void *)h);
	case EXP_REC_JUNLOAD:
		return do_unload(an, j, jvm, (const void *)h);
	case EXP_REC_JSTACK:
		return do_stack(an, j, jvm, (const void *)h);
	default:
		return do_thread(an, j, jvm, (const void *)h);
	}
}
