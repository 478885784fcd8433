// SPDX-License-Identifier: GPL-2.0
/*
 * An object's functions, from its symbol table through libdwfl (which also
 * finds separate debug files, obj.c): aliases collapsed to one name
 * (global before weak before local; in the vDSO its own __vdso_* names),
 * clones (.cold, .part.N, .isra.N, .constprop.N, ...) under their
 * parent's name, name@plt stubs synthesized from .rela.plt, C++ names
 * demangled, and "<static>@0xADDR (OBJECT)" for code between the symbols
 * of a stripped object (ADDR: where the symbol before it ends, else where
 * its section starts).
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/symbols.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The parent's name of a clone ("foo.cold" -> "foo"), in place. */
static void clone_base(char *name)
{
	static const char *const sfx[] = { "cold", "part", "isra", "constprop",
					   "lto_priv", "localalias", "hot",
					   "clone", NULL };
	char *d;
	int i;

	for (d = strchr(name, '.'); d; d = strchr(d + 1, '.')) {
		for (i = 0; sfx[i]; i++) {
			size_t l = strlen(sfx[i]);

			if (!strncmp(d + 1, sfx[i], l) &&
			    (d[1 + l] == 0 || d[1 + l] == '.' ||
			     (d[1 + l] >= '0' && d[1 + l] <= '9'))) {
				if (d != name)
					*d = 0;
				return;
			}
		}
	}
}

struct rawsym {
	uint64_t addr, size;
	char *name;
	int rank;
};

static int rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

static char *display_name(const char *sym)
{
	char *base = strdup(sym), *dm;
	int st = -1;

	if (!base)
		return NULL;
	clone_base(base);
	if (base[0] == '_' && base[1] == 'Z') {
		dm = __cxa_demangle(base, NULL, NULL, &st);
		if (dm && !st) {
			free(base);
			return dm;
		}
		free(dm);
	}
	return base;
}

