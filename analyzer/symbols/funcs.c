// SPDX-License-Identifier: GPL-2.0
/*
 * Functions: an object's functions by their full (demangled) name, made
 * on first use by whoever names one (its symbol table, syms.c; the line
 * tables' inlined subroutines, lines.c; kallsyms, kernel.c), with the
 * short name the views show.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"

/* Short name: the demangled name without its parameter list. */
static char *short_name(const char *full)
{
	char *s = strdup(full);
	int depth = 0;
	char *p, *open = NULL;

	if (!s || full[0] == '<')
		return s;
	/* the last top-level '(' that is not part of "operator()" */
	for (p = s; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth)
			depth--;
		else if (*p == '(' && !depth && !open &&
			 !(p - s >= 8 && !strncmp(p - 8, "operator", 8)))
			open = p;
	}
	if (open && open != s)
		*open = 0;
	return s;
}

static bool fname_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;

	return !strcmp(AN_VEC(an->funcs, struct an_func, id).lname, key);
}

/* The function named full (demangled) in obj, made if new. */
uint32_t an_obj_fname(struct an *an, uint32_t obj, const char *full,
			  uint64_t addr, uint64_t size)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	uint64_t h = an_hash(full, strlen(full), 5);
	uint32_t id = an_htab_find(&o->fnames, h, fname_eq, an, full);
	struct an_func *f;

	if (id != UINT32_MAX) {
		f = &AN_VEC(an->funcs, struct an_func, id);
		f->size += size;
		return id;
	}
	f = an_vec_push(&an->funcs);
	if (!f)
		return UINT32_MAX;
	f->obj = obj;
	f->addr = addr;
	f->size = size;
	f->lname = strdup(full);
	f->name = short_name(full);
	f->file = UINT32_MAX;
	if (!f->lname || !f->name)
		return UINT32_MAX;
	id = an->funcs.n - 1;
	o = &AN_VEC(an->objs, struct an_obj, obj);
	return an_htab_add(&o->fnames, h, id) ? UINT32_MAX : id;
}

const char *an_func_name(struct an *an, uint32_t f, bool name_long)
{
	struct an_func *fn = &AN_VEC(an->funcs, struct an_func, f);

	return name_long ? fn->lname : fn->name;
}
