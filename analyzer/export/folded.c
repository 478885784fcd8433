// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof export folded: the FlameGraph project's collapsed stacks, the
 * input of flamegraph.pl and of most flame graph viewers (speedscope,
 * inferno, the Firefox Profiler's importer): one line per distinct stack
 * of function names, root first, joined by ';', a blank, and the value of
 * the export's first metric summed over the samples that pass the
 * filters: nanoseconds for time metrics, events for counters.  Stacks
 * that differ only by pcs or lines are one line; lines are sorted, and
 * stacks with no value are left out, so the lines sum to the metric's
 * <Total> in print.  Kernel functions end in "_[k]", as perf's
 * stackcollapse writes them (flamegraph.pl colours them apart).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"

struct fold {
	struct an_strtab stacks;	/* the lines' stack texts, interned */
	struct an_vec sums;	/* uint64_t per interned text */
	char *buf;
	size_t cap;
};

#define KSUFFIX "_[k]"

/* Frame k's function name, and whether it is a kernel function. */
static const char *frame_name(struct an *an, const struct an_settings *vs,
			      uint32_t k, bool *kernel)
{
	const struct an_pc *p = &AN_VEC(an->pcs, struct an_pc,
					AN_VEC(an->nodes, struct an_node, k).pc);
	uint32_t f = an_pc_func(an, p);

	*kernel = AN_VEC(an->objs, struct an_obj,
			 AN_VEC(an->funcs, struct an_func, f).obj).kernel;
	return an_func_name(an, f, vs->name_long);
}

/* Node nd's stack as "root;...;leaf" in fd->buf. */
static int stack_text(struct an *an, const struct an_settings *vs,
		      struct fold *fd, uint32_t nd)
{
	const struct an_node *n;
	size_t at = 0, need = 0;
	uint32_t k;
	bool kern;

	/* leaf to root: measure, then fill from the end */
	for (k = nd; k != UINT32_MAX; k = AN_VEC(an->nodes, struct an_node, k).parent) {
		need += strlen(frame_name(an, vs, k, &kern)) + 1;
		need += kern ? strlen(KSUFFIX) : 0;
	}
	if (need > fd->cap) {
		char *b = realloc(fd->buf, need);

		if (!b)
			return -ENOMEM;
		fd->buf = b;
		fd->cap = need;
	}
	at = need - 1;
	fd->buf[at] = 0;
	for (k = nd; k != UINT32_MAX; k = n->parent) {
		const char *s = frame_name(an, vs, k, &kern);
		size_t l = strlen(s);

		n = &AN_VEC(an->nodes, struct an_node, k);
		if (at != need - 1)
			fd->buf[--at] = ';';
		if (kern) {
			at -= strlen(KSUFFIX);
			memcpy(fd->buf + at, KSUFFIX, strlen(KSUFFIX));
		}
		at -= l;
		memcpy(fd->buf + at, s, l);
	}
	return 0;
}

static int by_text(const void *a, const void *b, void *ctx)
{
	struct an_strtab *t = ctx;

	return strcmp(an_str(t, *(const uint32_t *)a), an_str(t, *(const uint32_t *)b));
}

int an_export_folded(struct an *an, const struct an_settings *vs, FILE *f)
{
	struct fold fd = { .sums.esz = sizeof(uint64_t) };
	struct an_agg g;
	uint32_t *ids = NULL, id;
	int *ms = NULL, n, err;
	size_t i;

	err = an_aggregate(an, vs->filter, &g);
	if (err)
		return err;
	n = an_export_metrics(an, vs, &g, &ms);
	if (n < 0) {
		err = n;
		goto out;
	}
	for (i = 0; i < g.n; i++) {
		uint64_t v;

		if (!g.used[i])
			continue;
		v = an_metric_raw(an, ms[0], g.acc + i * g.nb);
		if (!v)
			continue;
		err = stack_text(an, vs, &fd, i);
		if (err)
			goto nomem;
		id = an_str_intern(&fd.stacks, fd.buf);
		if (id == UINT32_MAX || an_vec_grow(&fd.sums, fd.stacks.s.n))
			goto nomem;
		while (fd.sums.n < fd.stacks.s.n)
			AN_VEC(fd.sums, uint64_t, fd.sums.n++) = 0;
		AN_VEC(fd.sums, uint64_t, id) += v;
	}
	ids = malloc((fd.sums.n + 1) * sizeof(*ids));
	if (!ids)
		goto nomem;
	for (i = 0; i < fd.sums.n; i++)
		ids[i] = i;
	qsort_r(ids, fd.sums.n, sizeof(*ids), by_text, &fd.stacks);
	for (i = 0; i < fd.sums.n; i++)
		fprintf(f, "%s %" PRIu64 "\n", an_str(&fd.stacks, ids[i]),
			AN_VEC(fd.sums, uint64_t, ids[i]));
	goto out;
nomem:
	err = an_errf(an, -ENOMEM, "out of memory");
out:
	an_str_free(&fd.stacks);
	free(fd.sums.p);
	free(fd.buf);
	free(ids);
	free(ms);
	an_agg_free(&g);
	return err;
}
