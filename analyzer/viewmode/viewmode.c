// SPDX-License-Identifier: GPL-2.0
/*
 * The view modes' frame (viewmode.h): the machine stacks kept aside, the
 * languages asked once, and each sample's stack rewritten by them and
 * interned in the pc trie (its nodes, hashed again here: the loader's
 * table is gone once loading ends).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"
#include "analyzer/viewmode/viewmode.h"

/* The languages, in the order they rewrite a stack. */
static const struct an_vm_lang *const langs[] = {
	&an_vm_omp,
	&an_vm_java,
};

#define NLANGS (sizeof(langs) / sizeof(langs[0]))

static const char *const names[AN_VM_COUNT] = { "user", "expert", "machine" };

struct an_vm {
	enum an_viewmode mode;
	uint32_t *machine;	/* per sample: its stack as loaded */
	size_t n;
	struct an_htab nodes;	/* (parent, pc) -> node */
	struct an_htab pseudo;	/* pseudo function -> its pc */
	void *state[NLANGS];	/* NULL: that language does not apply */
	bool any;
};

int an_viewmode_parse(const char *s)
{
	int m;

	for (m = 0; m < AN_VM_COUNT; m++)
		if (!strcmp(s, names[m]))
			return m;
	return -1;
}

const char *an_viewmode_name(enum an_viewmode m)
{
	return m < AN_VM_COUNT ? names[m] : "?";
}

enum an_viewmode an_viewmode_get(const struct an *an)
{
	return an->vm ? an->vm->mode : AN_VM_USER;
}

const char *an_viewmode_langs(const struct an *an, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; an->vm && i < NLANGS && at < len; i++)
		if (an->vm->state[i])
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				       langs[i]->name);
	return buf;
}

int an_vm_push(struct an_vm_stack *s, uint32_t pc)
{
	uint32_t *p;

	if (s->n == s->cap) {
		p = realloc(s->pc, sizeof(*p) * (s->cap ? 2 * s->cap : 64));
		if (!p)
			return -ENOMEM;
		s->pc = p;
		s->cap = s->cap ? 2 * s->cap : 64;
	}
	s->pc[s->n++] = pc;
	return 0;
}

uint32_t an_vm_machine_node(const struct an *an, size_t i)
{
	return an->vm && i < an->vm->n ? an->vm->machine[i] : an->s.stack[i];
}

int an_vm_frames(struct an *an, uint32_t node, struct an_vm_stack *s)
{
	uint32_t k, d;

	s->n = 0;
	if (node == UINT32_MAX)
		return 0;
	d = AN_VEC(an->nodes, struct an_node, node).depth;
	for (k = 0; k < d; k++)
		if (an_vm_push(s, 0))
			return -ENOMEM;
	for (k = d; k > 0 && node != UINT32_MAX; k--) {
		const struct an_node *n = &AN_VEC(an->nodes, struct an_node, node);

		s->pc[k - 1] = n->pc;
		node = n->parent;
	}
	return 0;
}

static bool pseudo_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, id);

	return !strcmp(AN_VEC(an->funcs, struct an_func, p->func).name, key);
}

uint32_t an_vm_pseudo_pc(struct an *an, const char *obj, const char *name)
{
	uint64_t h = an_hash(name, strlen(name), 31);
	uint32_t id = an_htab_find(&an->vm->pseudo, h ? h : 1, pseudo_eq, an,
				   name), f;
	struct an_pc *p;

	if (id != UINT32_MAX)
		return id;
	f = an_func_pseudo_in(an, obj, name);
	if (f == UINT32_MAX)
		return UINT32_MAX;
	p = an_vec_push(&an->pcs);
	if (!p)
		return UINT32_MAX;
	/* as the loader makes a pseudo function's pc (symbols/resolve.c) */
	p->obj = an->o_unknown;
	p->ret = 2;
	p->addr = f;
	p->func = p->ifunc = f;
	p->line = UINT32_MAX;
	id = an->pcs.n - 1;
	return an_htab_add(&an->vm->pseudo, h ? h : 1, id) ? UINT32_MAX : id;
}

/* The machine stacks kept, the trie hashed, the languages asked. */
static int vm_open(struct an *an)
{
	struct an_vm *vm = calloc(1, sizeof(*vm));
	size_t i;
	int err = 0;

	if (!vm)
		return -ENOMEM;
	an->vm = vm;
	vm->mode = AN_VM_MACHINE;
	for (i = 0; i < NLANGS && !err; i++) {
		err = langs[i]->open(an, &vm->state[i]);
		vm->any |= vm->state[i] != NULL;
	}
	if (err || !vm->any)
		return err;
	vm->n = an->s.n;
	vm->machine = malloc(sizeof(uint32_t) * (vm->n ? vm->n : 1));
	if (!vm->machine)
		return -ENOMEM;
	memcpy(vm->machine, an->s.stack, sizeof(uint32_t) * vm->n);
	for (i = 0; i < an->nodes.n && !err; i++) {
		const struct an_node *n = &AN_VEC(an->nodes, struct an_node, i);

		err = an_htab_add(&vm->nodes, an_node_hash(n->parent, n->pc), i);
	}
	return err;
}

int an_viewmode_set(struct an *an, enum an_viewmode m)
{
	struct an_vm_stack s = { 0 };
	struct an_vm *vm;
	uint32_t node, k;
	size_t i, j;
	int err = 0;

	if (!an->vm && vm_open(an))
		return an_errf(an, -ENOMEM, "out of memory");
	vm = an->vm;
	if (!vm->any || vm->mode == m) {
		vm->mode = m;
		return 0;
	}
	for (i = 0; i < vm->n && !err; i++) {
		if (m == AN_VM_MACHINE) {
			an->s.stack[i] = vm->machine[i];
			continue;
		}
		err = an_vm_frames(an, vm->machine[i], &s);
		for (j = 0; j < NLANGS && !err; j++)
			if (vm->state[j])
				err = langs[j]->rewrite(an, vm->state[j], m, i, &s);
		node = UINT32_MAX;
		for (k = 0; k < s.n && !err; k++) {
			node = an_node_intern_in(an, &vm->nodes, node, s.pc[k]);
			if (node == UINT32_MAX)
				err = -ENOMEM;
		}
		if (!err && node == UINT32_MAX)	/* every frame folded away */
			node = vm->machine[i];
		an->s.stack[i] = node;
	}
	free(s.pc);
	if (err)
		return an_errf(an, err, "out of memory");
	vm->mode = m;
	return 0;
}

void an_viewmode_free(struct an *an)
{
	struct an_vm *vm = an->vm;
	size_t i;

	if (!vm)
		return;
	for (i = 0; i < NLANGS; i++)
		if (vm->state[i])
			langs[i]->close(vm->state[i]);
	free(vm->machine);
	an_htab_free(&vm->nodes);
	an_htab_free(&vm->pseudo);
	free(vm);
	an->vm = NULL;
}
