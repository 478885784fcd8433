// SPDX-License-Identifier: GPL-2.0
/*
 * Load objects and their functions.  A mapped file is read from the
 * experiment's archives/ copy when there is one (by device and inode, then
 * by path), else from its original path; the vDSO from its archived image
 * (archives/BUILDID/vdso.so), else it is one pseudo function.  Functions come from the symbol
 * table through libdwfl (which also finds separate debug files), with:
 * aliases collapsed to one name (global before weak before local), clones
 * (.cold, .part.N, .isra.N, .constprop.N, ...) under their parent's name,
 * name@plt stubs synthesized from .rela.plt, C++ names demangled, and
 * "<static>@0xADDR" for code between the symbols of a stripped object.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static bool obj_eq(void *ctx, uint32_t id, const void *key)
{
	struct an *an = ctx;

	return !strcmp(AN_VEC(an->obj_keys, char *, id), key);
}

static uint32_t obj_new(struct an *an, const char *key)
{
	struct an_obj *o = an_vec_push(&an->objs);
	char **k = an_vec_push(&an->obj_keys);

	if (!o || !k)
		return UINT32_MAX;
	*k = strdup(key);
	o->num = an->objs.n;
	o->fd = -1;
	o->syms.esz = sizeof(struct an_sym);
	o->phdrs.esz = sizeof(struct an_seg);
	o->unknown_func = UINT32_MAX;
	if (!*k || an_htab_add(&an->obj_h, an_hash(key, strlen(key), 3),
			       an->objs.n - 1))
		return UINT32_MAX;
	return an->objs.n - 1;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

uint32_t an_obj_get(struct an *an, uint32_t exp, const char *path,
		    uint32_t maj, uint32_t min, uint64_t ino, bool anon)
{
	struct an_exp *e = &AN_VEC(an->exps, struct an_exp, exp);
	struct an_archive *a = NULL, *x;
	char key[4200];
	struct an_obj *o;
	uint32_t id;
	size_t i;

	for (i = 0; !anon && i < e->archives.n; i++) {
		x = &AN_VEC(e->archives, struct an_archive, i);
		if (x->ino == ino && x->dev_major == maj && x->dev_minor == min) {
			a = x;
			break;
		}
	}
	/* By path; the vDSO is no file, but the recorder archives its image. */
	for (i = 0; (!anon || !strcmp(path, "[vdso]")) && !a &&
	     i < e->archives.n; i++) {
		x = &AN_VEC(e->archives, struct an_archive, i);
		if (!strcmp(x->orig, path))
			a = x;
	}
	if (a)
		anon = false;
	if (a && strcmp(a->buildid, "-"))
		snprintf(key, sizeof(key), "b:%s:%s", a->buildid, base_name(path));
	else if (anon)
		snprintf(key, sizeof(key), "a:%s", path);
	else
		snprintf(key, sizeof(key), "p:%u:%u:%" PRIu64 ":%s", maj, min, ino,
			 path);
	id = an_htab_find(&an->obj_h, an_hash(key, strlen(key), 3), obj_eq, an,
			  key);
	if (id != UINT32_MAX)
		return id;
	id = obj_new(an, key);
	if (id == UINT32_MAX)
		return id;
	o = &AN_VEC(an->objs, struct an_obj, id);
	o->path = strdup(path);
	o->name = strdup(base_name(path));
	o->file = strdup(a ? a->file : path);
	o->dev_major = maj;
	o->dev_minor = min;
	o->ino = ino;
	o->pseudo = anon;
	o->opened = anon;	/* [vdso], //anon: no file to read */
	if (!o->path || !o->name || !o->file)
		return UINT32_MAX;
	return id;
}

