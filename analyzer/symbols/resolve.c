// SPDX-License-Identifier: GPL-2.0
/*
 * From raw stacks to the pc trie.  Each ip of a unique raw stack is found in
 * its address space's mappings, turned into the object's vaddr and interned
 * as a pc (object, vaddr, function, line).  A caller frame's ip is a return
 * address: its function and line are those of ip - 1, the call.  Stacks
 * cut at the depth limit hang under <Truncated-stack>; counter samples with
 * no stack are collector_not_program_related, clock ones <Unknown>.  Kernel
 * frames (-K) hang below the user leaf, in [kernel.kallsyms] or their
 * module's object (kernel.c).
 * Whole-machine kernel profiling (docs/design/kernel-profiling.md): a CPU's idle
 * packets are <IDLE>; interrupt packets <HARDIRQ> or <SOFTIRQ> (under
 * <IDLE> for an idle CPU's), with the interrupt's kernel stack below, its
 * leaf the handler's entry; off-CPU packets' kernel stack (KBLOCK) starts
 * at __schedule, every frame a return address, and the scheduler's own
 * frames are folded into the call that blocked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"

struct pc_key {
	uint32_t obj, ret;
	uint64_t vaddr;
};

static bool pc_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;
	const struct pc_key *k = key;
	struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, id);

	return p->obj == k->obj && p->addr == k->vaddr && p->ret == k->ret;
}

/* A new pc, not hashed (an inline level), or UINT32_MAX. */
static uint32_t pc_push(struct an *an, const struct pc_key *k, uint32_t func,
			uint32_t line, uint32_t ifunc)
{
	struct an_pc *p = an_vec_push(&an->pcs);

	if (!p)
		return UINT32_MAX;
	p->obj = k->obj;
	p->addr = k->vaddr;
	p->ret = k->ret;
	p->func = func;
	p->line = line;
	p->ifunc = ifunc;
	return an->pcs.n - 1;
}

static uint32_t pc_new(struct an *an, const struct pc_key *k, uint64_t h,
		       uint32_t func, uint32_t line, uint32_t ifunc)
{
	uint32_t id = pc_push(an, k, func, line, ifunc);

	if (id == UINT32_MAX || an_htab_add(&an->ld->pcs_h, h, id))
		return UINT32_MAX;
	return id;
}

/*
 * -inline on: the frame's own pc (the function of the symbol, on the line
 * of the outermost inlined call), then a pc per inlined call, outermost
 * first, each on the line of the next call in, the innermost on the
 * line-table's line (line).  Those follow it in an->pcs, not hashed.
 */
static uint32_t inline_pcs(struct an *an, const struct pc_key *k, uint64_t h,
			   uint32_t func, uint32_t line, uint64_t look)
{
	struct an_inl inl[AN_INL_MAX];
	int n = an_pc_inlines(an, k->obj, look, inl), lv;
	uint32_t base, ln, id;

	if (!n)
		return pc_new(an, k, h, func, line, func);
	base = pc_new(an, k, h, func, an_inl_line(an, func, &inl[n - 1]), func);
	if (base == UINT32_MAX)
		return base;
	for (lv = 1; lv <= n; lv++) {
		int j = n - lv;

		ln = j ? an_inl_line(an, inl[j].func, &inl[j - 1]) : line;
		id = pc_push(an, k, func, ln, inl[j].func);
		if (id == UINT32_MAX)
			return id;
		AN_VEC(an->pcs, struct an_pc, id).inl = lv;
	}
	AN_VEC(an->pcs, struct an_pc, base).inl_n = n;
	return base;
}

uint32_t an_pc_named(struct an *an, uint32_t obj, uint64_t vaddr, uint32_t ret,
		     uint32_t func, uint32_t line, uint32_t ifunc)
{
	struct pc_key k = { obj, ret, vaddr };
	uint64_t h = an_hash(&k, sizeof(k), 13);
	uint32_t id = an_htab_find(&an->ld->pcs_h, h, pc_eq, an, &k);

	return id != UINT32_MAX ? id : pc_new(an, &k, h, func, line, ifunc);
}

uint32_t an_pc_alias(struct an *an, uint32_t obj, uint64_t vaddr, uint32_t ret,
		     uint32_t func, uint32_t line, uint32_t ifunc)
{
	struct pc_key k = { obj, ret, vaddr };

	return pc_push(an, &k, func, line, ifunc);
}