/* name@plt stubs: one per .rela.plt entry, in .plt.sec or after .plt's header. */
static int read_plt(Elf *elf, struct an_vec *out)
{
	Elf_Scn *scn = NULL, *rela = NULL;
	uint64_t plt = 0, pltsec = 0;
	GElf_Shdr sh, rsh;
	size_t shstr, i, n;
	Elf_Data *d, *symd;
	GElf_Shdr symsh;
	Elf_Scn *dynsym;

	if (elf_getshdrstrndx(elf, &shstr))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm;

		if (!gelf_getshdr(scn, &sh))
			continue;
		nm = elf_strptr(elf, shstr, sh.sh_name);
		if (!nm)
			continue;
		if (!strcmp(nm, ".plt"))
			plt = sh.sh_addr;
		else if (!strcmp(nm, ".plt.sec"))
			pltsec = sh.sh_addr;
		else if (!strcmp(nm, ".rela.plt"))
			rela = scn;
	}
	if (!rela || !(plt || pltsec) || !gelf_getshdr(rela, &rsh) ||
	    rsh.sh_entsize != sizeof(Elf64_Rela))
		return 0;
	dynsym = elf_getscn(elf, rsh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &symsh))
		return 0;
	d = elf_getdata(rela, NULL);
	symd = elf_getdata(dynsym, NULL);
	if (!d || !symd)
		return 0;
	n = d->d_size / sizeof(Elf64_Rela);
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *nm;
		struct rawsym *rs;
		char buf[512];

		if (!gelf_getrela(d, i, &r) ||
		    !gelf_getsym(symd, GELF_R_SYM(r.r_info), &s))
			continue;
		nm = elf_strptr(elf, symsh.sh_link, s.st_name);
		if (!nm || !*nm)
			continue;
		snprintf(buf, sizeof(buf), "%s@plt", nm);
		rs = an_vec_push(out);
		if (!rs || !(rs->name = strdup(buf)))
			return -ENOMEM;
		rs->addr = pltsec ? pltsec + 16 * i : plt + 16 * (i + 1);
		rs->size = 16;
		rs->rank = 3;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct an_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int an_obj_syms(struct an *an, uint32_t obj)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	struct an_vec raw = { .esz = sizeof(struct rawsym) };
	int n = dwfl_module_getsymtab(o->mod), i, err = 0;
	struct rawsym *r;
	size_t k;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfp;
		Dwarf_Addr bias;
		const char *nm = dwfl_module_getsym_info(o->mod, i, &sym, &addr,
							 &shndx, &selfp, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind;

		if (!nm || !*nm || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		r = an_vec_push(&raw);
		if (!r || !(r->name = strdup(nm))) {
			err = -ENOMEM;
			goto out;
		}
		if (strchr(r->name, '@'))
			*strchr(r->name, '@') = 0;	/* foo@@GLIBC_2.34: a version */
		nm = r->name;
		bind = GELF_ST_BIND(sym.st_info);
		r->addr = addr - o->mod_bias;
		r->size = sym.st_size;
		r->rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		/*
		 * Prefer memcpy to __memcpy; but the vDSO's own names
		 * (__vdso_clock_gettime, global; perf shows them too) over
		 * their weak aliases, which are libc's names
		 */
		if (nm[0] == '_' && strncmp(nm, "__vdso_", 7))
			r->rank += 4;
		if (strchr(nm, '.'))
			r->rank += 8;	/* and the parent to its clones */
	}
	err = read_plt(o->elf, &raw);
	if (err)
		goto out;
	qsort(raw.p, raw.n, raw.esz, rawsym_cmp);
	for (k = 0; k < raw.n; k++) {
		struct an_sym *s;
		char *dn;
		uint32_t f;

		r = &AN_VEC(raw, struct rawsym, k);
		if (k && r->addr == AN_VEC(raw, struct rawsym, k - 1).addr)
			continue;	/* an alias: the first name wins */
		dn = display_name(r->name);
		if (!dn) {
			err = -ENOMEM;
			goto out;
		}
		f = an_obj_fname(an, obj, dn, r->addr, r->size);
		free(dn);
		if (f != UINT32_MAX && !strchr(r->name, '.'))
			AN_VEC(an->funcs, struct an_func, f).addr = r->addr;	/* not a clone's */
		o = &AN_VEC(an->objs, struct an_obj, obj);
		s = an_vec_push(&o->syms);
		if (f == UINT32_MAX || !s) {
			err = -ENOMEM;
			goto out;
		}
		s->addr = r->addr;
		s->size = r->size;
		s->func = f;
	}
	qsort(o->syms.p, o->syms.n, o->syms.esz, sym_cmp);
out:
	for (k = 0; k < raw.n; k++)
		free(AN_VEC(raw, struct rawsym, k).name);
	free(raw.p);
	return err;
}

/* "<static>@0xADDR (OBJECT)", as Oracle's tools name code without a symbol */
static uint32_t static_func(struct an *an, uint32_t obj, uint64_t from)
{
	char buf[4200];

	snprintf(buf, sizeof(buf), "<static>@0x%" PRIx64 " (%s)", from,
		 AN_VEC(an->objs, struct an_obj, obj).name);
	return an_obj_fname(an, obj, buf, from, 0);
}

/* Where the section holding vaddr starts (code before any symbol); else 0. */
static uint64_t section_start(struct an_obj *o, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (o->elf && (scn = elf_nextscn(o->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOBITS && vaddr >= sh.sh_addr &&
		    vaddr < sh.sh_addr + sh.sh_size)
			return sh.sh_addr;
	return 0;
}

/* The function at vaddr in obj (opened). */
uint32_t an_obj_func(struct an *an, uint32_t obj, uint64_t vaddr)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	struct an_sym *s = o->syms.p;
	size_t lo = 0, hi = o->syms.n, mid;
	uint64_t end;

	if (o->pseudo && obj != an->o_unknown)
		return an_obj_fname(an, obj, o->name, 0, 0);	/* "[vdso]" */
	if (o->failed || o->pseudo)
		return an->f_unknown;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return static_func(an, obj, section_start(o, vaddr));
	s = &s[lo - 1];
	end = s->addr + s->size;
	if (!s->size) {
		end = lo < o->syms.n ? AN_VEC(o->syms, struct an_sym, lo).addr :
			s->addr + 4096;
		if (end > s->addr + 4096)
			end = s->addr + 4096;
	}
	if (vaddr < end)
		return s->func;
	return static_func(an, obj, end);
}
