// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel debug images, for the source lines of kernel frames (kernel.c
 * relates their addresses): Debian's linux-image-RELEASE-dbg installs the
 * core kernel as /usr/lib/debug/boot/vmlinux-RELEASE and each module's
 * debug file as /usr/lib/debug/lib/modules/RELEASE/kernel/.../NAME.ko,
 * RELEASE the experiment's kernel (log.txt "kernel =", uname -r).
 * LWPROF_KERNEL_DEBUG_DIR replaces /usr/lib/debug (the same layout
 * below it); it is a test hook.  An image is opened with libdwfl into the
 * kernel object (o->dwfl, o->mod), which lines.c then reads lines from.
 */
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/symbols/internal.h"

static const char *debug_dir(void)
{
	const char *d = getenv("LWPROF_KERNEL_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

/*
 * Open the debug image at path into kernel object obj: 0, -ENOENT when
 * there is no such file (quietly: most machines have none), -EINVAL when
 * it cannot be read (said once).
 */
static int kdebug_open(struct an *an, uint32_t obj, const char *path)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	const Dwfl_Callbacks *cb = an_dwfl_offline_cb(an);
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	if (!cb)
		return -ENOMEM;
	o->dwfl = dwfl_begin(cb);
	if (!o->dwfl)
		return -ENOMEM;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_offline(o->dwfl, o->name, path, -1);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		an_warn(an, "%s: %s: the source lines of %s are not shown", path,
			dwfl_errmsg(-1), o->name);
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
		return -EINVAL;
	}
	o->mod_bias = 0;
	return 0;
}

/* The core kernel's image, vmlinux-RELEASE, into obj. */
int an_kdebug_vmlinux(struct an *an, uint32_t obj, const char *release)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/boot/vmlinux-%s", debug_dir(), release);
	return kdebug_open(an, obj, path);
}

/* A module's image (path found by an_kdebug_modules) into obj. */
int an_kdebug_module(struct an *an, uint32_t obj, const char *path)
{
	return kdebug_open(an, obj, path);
}

static void walk(struct an *an, char *dir, size_t len, size_t cap, int depth,
		 void (*found)(struct an *, const char *, const char *))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char name[80];
	size_t n, i;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    len + 2 + strlen(de->d_name) > cap)
			continue;
		snprintf(dir + len, cap - len, "/%s", de->d_name);
		n = strlen(de->d_name);
		if (de->d_type == DT_DIR && depth < 12) {
			walk(an, dir, strlen(dir), cap, depth + 1, found);
		} else if (n > 3 && n < sizeof(name) &&
			   !strcmp(de->d_name + n - 3, ".ko")) {
			/* kallsyms names ext4-like modules with '_' for '-' */
			for (i = 0; i < n - 3; i++)
				name[i] = de->d_name[i] == '-' ? '_' : de->d_name[i];
			name[n - 3] = 0;
			found(an, name, dir);
		}
		dir[len] = 0;
	}
	closedir(d);
}

/*
 * The modules' debug files: found(an, NAME, PATH) for every NAME.ko
 * under lib/modules/RELEASE/ ('-' in NAME as '_', as kallsyms has it).
 */
void an_kdebug_modules(struct an *an, const char *release,
		       void (*found)(struct an *, const char *, const char *))
{
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", debug_dir(), release);
	walk(an, dir, strlen(dir), sizeof(dir), 0, found);
}

/*
 * The address in obj's image (as its libdwfl module lays it out) of the
 * function (or untyped symbol: _text) name, the first of that name (a
 * static function's may be in it twice); -ENOENT if it has none.
 */
int an_kdebug_sym(struct an *an, uint32_t obj, const char *name,
		  uint64_t *addr)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	int i, n = o->mod ? dwfl_module_getsymtab(o->mod) : -1, type;
	const char *s;
	GElf_Sym sym;
	GElf_Addr a;

	for (i = 1; i < n; i++) {
		s = dwfl_module_getsym_info(o->mod, i, &sym, &a, NULL, NULL, NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (!s || strcmp(s, name) || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_NOTYPE))
			continue;
		*addr = a;
		return 0;
	}
	return -ENOENT;
}

/* Close obj's image (it does not belong to the recorded kernel). */
void an_kdebug_close(struct an *an, uint32_t obj)
{
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);

	if (o->dwfl)
		dwfl_end(o->dwfl);
	o->dwfl = NULL;
	o->mod = NULL;
}
