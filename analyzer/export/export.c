// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof export: the table of formats (export.h), the settings export
 * takes, the output file (written to a temporary name beside it, renamed
 * over it when the format succeeded), and the metrics an export writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "analyzer/export/export.h"
#include "libexp/progress.h"

const struct an_export_ops an_export_fmts[] = {
	{ "folded", "FlameGraph collapsed stacks of the first metric: root;...;leaf VALUE",
	  an_export_folded, false, AN_NEED_ALL },
	{ "pprof", "pprof profile.proto, gzipped: one sample type per metric",
	  an_export_pprof, true, AN_NEED_ALL },
	{ "perfetto", "Perfetto trace: per-thread microstate slices and samples with stacks",
	  an_export_perfetto, true, AN_NEED_EVERY },	/* calls as slices */
	{ "html", "a self-contained HTML report: thread timeline, flame graph, tables",
	  an_export_html, false, AN_NEED_EVERY },	/* calls on the timeline */
};

const size_t an_export_nfmts = sizeof(an_export_fmts) / sizeof(an_export_fmts[0]);

const struct an_export_ops *an_export_find(const char *name)
{
	size_t i;

	for (i = 0; i < an_export_nfmts; i++)
		if (!strcmp(an_export_fmts[i].name, name))
			return &an_export_fmts[i];
	return NULL;
}

bool an_export_setting(const char *name)
{
	static const char *const settings[] = {
		"metrics", "thread_select", "cpu_select", "filters", "name",
		"inline", "viewmode", "rank_select",
	};
	size_t i;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(name, settings[i]))
			return true;
	return false;
}

/* A stream that counts what passes to f on the progress line. */
struct counted {
	FILE *f;
	struct exp_progress *p;
};

static ssize_t counted_write(void *cookie, const char *buf, size_t len)
{
	struct counted *c = cookie;
	size_t n = fwrite(buf, 1, len, c->f);

	exp_progress_add(c->p, n);
	return n == len ? (ssize_t)n : -1;
}

/*
 * Write x's output to f, then close it (unless stdout); name for
 * messages, shown for the progress line.  On a terminal that line counts
 * the bytes written (a format knows no total before it is done), unless
 * they go to that terminal.
 */
static int export_to(struct an *an, const struct an_settings *vs,
		     const struct an_export_ops *x, FILE *f, const char *name,
		     const char *shown)
{
	struct exp_progress *p = an->run->progress;
	struct counted c = { f, p };
	FILE *cf = NULL;
	int err;

	if (p && p->on && !(f == stdout && isatty(1))) {
		cf = fopencookie(&c, "w", (cookie_io_functions_t){ .write = counted_write });
		p->bytes = true;
		exp_progress_phase(p, 0, "writing %s to %s", x->name, shown);
	}
	err = x->write(an, vs, cf ? cf : f);
	if (cf && fclose(cf) && !err)	/* flushes into f */
		err = an_errf(an, errno ? -errno : -EIO, "%s: %s", name,
			      errno ? strerror(errno) : "write error");
	exp_progress_end(p);

	if (!err && (fflush(f) || ferror(f)))
		err = an_errf(an, errno ? -errno : -EIO, "%s: %s", name,
			      errno ? strerror(errno) : "write error");
	if (f != stdout && fclose(f) && !err)
		err = an_errf(an, -errno, "%s: %s", name, strerror(errno));
	return err;
}

int an_export_run(struct an *an, const struct an_settings *vs,
		  const struct an_export_ops *x, const char *path)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f;
	int err;

	if (!strcmp(path, "-")) {
		if (x->binary && isatty(1))
			return an_errf(an, -EINVAL, "%s output is binary: give -o FILE",
				       x->name);
		return export_to(an, vs, x, stdout, "standard output",
				 "standard output");
	}
	/*
	 * A device or a fifo (/dev/null, /dev/stdout, a pipe) is written as
	 * it is: a temporary file renamed over it would replace the node.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			return an_errf(an, -errno, "%s: %s", path, strerror(errno));
		return export_to(an, vs, x, f, path, path);
	}
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return an_errf(an, -ENOMEM, "out of memory");
	f = fopen(tmp, "w");
	if (!f) {
		err = an_errf(an, -errno, "%s: %s", path, strerror(errno));
		free(tmp);
		return err;
	}
	err = export_to(an, vs, x, f, tmp, path);
	if (!err && rename(tmp, path))
		err = an_errf(an, -errno, "%s: %s", path, strerror(errno));
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int an_export_metrics(struct an *an, const struct an_settings *vs,
		      const struct an_agg *g, int **ms)
{
	struct an_mlist ml = { 0 };
	int i, j, n = 0, err;

	*ms = NULL;
	err = an_cols_effective(an, vs, g, &ml, true);
	if (err)
		return err;
	*ms = malloc((ml.n + 1) * sizeof(**ms));
	if (!*ms) {
		an_mlist_free(&ml);
		return an_errf(an, -ENOMEM, "out of memory");
	}
	for (i = 0; i < ml.n; i++) {
		if (ml.c[i].flavor == 's')
			continue;
		for (j = 0; j < n && (*ms)[j] != ml.c[i].m; j++)
			;
		if (j == n)
			(*ms)[n++] = ml.c[i].m;
	}
	an_mlist_free(&ml);
	if (!n) {
		free(*ms);
		*ms = NULL;
		return an_errf(an, -EINVAL, "no metric to export (-metrics names none)");
	}
	return n;
}

bool an_export_buildid(struct an *an, uint32_t obj, char *buf, size_t len)
{
	const char *key = AN_VEC(an->obj_keys, char *, obj), *end;

	/* an archived object's key is "b:BUILDID:name" (symbols/obj.c) */
	if (!key || strncmp(key, "b:", 2) || !(end = strchr(key + 2, ':')))
		return false;
	snprintf(buf, len, "%.*s", (int)(end - key - 2), key + 2);
	return true;
}

uint64_t an_export_start_wall(const struct an_exp *e)
{
	struct tm tm = { 0 };
	const char *p;
	uint64_t ns = 0, scale = 100000000;
	time_t t;

	/*
	 * "2026-01-01T00:00:00.123456789Z" (UTC): the fraction is of a
	 * second, whatever its number of digits (the writer's nine, older
	 * experiments' six); digits past the nanosecond are dropped.
	 */
	p = e->log->start_time ? strptime(e->log->start_time, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!p)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			ns += (uint64_t)(*p - '0') * scale;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * 1000000000 + ns : 0;
}

bool an_export_obj_range(struct an *an, uint32_t obj, uint64_t *lo,
			 uint64_t *hi)
{
	const struct an_obj *o = &AN_VEC(an->objs, struct an_obj, obj);
	size_t k;

	*lo = UINT64_MAX;
	*hi = 0;
	for (k = 0; k < o->phdrs.n; k++) {
		const struct an_seg *s = &AN_VEC(o->phdrs, struct an_seg, k);

		*lo = s->vaddr < *lo ? s->vaddr : *lo;
		*hi = s->vaddr + s->memsz > *hi ? s->vaddr + s->memsz : *hi;
	}
	return *lo < *hi;
}
