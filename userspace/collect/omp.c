// SPDX-License-Identifier: GPL-2.0
/*
 * collect's OpenMP part (docs/guide/openmp.md): whether to start the
 * OMPT tool of the tracing library (--omp auto: when the program links
 * an OpenMP runtime; on; off), which runtime the program links, and
 * --omp-runtime llvm, which runs a gcc-built program (libgomp, no OMPT)
 * on LLVM's libomp through its GOMP_* entry points: a directory in the
 * experiment where libgomp.so.1 is libomp, first on LD_LIBRARY_PATH.
 * What was decided goes into log.txt, and at the end what each process's
 * runtime said when it started the tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libexp/omp.h"
#include "userspace/collect/collect.h"

/* Where Debian and LLVM put libomp; LWPROF_LIBOMP names another. */
static const char *const libomp_paths[] = {
	"/usr/lib/x86_64-linux-gnu/libomp.so.5",
	"/usr/lib/llvm-16/lib/libomp.so.5",
	"/usr/lib/llvm-15/lib/libomp.so.5",
	"/usr/lib/llvm-14/lib/libomp.so.5",
	"/usr/local/lib/libomp.so",
};

enum { RT_NONE, RT_LLVM, RT_GNU, RT_INTEL };

static const char *const rt_names[] = {
	[RT_NONE] = "none", [RT_LLVM] = "LLVM libomp",
	[RT_GNU] = "GNU libgomp", [RT_INTEL] = "Intel libiomp5",
};

static int rt_of(const char *needed)
{
	if (!strncmp(needed, "libomp.so", 9) || !strncmp(needed, "libomp5.so", 10))
		return RT_LLVM;
	if (!strncmp(needed, "libgomp.so", 10))
		return RT_GNU;
	if (!strncmp(needed, "libiomp5.so", 11))
		return RT_INTEL;
	return RT_NONE;
}

/* The OpenMP runtime path's program links (DT_NEEDED), or RT_NONE. */
static int linked_runtime(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rt = RT_NONE;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	Elf *elf;
	size_t i;

	if (fd < 0)
		return RT_NONE;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && rt == RT_NONE && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			n = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (n && (rt = rt_of(n)) != RT_NONE)
				break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rt;
}

int collect_omp_resolve(struct rec_opts *o)
{
	char path[PATH_MAX];

	o->omp_rt = RT_NONE;
	if (o->argv && !lwprof_which(o->argv[0], path, sizeof(path)))
		o->omp_rt = linked_runtime(path);
	switch (o->omp) {
	case OMP_ON:
		o->omp_on = true;
		break;
	case OMP_OFF:
		o->omp_on = false;
		break;
	default:
		o->omp_on = o->omp_rt != RT_NONE;
	}
	return 0;
}

static const char *find_libomp(void)
{
	const char *e = getenv("LWPROF_LIBOMP");
	size_t i;

	if (e && *e)
		return access(e, R_OK) ? NULL : e;
	for (i = 0; i < sizeof(libomp_paths) / sizeof(libomp_paths[0]); i++)
		if (!access(libomp_paths[i], R_OK))
			return libomp_paths[i];
	return NULL;
}

/* --omp-runtime llvm: libgomp.so.1 in DIR/omp-runtime is libomp. */
static int shim(const char *expdir, char *msg, size_t len)
{
	const char *lib = find_libomp(), *old = getenv("LD_LIBRARY_PATH");
	char dir[PATH_MAX + 16], link[PATH_MAX + 32], *v;
	int err;

	if (!lib) {
		snprintf(msg, len, "--omp-runtime llvm: no libomp.so.5 (install libomp-14-dev, or name it in LWPROF_LIBOMP)");
		return -ENOENT;
	}
	snprintf(dir, sizeof(dir), "%s/omp-runtime", expdir);
	snprintf(link, sizeof(link), "%s/libgomp.so.1", dir);
	if ((mkdir(dir, 0755) && errno != EEXIST) ||
	    (symlink(lib, link) && errno != EEXIST)) {
		snprintf(msg, len, "--omp-runtime llvm: %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (asprintf(&v, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "") < 0)
		return -ENOMEM;
	err = setenv("LD_LIBRARY_PATH", v, 1) ? -errno : 0;
	free(v);
	return err;
}

int collect_omp_env(const struct rec_opts *o, struct exp_writer *e,
		    const char *expdir, char *msg, size_t len)
{
	int err;

	if (o->omp_llvm) {
		err = shim(expdir, msg, len);
		if (err)
			return err;
		exp_note(e, EXP_K_OPENMP, "%s on LLVM libomp (--omp-runtime llvm)",
			 rt_names[o->omp_rt]);
	}
	if (!o->omp_on) {
		/* a program without OpenMP: no word of it */
		if (o->omp == OMP_OFF)
			exp_note(e, EXP_K_OPENMP, "off (--omp off): no OpenMP metrics; linked: %s",
				 rt_names[o->omp_rt]);
		return 0;
	}
	if (o->omp_rt == RT_GNU && !o->omp_llvm)
		exp_note(e, EXP_K_OPENMP, "on; the program links GNU libgomp, which has no OMPT: OpenMP metrics absent unless it runs on libomp (--omp-runtime llvm)");
	else
		exp_note(e, EXP_K_OPENMP, "on (%s): the OMPT tool starts with an OMPT runtime; linked: %s",
			 o->omp == OMP_ON ? "--omp on" : "auto", rt_names[o->omp_rt]);
	return 0;
}

int collect_omp_adopt(struct exp_writer *e, const struct lwprof_rec *rec)
{
	const struct exp_rec_omp_runtime *r = (const void *)rec;

	if (rec->type != EXP_REC_OMP_RUNTIME)
		return 0;
	exp_note(e, EXP_K_OPENMP_RUNTIME, "process %u: %s (OpenMP %u), OMPT active",
		 r->pid, r->version, r->omp_version);
	return 1;
}
