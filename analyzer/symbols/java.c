// SPDX-License-Identifier: GPL-2.0
/*
 * Naming a JVM's code and stacks (model/java.h, docs/guide/java.md).
 *
 * Machine mode: a native stack's frame in a JVM's anonymous code is the
 * compiled method there (its class a pseudo object, its line the one the
 * JIT's debug information gives the pc, the method inlined there for
 * -inline on), or the stub (Interpreter, adapters) by name.
 *
 * The Java stacks the agent took become frames of the same trie: a
 * frame is its method's function (its class a pseudo object) on the
 * line of its bci; which sample gets which stack is jstacks.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/java.h"
#include "analyzer/symbols/java.h"

#define JAVA_PC_RET	3	/* pc key space of Java frames (resolve.c: 0-2) */

static bool method_eq(void *ctx, uint32_t id, const void *key)
{
	const struct an_jmethod *m = &AN_VEC(*(struct an_vec *)ctx, struct an_jmethod, id);
	const uint64_t *k = key;

	return m->jvm == k[0] && m->id == k[1];
}

static uint32_t method_find(struct an_java *j, uint32_t jvm, uint64_t id)
{
	uint64_t key[2] = { jvm, id };

	return an_htab_find(&j->methods_h, an_mix(an_mix(31, jvm), id),
			    method_eq, &j->methods, key);
}

static void name_frames(struct an_java *j, uint32_t jvm, uint32_t first,
			uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct an_jframe *f = &AN_VEC(j->frames, struct an_jframe, first + i);

		f->method = method_find(j, jvm, f->id);
	}
}