/* A function of a pseudo object (<Total>, <Unknown>, ...). */
uint32_t an_func_pseudo(struct an *an, const char *name)
{
	struct an_func *f = an_vec_push(&an->funcs);

	if (!f)
		return UINT32_MAX;
	f->obj = an->o_unknown;
	f->flags = AN_F_PSEUDO;
	f->name = strdup(name);
	f->lname = strdup(name);
	f->file = UINT32_MAX;
	if (!f->name || !f->lname)
		return UINT32_MAX;
	return an->funcs.n - 1;
}

int an_objs_init(struct an *an)
{
	uint32_t id = obj_new(an, "<Unknown>");
	struct an_obj *o;

	if (id == UINT32_MAX)
		return -ENOMEM;
	o = &AN_VEC(an->objs, struct an_obj, id);
	o->name = strdup("<Unknown>");
	o->path = strdup("<Unknown>");
	o->file = strdup("");
	o->pseudo = true;
	o->opened = true;
	an->o_unknown = id;
	return o->name && o->path && o->file ? 0 : -ENOMEM;
}

void an_objs_free(struct an *an)
{
	size_t i;

	for (i = 0; i < an->obj_keys.n; i++)
		free(AN_VEC(an->obj_keys, char *, i));
	free(an->obj_keys.p);
	an_htab_free(&an->obj_h);
}

void an_obj_free(struct an_obj *o)
{
	if (o->dwfl)
		dwfl_end(o->dwfl);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->phdrs.p);
	free(o->syms.p);
	an_htab_free(&o->fnames);
	free(o->name);
	free(o->path);
	free(o->file);
}

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

static int read_phdrs(struct an_obj *o)
{
	size_t n, i;
	GElf_Phdr ph;
	struct an_seg *s;

	if (elf_getphdrnum(o->elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(o->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s = an_vec_push(&o->phdrs);
		if (!s)
			return -ENOMEM;
		s->vaddr = ph.p_vaddr;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->flags = ph.p_flags;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct an_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_syms(struct an *an, uint32_t obj)
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
		if (nm[0] == '_')
			r->rank += 4;	/* prefer memcpy to __memcpy */
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

int an_obj_open(struct an *an, uint32_t obj)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	int err;

	if (o->opened)
		return o->failed ? -ENOENT : 0;
	o->opened = true;
	o->fd = open(o->file, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0) {
		an_warn(an, "%s: %s: its functions show as <Unknown>", o->file,
			strerror(errno));
		goto fail;
	}
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF) {
		an_warn(an, "%s: not an ELF file: its functions show as <Unknown>",
			o->file);
		goto fail;
	}
	err = read_phdrs(o);
	if (err)
		goto fail;
	o->dwfl = dwfl_begin(&offline_cb);
	if (!o->dwfl)
		goto fail;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_offline(o->dwfl, o->name, o->file, -1);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		an_warn(an, "%s: %s", o->file, dwfl_errmsg(-1));
		goto fail;
	}
	{
		Dwarf_Addr bias = 0;

		dwfl_module_getelf(o->mod, &bias);
		o->mod_bias = bias;
	}
	err = read_syms(an, obj);
	if (err)
		return err;
	return 0;
fail:
	o = &AN_VEC(an->objs, struct an_obj, obj);
	o->failed = true;
	return -ENOENT;
}

/* File offset (from a mapping) to the object's vaddr. */
int an_obj_vaddr(struct an *an, uint32_t obj, uint64_t off, uint64_t *vaddr)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	size_t i;

	for (i = 0; i < o->phdrs.n; i++) {
		struct an_seg *s = &AN_VEC(o->phdrs, struct an_seg, i);

		if (off >= s->offset && off < s->offset + s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	*vaddr = off;
	return -ENOENT;
}

static uint32_t static_func(struct an *an, uint32_t obj, uint64_t from)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "<static>@0x%" PRIx64, from);
	return an_obj_fname(an, obj, buf, from, 0);
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
		return static_func(an, obj, 0);
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

const char *an_func_name(struct an *an, uint32_t f)
{
	struct an_func *fn = &AN_VEC(an->funcs, struct an_func, f);

	return an->name_long ? fn->lname : fn->name;
}
