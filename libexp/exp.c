// SPDX-License-Identifier: GPL-2.0
/*
 * An experiment directory opened whole (exp.h): its text files (log.c,
 * usage.c, archives.c, through text.c), its record files by id, the
 * copies of kallsyms and /proc/modules, and its delta stack tracker.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "libexp/format.h"
#include "libexp/internal.h"
#include "libexp/java.h"
#include "libexp/progress.h"
#include "libexp/reader.h"
#include "libexp/stack.h"

/* ---- the record files ---- */

static int id_cmp(const void *a, const void *b)
{
	const struct exp_file *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void exp_files_free(struct exp_file *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].path);
	}
	free(v);
}

int exp_files_list(int dirfd, const char *path, struct exp_file **vp,
		   size_t *np)
{
	struct exp_file *v = NULL;
	size_t n = 0, cap = 0;
	uint32_t ntrace = 0, njava = 0;
	unsigned int cpu;
	struct dirent *de;
	int len, err = 0;
	bool trace, java;
	DIR *d;

	*vp = NULL;
	*np = 0;
	dirfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dirfd < 0 ? NULL : fdopendir(dirfd);
	if (!d) {
		err = -errno;
		if (dirfd >= 0)
			close(dirfd);
		return err;
	}
	while ((de = readdir(d))) {
		trace = exp_trace_file_name(de->d_name);
		java = exp_java_file_name(de->d_name);
		if (!trace && !java && (sscanf(de->d_name, "cpu.%u.rec%n", &cpu, &len) != 1 ||
			       de->d_name[len] || cpu >= EXP_FILE_TRACE))
			continue;
		if (exp_grow((void **)&v, sizeof(*v), n, &cap)) {
			err = -ENOMEM;
			break;
		}
		v[n].id = trace ? EXP_FILE_TRACE + ntrace++ :
			  java ? EXP_FILE_JAVA + njava++ : cpu;
		v[n].name = strdup(de->d_name);
		if (!v[n].name || asprintf(&v[n].path, "%s/%s", path,
					   de->d_name) < 0) {
			free(v[n].name);
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (err) {
		exp_files_free(v, n);
		return err;
	}
	/*
	 * the cpu files first, by N; then the trace files as the directory
	 * lists them (the analyzer's sample order, and so its exports', is
	 * theirs): numbered so as they came; then the Java agents' files
	 */
	if (n)
		qsort(v, n, sizeof(*v), id_cmp);
	*vp = v;
	*np = n;
	return 0;
}

/* ---- the experiment ---- */

/*
 * Is dir an experiment: a log, or (a damaged one, which lost it) record
 * files?  An experiment without its log is damage to name; a directory
 * with neither is not one.
 */
static bool is_experiment(int dirfd, const char *dir)
{
	struct exp_file *v;
	size_t n = 0;

	if (!faccessat(dirfd, EXP_LOG, F_OK, 0) || errno != ENOENT ||
	    !faccessat(dirfd, EXP_SAMPLES, F_OK, 0))
		return true;
	if (exp_files_list(dirfd, dir, &v, &n))
		return true;	/* not known: let the log's error speak */
	exp_files_free(v, n);
	return n > 0;
}

int exp_open(struct exp **xp, const char *dir, unsigned int flags,
	     exp_warn_fn *warn, void *warn_arg)
{
	struct exp *x = calloc(1, sizeof(*x));
	int dirfd, err;

	*xp = x;
	if (!x)
		return -ENOMEM;
	x->flags = flags;
	x->warn = warn;
	x->warn_arg = warn_arg;
	x->info.sync_ns = UINT64_MAX;
	x->dir = strdup(dir);
	if (!x->dir)
		return exp_complain(x, -ENOMEM, "out of memory");
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 && errno == ENOTDIR) {
		x->flags &= ~EXP_OPEN_DAMAGED;
		return exp_complain(x, -ENOTDIR, "%s: not an experiment directory", dir);
	}
	if (dirfd < 0) {
		x->flags &= ~EXP_OPEN_DAMAGED;	/* nothing to read */
		return exp_complain(x, -errno, "%s: %s", dir, strerror(errno));
	}
	if (!is_experiment(dirfd, dir)) {
		close(dirfd);
		x->flags &= ~EXP_OPEN_DAMAGED;
		return exp_complain(x, -ENOENT, "%s: not an experiment directory", dir);
	}
	err = exp_log_read(x);
	if (!err)
		err = exp_index_read(x);
	if (!err)
		err = exp_usage_read(x);
	if (err) {
		close(dirfd);
		return err;	/* said */
	}
	err = exp_files_list(dirfd, dir, &x->files, &x->nfiles);
	if (!err && !faccessat(dirfd, EXP_SAMPLES, F_OK, 0) &&
	    asprintf(&x->samples, "%s/%s", dir, EXP_SAMPLES) < 0) {
		x->samples = NULL;
		err = -ENOMEM;
	}
	close(dirfd);
	if (!err)
		return 0;
	x->flags &= ~EXP_OPEN_DAMAGED;	/* no damage: the files not listed */
	if (err == -ENOMEM)
		return exp_complain(x, err, "out of memory");
	return exp_complain(x, err, "%s: %s", dir, strerror(-err));
}

const char *exp_msg(const struct exp *x)
{
	return x->msg;
}

void exp_close(struct exp *x)
{
	size_t i;

	if (!x)
		return;
	exp_info_free(&x->info);
	free(x->usage);
	for (i = 0; i < x->narchives; i++) {
		free(x->archives[i].file);
		free(x->archives[i].orig);
	}
	free(x->archives);
	exp_files_free(x->files, x->nfiles);
	free(x->samples);
	exp_stacks_free(x->stacks);
	free(x->dir);
	free(x);
}

const char *exp_dir(const struct exp *x)
{
	return x->dir;
}

const struct exp_info *exp_info(const struct exp *x)
{
	return &x->info;
}

bool exp_usage(const struct exp *x, const struct exp_usage **v, size_t *n)
{
	*v = x->usage;
	*n = x->nusage;
	return x->has_usage;
}

void exp_archives(const struct exp *x, const struct exp_archive **v,
		  size_t *n)
{
	*v = x->archives;
	*n = x->narchives;
}

void exp_files(const struct exp *x, const struct exp_file **v, size_t *n)
{
	*v = x->files;
	*n = x->nfiles;
}

bool exp_has_samples(const struct exp *x)
{
	return x->samples;
}

const char *exp_file_path(const struct exp *x, uint32_t id)
{
	size_t lo = 0, hi = x->nfiles, mid;

	if (id == EXP_FILE_SAMPLES)
		return x->samples;
	/* files[] is sorted by id (exp_files_list) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->files[mid].id == id)
			return x->files[mid].path;
		if (x->files[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int exp_file_open(const struct exp *x, uint32_t id, struct exp_reader *r,
		  exp_warn_fn *warn, void *warn_arg)
{
	const char *path = exp_file_path(x, id);
	int err;

	if (!path) {
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		snprintf(r->msg, sizeof(r->msg), "%s: no record file %u", x->dir,
			 id);
		return -ENOENT;
	}
	err = exp_reader_open(r, AT_FDCWD, path, warn, warn_arg);
	r->progress = x->progress;
	return err;
}

void exp_progress_attach(struct exp *x, struct exp_progress *p)
{
	uint64_t total = 0;
	struct stat st;
	size_t i;

	x->progress = p;
	for (i = 0; i < x->nfiles; i++)
		if (!stat(x->files[i].path, &st))
			total += st.st_size;
	if (x->samples && !stat(x->samples, &st))
		total += st.st_size;
	exp_progress_phase(p, total, "reading %s", x->dir);
}

int exp_kallsyms(const struct exp *x,
		 int (*fn)(void *arg, uint64_t addr, char type,
			   const char *name, const char *module),
		 void *arg)
{
	char path[4200], line[1024];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", x->dir, EXP_KALLSYMS);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (!err && fgets(line, sizeof(line), f)) {
		char type, name[512], mname[80];
		unsigned long long a;
		int n;

		n = sscanf(line, "%llx %c %511s %79s", &a, &type, name, mname);
		if (n >= 3)
			err = fn(arg, a, type, name, n == 4 ? mname : NULL);
	}
	fclose(f);
	return err;
}

int exp_modules(const struct exp *x,
		int (*fn)(void *arg, const char *name, uint64_t size,
			  uint64_t addr),
		void *arg)
{
	char path[4200], line[1024], name[80];
	unsigned long long size, a;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", x->dir, EXP_MODULES);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (!err && fgets(line, sizeof(line), f))
		if (sscanf(line, "%79s %llu %*s %*s %*s %llx", name, &size, &a) == 3)
			err = fn(arg, name, size, a);
	fclose(f);
	return err;
}

struct exp_stacks *exp_stacks(struct exp *x)
{
	if (!x->stacks)
		x->stacks = exp_stacks_new();
	return x->stacks;
}

void exp_stacks_release(struct exp *x)
{
	exp_stacks_free(x->stacks);
	x->stacks = NULL;
}
