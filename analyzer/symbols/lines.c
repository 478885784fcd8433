// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines through libdw (DWARF 4 and 5 line tables): a pc maps to the
 * line its instruction came from, which for inlined code is the line in the
 * inlined body.  The function stays the caller's (the symbol), unless
 * inline functions are asked for (-inline on): then the innermost
 * DW_TAG_inlined_subroutine names it, and an_pc_inlines gives the chain
 * of inlined calls for the frames resolve.c adds.  Kernel objects' lines
 * come from their debug image, at the address kernel.c relates to it.
 */
#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"

struct line_key {
	uint32_t func, file, line;
};

static bool line_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;
	const struct line_key *k = key;
	struct an_line *l = &AN_VEC(an->lines, struct an_line, id);

	return l->func == k->func && l->file == k->file && l->line == k->line;
}

uint32_t an_line_intern(struct an *an, uint32_t func, uint32_t file,
			uint32_t line)
{
	struct line_key k = { func, file, line };
	uint64_t h = an_hash(&k, sizeof(k), 11);
	uint32_t id = an_htab_find(&an->lines_h, h, line_eq, an, &k);
	struct an_line *l;

	if (id != UINT32_MAX)
		return id;
	l = an_vec_push(&an->lines);
	if (!l)
		return UINT32_MAX;
	l->func = func;
	l->file = file;
	l->line = line;
	id = an->lines.n - 1;
	return an_htab_add(&an->lines_h, h, id) ? UINT32_MAX : id;
}

/* The innermost inlined function at addr, or UINT32_MAX. */
static uint32_t inlined_at(struct an *an, Dwfl_Module *mod, uint32_t obj,
			   Dwarf_Addr maddr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, maddr, &bias), *scopes = NULL;
	Dwarf_Die origin;
	Dwarf_Attribute at;
	uint32_t f = UINT32_MAX;
	const char *nm;
	int n, i;

	if (!cu)
		return f;
	n = dwarf_getscopes(cu, maddr - bias, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		if (!dwarf_attr_integrate(&scopes[i], DW_AT_abstract_origin, &at) ||
		    !dwarf_formref_die(&at, &origin))
			break;
		nm = dwarf_diename(&origin);
		if (nm)
			f = an_obj_fname(an, obj, nm, 0, 0);
		break;
	}
	free(scopes);
	return f;
}

/*
 * The libdwfl module of obj and the address of its vaddr there: a kernel
 * object's from its debug image (kernel.c), if any; NULL when none.
 */
static Dwfl_Module *dw_addr(struct an *an, uint32_t obj, uint64_t vaddr,
			    Dwarf_Addr *maddr)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	uint64_t a;

	if (o->kernel) {
		if (an_kernel_dwaddr(an, obj, vaddr, &a))
			return NULL;
		o = &AN_VEC(an->objs, struct an_obj, obj);
		*maddr = a;
		return o->mod;
	}
	if (o->pseudo || o->failed || !o->mod)
		return NULL;
	*maddr = vaddr + o->mod_bias;
	return o->mod;
}

/*
 * The line at maddr of a unit libdw cannot find by address: an object
 * without .debug_aranges (clang's default), whose units are looked at
 * one by one.  NULL: none.
 */
static const char *unit_line(Dwfl_Module *mod, Dwarf_Addr maddr, int *lineno)
{
	Dwarf *dw = dwfl_module_getdwarf(mod, &(Dwarf_Addr){ 0 });
	Dwarf_Aranges *ar;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	Dwarf_Line *l;
	size_t n = 0;

	/* only where there are none: else libdw has answered already */
	if (!dw || dwarf_getaranges(dw, &ar, &n) || n)
		return NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		if (dwarf_haspc(cu, maddr - bias) <= 0)
			continue;
		l = dwarf_getsrc_die(cu, maddr - bias);
		if (!l || dwarf_lineno(l, lineno))
			return NULL;
		return dwarf_linesrc(l, NULL, NULL);
	}
	return NULL;
}

