// SPDX-License-Identifier: GPL-2.0
/*
 * Load objects.  A mapped file is read from the
 * experiment's archives/ copy when there is one (by device and inode, then
 * by path), else from its original path; the vDSO from its archived image
 * (archives/BUILDID/vdso.so), else it is one pseudo function.  Each is
 * opened with libdwfl, which also finds its separate debug file (by
 * build-id under /usr/lib/debug: Debian's -dbgsym and -dbg packages);
 * its functions are read in syms.c.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/symbols/internal.h"

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
	const struct exp_archive *a = NULL, *x, *v;
	char key[4200];
	struct an_obj *o;
	uint32_t id;
	size_t i, n;

	exp_archives(e->x, &v, &n);
	for (i = 0; !anon && i < n; i++) {
		x = &v[i];
		if (x->ino == ino && x->dev_major == maj && x->dev_minor == min) {
			a = x;
			break;
		}
	}
	/* By path; the vDSO is no file, but the recorder archives its image. */
	for (i = 0; (!anon || !strcmp(path, "[vdso]")) && !a && i < n; i++) {
		x = &v[i];
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

/* A pseudo object (no file): <Unknown>, <Truncated-stack>. */
static uint32_t pseudo_obj_key(struct an *an, const char *key,
			       const char *name)
{
	uint32_t id = obj_new(an, key);
	struct an_obj *o;

	if (id == UINT32_MAX)
		return id;
	o = &AN_VEC(an->objs, struct an_obj, id);
	o->name = strdup(name);
	o->path = strdup(name);
	o->file = strdup("");
	o->pseudo = true;
	o->opened = true;
	return o->name && o->path && o->file ? id : UINT32_MAX;
}

static uint32_t pseudo_obj(struct an *an, const char *name)
{
	return pseudo_obj_key(an, name, name);
}

uint32_t an_obj_named(struct an *an, const char *key, const char *name)
{
	uint32_t id = an_htab_find(&an->obj_h, an_hash(key, strlen(key), 3),
				   obj_eq, an, key);

	return id != UINT32_MAX ? id : pseudo_obj_key(an, key, name);
}

/*
 * A kernel load object (kernel.c): [kernel.kallsyms] or a module's,
 * "[ext4]"; its functions come from kallsyms, not from a file.  Its own
 * key space ("k:"), apart from anonymous mappings such as [heap].
 */
uint32_t an_obj_kernel(struct an *an, const char *name)
{
	char key[128];
	uint32_t id;

	snprintf(key, sizeof(key), "k:%s", name);
	id = an_htab_find(&an->obj_h, an_hash(key, strlen(key), 3), obj_eq, an,
			  key);
	if (id != UINT32_MAX)
		return id;
	id = pseudo_obj_key(an, key, name);
	if (id != UINT32_MAX)
		AN_VEC(an->objs, struct an_obj, id).kernel = true;
	return id;
}

int an_objs_init(struct an *an)
{
	an->o_unknown = pseudo_obj(an, "<Unknown>");
	return an->o_unknown == UINT32_MAX ? -ENOMEM : 0;
}

/*
 * A pseudo function in a pseudo object of the same name (<IDLE>,
 * <HARDIRQ>, <SOFTIRQ>: their own rows in -objects), made on first use
 * (*f is UINT32_MAX until then), after the others, so that their numbers
 * stay as they were in experiments without them.
 */
uint32_t an_func_pseudo_own(struct an *an, uint32_t *f, const char *name)
{
	uint32_t obj;

	if (*f != UINT32_MAX)
		return *f;
	obj = pseudo_obj(an, name);
	if (obj == UINT32_MAX)
		return obj;
	*f = an_func_pseudo(an, name);
	if (*f != UINT32_MAX)
		AN_VEC(an->funcs, struct an_func, *f).obj = obj;
	return *f;
}

/*
 * A pseudo function in the pseudo object oname, which several share
 * (<OpenMP>'s <OMP-idle>, <OMP-lock> ...), both made on first use.
 */
uint32_t an_func_pseudo_in(struct an *an, const char *oname, const char *name)
{
	uint32_t obj = an_htab_find(&an->obj_h, an_hash(oname, strlen(oname), 3),
				    obj_eq, an, oname), f;

	if (obj == UINT32_MAX)
		obj = pseudo_obj(an, oname);
	if (obj == UINT32_MAX)
		return obj;
	f = an_func_pseudo(an, name);
	if (f != UINT32_MAX)
		AN_VEC(an->funcs, struct an_func, f).obj = obj;
	return f;
}

/*
 * <Truncated-stack> is a load object of its own in -objects, as er_print
 * shows it, not part of <Unknown>; made only when a stack was cut, after
 * the others, so that their numbers stay as they were.
 */
int an_objs_trunc(struct an *an)
{
	struct an_func *f = &AN_VEC(an->funcs, struct an_func, an->f_trunc);
	uint32_t id;
	size_t i;

	if (f->obj != an->o_unknown)
		return 0;
	for (i = 0; i < an->ld->raws.n; i++)
		if (AN_VEC(an->ld->raws, struct an_raw, i).flags & AN_RAW_TRUNC)
			break;
	if (i == an->ld->raws.n)
		return 0;
	id = pseudo_obj(an, "<Truncated-stack>");
	if (id == UINT32_MAX)
		return an_errf(an, -ENOMEM, "out of memory");
	AN_VEC(an->funcs, struct an_func, an->f_trunc).obj = id;
	return 0;
}

void an_objs_free(struct an *an)
{
	size_t i;

	for (i = 0; i < an->obj_keys.n; i++)
		free(AN_VEC(an->obj_keys, char *, i));
	free(an->obj_keys.p);
	an_htab_free(&an->obj_h);
	an_dwfl_cb_free(an);
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

int an_obj_open(struct an *an, uint32_t obj)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	const Dwfl_Callbacks *cb;
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
	cb = an_dwfl_offline_cb(an);
	if (!cb)
		return -ENOMEM;
	o = &AN_VEC(an->objs, struct an_obj, obj);
	o->dwfl = dwfl_begin(cb);
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
	err = an_obj_syms(an, obj);
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