static int code_cmp(const void *a, const void *b)
{
	const struct an_jcode *x = a, *y = b;

	if (x->jvm != y->jvm)
		return x->jvm < y->jvm ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int stack_cmp(const void *a, const void *b)
{
	const struct an_jstack *x = a, *y = b;

	if (x->jvm != y->jvm)
		return x->jvm < y->jvm ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The code of jvm at addr that an unload at t ends (loaded last before t). */
static struct an_jcode *code_at(struct an_java *j, uint32_t jvm, uint64_t addr,
				uint64_t t)
{
	struct an_jcode *c = j->code.p, *best = NULL;
	size_t lo = 0, hi = j->code.n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c[mid].jvm < jvm || (c[mid].jvm == jvm && c[mid].addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < j->code.n && c[lo].jvm == jvm && c[lo].addr == addr; lo++)
		if (c[lo].t0 <= t)
			best = &c[lo];
	return best;
}

/* Each block's end into its begin (per thread, in time order); ends dropped. */
static void close_blocks(struct an_java *j)
{
	struct an_jstack *s = j->stacks.p;
	size_t i, n = 0, open = SIZE_MAX;

	for (i = 0; i < j->stacks.n; i++) {
		if (i && (s[i].jvm != s[i - 1].jvm || s[i].tid != s[i - 1].tid))
			open = SIZE_MAX;
		if (s[i].what == EXP_JW_MAX) {
			if (open != SIZE_MAX)
				s[open].end = s[i].t;
			open = SIZE_MAX;
			continue;
		}
		s[n] = s[i];
		if (s[n].what != EXP_JW_TICK)
			open = n;
		n++;
	}
	j->stacks.n = n;
}

/*
 * A Java thread's name as the JVM gives it (the launcher's main thread
 * is "java" to the kernel, "main" to Java), cut as a comm is.
 */
static void name_threads(struct an *an)
{
	const struct an_jthread *jt = an->java->threads.p;
	size_t i, k;
	uint32_t jvm;

	for (i = 0; i < an->threads.n; i++) {
		struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);

		jvm = an_jvm_find(an->java, t->exp, t->pid);
		for (k = 0; jvm != UINT32_MAX && k < an->java->threads.n; k++)
			if (jt[k].jvm == jvm && jt[k].tid == t->tid) {
				snprintf(t->comm, sizeof(t->comm), "%s",
					 an_str(&an->strs, jt[k].name));
				t->has_comm = true;
				break;
			}
	}
}

int an_java_finish(struct an *an)
{
	struct an_java *j = an->java;
	struct an_jcode *c, *u;
	size_t i;

	if (!j)
		return 0;
	for (i = 0; i < j->code.n; i++) {
		c = &AN_VEC(j->code, struct an_jcode, i);
		if (c->name == UINT32_MAX) {
			name_frames(j, c->jvm, c->method, 1);
			c->method = AN_VEC(j->frames, struct an_jframe, c->method).method;
		}
		for (uint32_t k = 0; k < c->npcs; k++) {
			struct an_jpc *p = &AN_VEC(j->pcs, struct an_jpc, c->pcs + k);

			name_frames(j, c->jvm, p->frames, p->nframes);
		}
	}
	for (i = 0; i < j->stacks.n; i++) {
		struct an_jstack *s = &AN_VEC(j->stacks, struct an_jstack, i);

		name_frames(j, s->jvm, s->frames, s->nframes);
	}
	an_vec_sort(&j->code, code_cmp);
	for (i = 0; i < j->unloads.n; i++) {
		u = &AN_VEC(j->unloads, struct an_jcode, i);
		c = code_at(j, u->jvm, u->addr, u->t1);
		if (c && c->t1 == UINT64_MAX)
			c->t1 = u->t1;
	}
	an_vec_sort(&j->stacks, stack_cmp);
	close_blocks(j);
	name_threads(an);
	return 0;
}

/* "(J[Ljava/lang/String;)V" as Java writes the parameters: "(long, java.lang.String[])". */
static void java_params(const char *sig, char *out, size_t len)
{
	static const struct { char c; const char *name; } prim[] = {
		{ 'Z', "boolean" }, { 'B', "byte" }, { 'C', "char" }, { 'S', "short" },
		{ 'I', "int" }, { 'J', "long" }, { 'F', "float" }, { 'D', "double" },
	};
	size_t n = 0, k, dims;
	const char *p = sig + (*sig == '('), *e;
	bool first = true;

#define PUT(s, l) do { size_t _l = (l); if (n + _l < len) { memcpy(out + n, s, _l); n += _l; } } while (0)
	PUT("(", 1);
	while (*p && *p != ')') {
		for (dims = 0; *p == '['; p++)
			dims++;
		if (!first)
			PUT(", ", 2);
		first = false;
		if (*p == 'L') {
			e = strchr(p, ';');
			if (!e)
				break;
			for (k = 1; p + k < e; k++)
				PUT(p[k] == '/' ? "." : p + k, 1);
			p = e + 1;
		} else {
			for (k = 0; k < sizeof(prim) / sizeof(prim[0]); k++)
				if (prim[k].c == *p)
					PUT(prim[k].name, strlen(prim[k].name));
			p++;
		}
		while (dims--)
			PUT("[]", 2);
	}
	PUT(")", 1);
#undef PUT
	out[n < len ? n : len - 1] = 0;
}

uint32_t an_java_func(struct an *an, uint32_t mi)
{
	struct an_java *j = an->java;
	struct an_jmethod *m = &AN_VEC(j->methods, struct an_jmethod, mi);
	const char *cls = an_str(&an->strs, m->cls);
	char key[1100], full[4096], params[2048];
	struct an_func *f;
	uint32_t obj, id;

	if (m->func != UINT32_MAX)
		return m->func;
	snprintf(key, sizeof(key), "j:%s", cls);
	obj = an_obj_named(an, key, cls);
	if (obj == UINT32_MAX)
		return obj;
	java_params(an_str(&an->strs, m->sig), params, sizeof(params));
	snprintf(full, sizeof(full), "%s.%s%s", cls, an_str(&an->strs, m->name),
		 params);
	id = an_obj_fname(an, obj, full, 0, 0);
	if (id == UINT32_MAX)
		return id;
	f = &AN_VEC(an->funcs, struct an_func, id);
	/* the short name keeps "()", as Java developers write a method */
	snprintf(full, sizeof(full), "%s.%s()", cls, an_str(&an->strs, m->name));
	free(f->name);
	f->name = strdup(full);
	if (!f->name)
		return UINT32_MAX;
	f->file = m->file;
	f->line = m->nlines ? AN_VEC(j->lines, struct exp_jline, m->lines).line : 0;
	for (uint32_t k = 1; k < m->nlines; k++)
		if (AN_VEC(j->lines, struct exp_jline, m->lines + k).line < f->line)
			f->line = AN_VEC(j->lines, struct exp_jline, m->lines + k).line;
	m = &AN_VEC(an->java->methods, struct an_jmethod, mi);
	m->func = id;
	return id;
}

/* Method m's line at bci: an an_line, or UINT32_MAX (none known). */
static uint32_t method_line(struct an *an, uint32_t mi, uint32_t func, int32_t bci)
{
	struct an_java *j = an->java;
	struct an_jmethod *m = &AN_VEC(j->methods, struct an_jmethod, mi);
	const struct exp_jline *l = &AN_VEC(j->lines, struct exp_jline, m->lines);
	uint32_t k, line = 0;

	if (bci < 0 || !m->nlines || m->file == UINT32_MAX)
		return UINT32_MAX;
	for (k = 0; k < m->nlines && l[k].bci <= (uint32_t)bci; k++)
		line = l[k].line;
	if (!line)
		line = l[0].line;
	return an_line_intern(an, func, m->file, line);
}

/*
 * The code of jvm holding ip at time t: of those there, the last loaded
 * before t and not unloaded by then; else (t UINT64_MAX, or the JVM told
 * of the code after it ran it) the one loaded last, compiled code
 * before a stub it nests in.
 */
static const struct an_jcode *code_find_at(struct an_java *j, uint32_t jvm,
					   uint64_t ip, uint64_t t)
{
	const struct an_jcode *c = j->code.p, *best = NULL, *then = NULL;
	size_t lo = 0, hi = j->code.n, mid, k;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c[mid].jvm < jvm || (c[mid].jvm == jvm && c[mid].addr <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a few blobs before it may reach ip (stubs nest in code blobs) */
	for (k = lo; k > 0 && k + 64 > lo; k--) {
		const struct an_jcode *x = &c[k - 1];

		if (x->jvm != jvm)
			break;
		if (ip >= x->addr + x->size)
			continue;
		if (!best || x->t0 > best->t0 ||
		    (best->method == UINT32_MAX && x->method != UINT32_MAX))
			best = x;
		if (x->t0 <= t && t < x->t1 && (!then || x->t0 > then->t0))
			then = x;
	}
	return then ? then : best;
}

/* The code of jvm holding ip, loaded there last. */
static const struct an_jcode *code_find(struct an_java *j, uint32_t jvm,
					uint64_t ip)
{
	return code_find_at(j, jvm, ip, UINT64_MAX);
}

/* The index of the first entry of code c's pc table past look. */
static size_t jpc_after(struct an_java *j, const struct an_jcode *c,
			uint64_t look)
{
	const struct an_jpc *p = &AN_VEC(j->pcs, struct an_jpc, c->pcs);
	size_t lo = 0, hi = c->npcs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (p[mid].pc <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The pc table's entry of code c at or before ip, or NULL. */
static const struct an_jpc *jpc_find(struct an_java *j, const struct an_jcode *c,
				     uint64_t ip)
{
	size_t k = jpc_after(j, c, ip);

	return k ? &AN_VEC(j->pcs, struct an_jpc, c->pcs + k - 1) : NULL;
}

/*
 * The pc of ip in compiled method code c: its method's function, the
 * method inlined there and its line; hashed by address, or (alias) one
 * of its own for code that is not the last at that address.
 */
static uint32_t method_code_pc(struct an *an, const struct an_jcode *c,
			       uint64_t ip, bool ret, bool alias)
{
	struct an_java *j = an->java;
	uint32_t func, ifunc, line, obj;
	const struct an_jpc *p;
	const struct an_jframe *f;

	func = an_java_func(an, c->method);
	if (func == UINT32_MAX)
		return UINT32_MAX;
	obj = AN_VEC(an->funcs, struct an_func, func).obj;
	ifunc = func;
	line = UINT32_MAX;
	p = jpc_find(j, c, ret && ip ? ip - 1 : ip);
	if (p && p->nframes) {
		f = &AN_VEC(j->frames, struct an_jframe, p->frames);
		if (f->method != UINT32_MAX) {
			ifunc = an_java_func(an, f->method);
			if (ifunc == UINT32_MAX)
				return UINT32_MAX;
			line = method_line(an, f->method, ifunc, f->bci);
		}
	}
	return alias ? an_pc_alias(an, obj, ip, ret, func, line, ifunc) :
		       an_pc_named(an, obj, ip, ret, func, line, ifunc);
}

uint32_t an_java_code_pc(struct an *an, const struct an_as *a, uint64_t ip,
			 bool ret)
{
	struct an_java *j = an->java;
	uint32_t jvm = an_jvm_find(j, a->exp, a->pid), func, obj;
	const struct an_jcode *c;

	if (jvm == UINT32_MAX)
		return AN_JAVA_NONE;
	c = code_find(j, jvm, ret && ip ? ip - 1 : ip);
	if (!c)
		return AN_JAVA_NONE;
	if (c->method == UINT32_MAX) {
		/* a stub: a function of the JVM's generated code, by name */
		obj = an_obj_named(an, "j:<JVM-generated>", "<JVM-generated>");
		if (obj == UINT32_MAX)
			return UINT32_MAX;
		func = an_obj_fname(an, obj, an_str(&an->strs, c->name), 0, 0);
		if (func == UINT32_MAX)
			return UINT32_MAX;
		return an_pc_named(an, obj, ip, ret, func, UINT32_MAX, func);
	}
	return method_code_pc(an, c, ip, ret, false);
}

static bool alias_eq(void *ctx, uint32_t id, const void *key)
{
	const struct an_jalias *x = &AN_VEC(*(struct an_vec *)ctx, struct an_jalias, id);
	const struct an_jalias *k = key;

	return x->ip == k->ip && x->code == k->code && x->ret == k->ret;
}

/* The pc of ip in method code c that is not the last at ip (made once). */
static uint32_t alias_pc(struct an *an, const struct an_jcode *c, uint64_t ip,
			 bool ret)
{
	struct an_java *j = an->java;
	struct an_jalias k = { .ip = ip, .code = c - (const struct an_jcode *)j->code.p,
			       .ret = ret }, *x;
	uint64_t h = an_mix(an_mix(an_mix(17, k.code), ip), ret);
	uint32_t id = an_htab_find(&j->alias_h, h, alias_eq, &j->alias, &k);

	if (id != UINT32_MAX)
		return AN_VEC(j->alias, struct an_jalias, id).pc;
	k.pc = method_code_pc(an, c, ip, ret, true);
	if (k.pc == UINT32_MAX)
		return UINT32_MAX;
	x = an_vec_push(&j->alias);
	if (!x)
		return UINT32_MAX;
	*x = k;
	if (an_htab_add(&j->alias_h, h, j->alias.n - 1))
		return UINT32_MAX;
	return k.pc;
}

#define MACHINE_DEPTH	1024

uint32_t an_java_machine_at(struct an *an, uint32_t jvm, uint32_t machine,
			    uint64_t t)
{
	struct an_java *j = an->java;
	uint32_t chain[MACHINE_DEPTH], pcs[MACHINE_DEPTH], n = 0, node, k;
	const struct an_jcode *c, *at;
	const struct an_pc *p;
	bool changed = false;
	const char *key;

	for (node = machine; node != UINT32_MAX && n < MACHINE_DEPTH;
	     node = AN_VEC(an->nodes, struct an_node, node).parent)
		chain[n++] = node;
	if (node != UINT32_MAX)
		return machine;
	for (k = 0; k < n; k++) {
		pcs[k] = AN_VEC(an->nodes, struct an_node, chain[k]).pc;
		p = &AN_VEC(an->pcs, struct an_pc, pcs[k]);
		key = AN_VEC(an->obj_keys, char *, p->obj);
		if (p->ret > 1 || !key || strncmp(key, "j:", 2))
			continue;
		c = code_find(j, jvm, p->ret && p->addr ? p->addr - 1 : p->addr);
		if (!c || c->method == UINT32_MAX)
			continue;
		at = code_find_at(j, jvm, p->ret && p->addr ? p->addr - 1 : p->addr, t);
		if (at == c || at->method == UINT32_MAX)
			continue;
		pcs[k] = alias_pc(an, at, p->addr, p->ret);
		if (pcs[k] == UINT32_MAX)
			return UINT32_MAX;
		changed = true;
	}
	if (!changed)
		return machine;
	node = UINT32_MAX;
	while (n--) {
		node = an_node_intern(an, node, pcs[n]);
		if (node == UINT32_MAX)
			return node;
	}
	return node;
}

bool an_java_reused(const struct an_java *j, uint32_t jvm)
{
	const struct an_jcode *c = j->code.p;
	size_t i;

	for (i = 0; i < j->code.n; i++)
		if (c[i].jvm == jvm && c[i].t1 != UINT64_MAX)
			return true;
	return false;
}

/* ---- Java stacks as frames of the trie (jstacks.c's) ---- */

/* A Java frame's pc: (class object, method's function, bci) keyed. */
static uint32_t frame_pc(struct an *an, const struct an_jframe *f)
{
	uint32_t func, obj, line;

	if (f->method == UINT32_MAX)
		return an_pc_named(an, an->o_unknown, f->id, JAVA_PC_RET,
				   an->f_unknown, UINT32_MAX, an->f_unknown);
	func = an_java_func(an, f->method);
	if (func == UINT32_MAX)
		return func;
	obj = AN_VEC(an->funcs, struct an_func, func).obj;
	line = method_line(an, f->method, func, f->bci);
	return an_pc_named(an, obj, ((uint64_t)func << 32) | (uint32_t)f->bci,
			   JAVA_PC_RET, func, line, func);
}

uint32_t an_java_stack_node(struct an *an, const struct an_jstack *s)
{
	struct an_java *j = an->java;
	uint32_t node = UINT32_MAX, k, pc;

	for (k = s->nframes; k-- > 0;) {
		pc = frame_pc(an, &AN_VEC(j->frames, struct an_jframe, s->frames + k));
		if (pc == UINT32_MAX)
			return UINT32_MAX;
		node = an_node_intern(an, node, pc);
		if (node == UINT32_MAX)
			return node;
	}
	return node;
}

/*
 * The entry of code c's pc table whose scope holds ip: the JIT records
 * a scope at the end of its instructions (a call's at its return
 * address), so the first entry past ip (at ip itself for a return
 * address), as HotSpot reads its own table; NULL if none.
 */
static const struct an_jpc *jpc_scope(struct an_java *j, const struct an_jcode *c,
				      uint64_t ip, bool ret)
{
	size_t k = jpc_after(j, c, ret && ip ? ip - 1 : ip);

	return k < c->npcs ? &AN_VEC(j->pcs, struct an_jpc, c->pcs + k) : NULL;
}

/* The compiled method of jvm at machine pc pcid (and its ip), or NULL. */
static const struct an_jcode *jit_code(struct an *an, uint32_t jvm,
				       uint32_t pcid, uint64_t t, uint64_t *ip,
				       bool *ret)
{
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, pcid);
	const char *key = AN_VEC(an->obj_keys, char *, p->obj);
	const struct an_jcode *c;

	if (p->ret > 1 || !key || strncmp(key, "j:", 2))
		return NULL;	/* not a JVM's code, or a Java frame's pc */
	c = code_find_at(an->java, jvm, p->ret && p->addr ? p->addr - 1 : p->addr, t);
	if (!c || c->method == UINT32_MAX)
		return NULL;
	*ip = p->addr;
	*ret = p->ret;
	return c;
}

#define JIT_DEPTH	256

uint32_t an_java_jit_node(struct an *an, uint32_t jvm, uint32_t machine,
			  uint64_t t, const struct an_jstack *tick)
{
	struct an_java *j = an->java;
	const struct an_jframe *fr[JIT_DEPTH], *tf;
	uint32_t node = machine, root = UINT32_MAX, n = 0, k, pc;
	const struct an_jcode *c;
	const struct an_jpc *e;
	uint64_t ip;
	bool ret;

	while (node != UINT32_MAX) {
		c = jit_code(an, jvm, AN_VEC(an->nodes, struct an_node, node).pc,
			     t, &ip, &ret);
		if (!c)
			break;
		e = jpc_scope(j, c, ip, ret);
		if (!e || !e->nframes || n + e->nframes > JIT_DEPTH)
			return AN_JAVA_NONE;
		for (k = 0; k < e->nframes; k++)
			fr[n++] = &AN_VEC(j->frames, struct an_jframe, e->frames + k);
		root = c->method;
		node = AN_VEC(an->nodes, struct an_node, node).parent;
	}
	if (!n || !tick || !tick->nframes)
		return AN_JAVA_NONE;
	/* the callers below the outermost compiled method: the tick's */
	tf = &AN_VEC(j->frames, struct an_jframe, tick->frames);
	for (k = 0; k < tick->nframes && tf[k].method != root; k++)
		;
	if (k == tick->nframes)
		return AN_JAVA_NONE;
	node = UINT32_MAX;
	for (uint32_t x = tick->nframes; x-- > k + 1;) {
		pc = frame_pc(an, &tf[x]);
		node = pc == UINT32_MAX ? pc : an_node_intern(an, node, pc);
		if (node == UINT32_MAX)
			return node;
	}
	while (n--) {
		pc = frame_pc(an, fr[n]);
		node = pc == UINT32_MAX ? pc : an_node_intern(an, node, pc);
		if (node == UINT32_MAX)
			return node;
	}
	return node;
}