/* A pc of obj at vaddr; ret: a return address (look up vaddr - 1). */
uint32_t an_pc_intern(struct an *an, uint32_t obj, uint64_t vaddr, bool ret)
{
	struct pc_key k = { obj, ret, vaddr };
	uint64_t h = an_hash(&k, sizeof(k), 13), look;
	uint32_t id = an_htab_find(&an->ld->pcs_h, h, pc_eq, an, &k), func, line,
		 ifunc;

	if (id != UINT32_MAX)
		return id;
	look = ret && vaddr ? vaddr - 1 : vaddr;
	if (obj == an->o_unknown || AN_VEC(an->objs, struct an_obj, obj).kernel) {
		func = obj != an->o_unknown ? an_kernel_func(an, vaddr, ret) :
			an->f_unknown;
		if (func == UINT32_MAX)
			return UINT32_MAX;
		line = UINT32_MAX;
		ifunc = func;
		if (obj == an->o_unknown)
			return pc_new(an, &k, h, func, line, ifunc);
		/* a kernel object: lines when there is a debug image */
		line = an_pc_line(an, obj, look, func, &ifunc);
		if (an->inline_funcs)
			return inline_pcs(an, &k, h, func, line, look);
	} else {
		an_obj_open(an, obj);
		func = an_obj_func(an, obj, look);
		if (func == UINT32_MAX)
			return UINT32_MAX;
		line = an_pc_line(an, obj, look, func, &ifunc);
		if (an->inline_funcs)
			return inline_pcs(an, &k, h, func, line, look);
	}
	return pc_new(an, &k, h, func, line, ifunc);
}

/* The pc of kernel address ip, in its object ([kernel.kallsyms], a module). */
static uint32_t kernel_pc(struct an *an, uint64_t ip, bool ret)
{
	uint32_t f = an_kernel_func(an, ip, ret);

	if (f == UINT32_MAX)
		return UINT32_MAX;
	return an_pc_intern(an, AN_VEC(an->funcs, struct an_func, f).obj, ip,
			    ret);
}

/* The pc standing for a pseudo function (its own key space: ret = 2). */
static uint32_t pseudo_pc(struct an *an, uint32_t func)
{
	return an_pc_named(an, an->o_unknown, func, 2, func, UINT32_MAX, func);
}

struct node_key {
	uint32_t parent, pc;
};

static bool node_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;
	const struct node_key *k = key;
	struct an_node *n = &AN_VEC(an->nodes, struct an_node, id);

	return n->parent == k->parent && n->pc == k->pc;
}

uint64_t an_node_hash(uint32_t parent, uint32_t pc)
{
	return an_mix(an_mix(17, parent), pc);
}

uint32_t an_node_intern_in(struct an *an, struct an_htab *t, uint32_t parent,
			   uint32_t pc)
{
	struct node_key k = { parent, pc };
	uint64_t h = an_node_hash(parent, pc);
	uint32_t id = an_htab_find(t, h, node_eq, an, &k);
	struct an_node *n;

	if (id != UINT32_MAX)
		return id;
	n = an_vec_push(&an->nodes);
	if (!n)
		return UINT32_MAX;
	n->parent = parent;
	n->pc = pc;
	n->depth = parent == UINT32_MAX ? 1 :
		AN_VEC(an->nodes, struct an_node, parent).depth + 1;
	id = an->nodes.n - 1;
	return an_htab_add(t, h, id) ? UINT32_MAX : id;
}

uint32_t an_node_intern(struct an *an, uint32_t parent, uint32_t pc)
{
	return an_node_intern_in(an, &an->ld->nodes_h, parent, pc);
}