uint32_t an_pc_line(struct an *an, uint32_t obj, uint64_t vaddr,
		    uint32_t func, uint32_t *ifunc)
{
	Dwarf_Addr maddr;
	Dwfl_Module *mod = dw_addr(an, obj, vaddr, &maddr);
	const char *file;
	Dwfl_Line *l;
	uint32_t fid, f;
	int lineno = 0;

	*ifunc = func;
	if (!mod)
		return UINT32_MAX;
	l = dwfl_module_getsrc(mod, maddr);
	if (l)
		file = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	else
		file = unit_line(mod, maddr, &lineno);
	if (!file || lineno <= 0)
		return UINT32_MAX;
	if (an->inline_funcs) {
		f = inlined_at(an, mod, obj, maddr);
		if (f != UINT32_MAX)
			*ifunc = f;
	}
	fid = an_str_intern(&an->strs, file);
	if (fid == UINT32_MAX)
		return UINT32_MAX;
	return an_line_intern(an, *ifunc, fid, lineno);
}

/*
 * The inlined calls at vaddr, innermost first (at most AN_INL_MAX): each
 * DW_TAG_inlined_subroutine scope's function (its abstract origin's name)
 * and its DW_AT_call_file / DW_AT_call_line.  0 when none.
 */
int an_pc_inlines(struct an *an, uint32_t obj, uint64_t vaddr,
		  struct an_inl *out)
{
	Dwarf_Addr bias, maddr;
	Dwfl_Module *mod = dw_addr(an, obj, vaddr, &maddr);
	Dwarf_Die *cu, *scopes = NULL, origin;
	Dwarf_Attribute at;
	Dwarf_Files *files = NULL;
	Dwarf_Word w;
	size_t nfiles = 0;
	const char *nm;
	int n = 0, ns, i;

	if (!mod)
		return 0;
	cu = dwfl_module_addrdie(mod, maddr, &bias);
	if (!cu)
		return 0;
	ns = dwarf_getscopes(cu, maddr - bias, &scopes);
	if (ns > 0 && dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	for (i = 0; i < ns && n < AN_INL_MAX; i++) {
		int tag = dwarf_tag(&scopes[i]);
		struct an_inl *x = &out[n];

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;	/* a lexical block */
		if (!dwarf_attr_integrate(&scopes[i], DW_AT_abstract_origin, &at) ||
		    !dwarf_formref_die(&at, &origin))
			break;
		nm = dwarf_diename(&origin);
		x->func = nm ? an_obj_fname(an, obj, nm, 0, 0) : UINT32_MAX;
		if (x->func == UINT32_MAX)
			break;
		x->file = UINT32_MAX;
		x->line = 0;
		nm = NULL;
		if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &at) &&
		    !dwarf_formudata(&at, &w) && w < nfiles)
			nm = dwarf_filesrc(files, w, NULL, NULL);
		if (nm)
			x->file = an_str_intern(&an->strs, nm);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &at) &&
		    !dwarf_formudata(&at, &w))
			x->line = w;
		n++;
	}
	free(scopes);
	return n;
}

/* The line of an inlined call, in the function it was inlined into. */
uint32_t an_inl_line(struct an *an, uint32_t func, const struct an_inl *call)
{
	if (call->file == UINT32_MAX || !call->line)
		return UINT32_MAX;
	return an_line_intern(an, func, call->file, call->line);
}

const char *an_line_file(struct an *an, uint32_t line)
{
	return an_str(&an->strs, AN_VEC(an->lines, struct an_line, line).file);
}

/* The source file and first line of a function, from its entry pc. */
int an_func_src(struct an *an, uint32_t f, const char **file, int *line)
{
	struct an_func *fn = &AN_VEC(an->funcs, struct an_func, f);
	Dwarf_Addr maddr;
	Dwfl_Module *mod = dw_addr(an, fn->obj, fn->addr, &maddr);
	Dwfl_Line *l;

	if (!mod)
		return -ENOENT;
	l = dwfl_module_getsrc(mod, maddr);
	if (!l)
		return -ENOENT;
	*file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	return *file ? 0 : -ENOENT;
}