/* The mapping of as that holds ip (the latest one when several do). */
static struct an_map *map_find(struct an_as *a, uint64_t ip)
{
	struct an_map *m = a->maps.p, *best = NULL;
	size_t lo = 0, hi = a->maps.n, mid, k;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (m[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k > 0 && k + 32 > lo; k--) {
		struct an_map *x = &m[k - 1];

		if (ip < x->end && (!best || x->time_ns > best->time_ns))
			best = x;
	}
	return best;
}

static uint32_t ip_pc(struct an *an, struct an_as *a, uint64_t ip, bool ret)
{
	struct an_map *m = map_find(a, ip);
	uint64_t vaddr;

	if (!m)
		return an_pc_intern(an, an->o_unknown, ip, ret);
	if (an->java && AN_VEC(an->objs, struct an_obj, m->obj).pseudo) {
		uint32_t pc = an_java_code_pc(an, a, ip, ret);

		if (pc != AN_JAVA_NONE)
			return pc;	/* a JVM's code, or UINT32_MAX */
	}
	if (an_obj_open(an, m->obj) ||
	    an_obj_vaddr(an, m->obj, ip - m->start + m->pgoff, &vaddr))
		vaddr = ip - m->start + m->pgoff;
	return an_pc_intern(an, m->obj, vaddr, ret);
}

/*
 * Frames ips[n - 1] (root) .. ips[0] under *parent (UINT32_MAX: the root);
 * -inline on adds levels.  -ENOMEM, or 0 and *parent the leaf's node.
 */
static int add_frames(struct an *an, struct an_as *a, uint32_t *parent,
		      const uint64_t *ips, uint32_t n, bool kernel, bool leaf_ret)
{
	uint32_t pc, lv, node = *parent;

	while (n--) {
		if (kernel && !ips[n])
			continue;
		pc = kernel ? kernel_pc(an, ips[n], n > 0 || leaf_ret) :
			ip_pc(an, a, ips[n], n > 0);
		if (pc == UINT32_MAX)
			return -ENOMEM;
		node = an_node_intern(an, node, pc);
		for (lv = 1; node != UINT32_MAX &&
		     lv <= AN_VEC(an->pcs, struct an_pc, pc).inl_n; lv++)
			node = an_node_intern(an, node, pc + lv);
		if (node == UINT32_MAX)
			return -ENOMEM;
	}
	*parent = node;
	return 0;
}

uint32_t an_pseudo_node(struct an *an, uint32_t parent, uint32_t *f,
			const char *name)
{
	if (an_func_pseudo_own(an, f, name) == UINT32_MAX)
		return UINT32_MAX;
	return an_node_intern(an, parent, pseudo_pc(an, *f));
}

/*
 * The pseudo frames of idle and interrupt packets under *parent; the
 * kernel frames of an interrupt go below them.
 */
static int pseudo_frames(struct an *an, const struct an_raw *r, uint32_t *parent)
{
	if (r->flags & AN_RAW_IDLE) {
		*parent = an_pseudo_node(an, *parent, &an->f_idle, "<IDLE>");
		if (*parent == UINT32_MAX)
			return -ENOMEM;
	}
	if (r->flags & AN_RAW_HARDIRQ)
		*parent = an_pseudo_node(an, *parent, &an->f_hardirq, "<HARDIRQ>");
	else if (r->flags & AN_RAW_SOFTIRQ)
		*parent = an_pseudo_node(an, *parent, &an->f_softirq, "<SOFTIRQ>");
	else
		return 0;
	return *parent == UINT32_MAX ? -ENOMEM : 0;
}

static uint32_t resolve_raw(struct an *an, struct an_raw *r)
{
	const uint64_t *ips = &AN_VEC(an->ld->rawips, uint64_t, r->off);
	struct an_as *a = &AN_VEC(an->as, struct an_as, r->as);
	uint32_t parent = UINT32_MAX, nk = r->flags >> AN_RAW_KSHIFT;
	uint32_t n = r->n - nk, skip = 0;
	bool kblock = r->flags & AN_RAW_KBLOCK;

	if (r->flags & AN_RAW_NOPROG)
		return an_node_intern(an, UINT32_MAX, pseudo_pc(an, an->f_noprog));
	while (n > 1 && (!ips[n - 1] || ips[n - 1] == UINT64_MAX))
		n--;	/* end-of-stack markers */
	if (nk && an_kernel_obj(an) == UINT32_MAX)
		return UINT32_MAX;
	if (!n && !nk && !(r->flags & (AN_RAW_IDLE | AN_RAW_HARDIRQ | AN_RAW_SOFTIRQ)))
		return an_node_intern(an, UINT32_MAX, pseudo_pc(an, an->f_unknown));
	if (r->flags & AN_RAW_TRUNC) {
		parent = an_node_intern(an, UINT32_MAX, pseudo_pc(an, an->f_trunc));
		if (parent == UINT32_MAX)
			return parent;
	}
	if (kblock)	/* where it blocked, not the scheduler's frames */
		skip = an_kernel_sched(an, ips + (r->n - nk), nk);
	/* the user frames, then the kernel's below the user leaf */
	if (add_frames(an, a, &parent, ips, n, false, false) ||
	    pseudo_frames(an, r, &parent) ||
	    add_frames(an, a, &parent, ips + (r->n - nk) + skip, nk - skip, true,
		       kblock))
		return UINT32_MAX;
	if (parent == UINT32_MAX)	/* only zero kernel frames */
		return an_node_intern(an, UINT32_MAX, pseudo_pc(an, an->f_unknown));
	return parent;
}

int an_resolve(struct an *an)
{
	size_t i;

	for (i = 0; i < an->ld->raws.n; i++) {
		struct an_raw *r = &AN_VEC(an->ld->raws, struct an_raw, i);
		uint32_t node = resolve_raw(an, r);

		if (node == UINT32_MAX)
			return an_errf(an, -ENOMEM, "out of memory");
		AN_VEC(an->ld->raws, struct an_raw, i).node = node;
	}
	for (i = 0; i < an->s.n; i++)
		an->s.stack[i] = AN_VEC(an->ld->raws, struct an_raw,
					an->s.stack[i]).node;
	return an->java ? an_java_stacks(an) : 0;
}
