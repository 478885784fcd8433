// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof export pprof: a profile.proto (github.com/google/pprof's
 * proto/profile.proto), gzipped, as pprof, Pyroscope, Parca and Grafana
 * read it.  One sample type per exported metric (export.h): type its
 * keyword, unit "nanoseconds" for time, "count" for events (counters,
 * cycles included, are their raw events), "bytes" for sizes.  One
 * sample per distinct call stack (pc trie node) with the sums of the
 * samples that pass the filters, so each type's values sum to print's
 * <Total> of that metric to the nanosecond (or event).  A location per
 * pc (its address is the object's virtual address, as print's -pcs show
 * it), with one line (function and source line); a function per function
 * (name per -name, the long name as system name, its source file and
 * first line); a mapping per load object with its build id when the
 * experiment archived it.  Everything is symbolized: has_functions etc.
 * are set, so pprof does not look for binaries.  The first mapping is
 * the main executable (pprof names the profile after it: "File:"), the
 * others follow in the analyzer's order.  Without -metrics, the first
 * sample type is "cpu" (User + System + Trap CPU, print's totalcpu), the
 * default_sample_type and period_type, as Go's CPU profiles have it, so
 * that pprof, Pyroscope and Parca show CPU time and not thread time
 * including sleep; the default columns follow.  time_nanos is the first
 * experiment's start (log.txt's start_time), duration_nanos the span of
 * the experiments' records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"
#include "analyzer/export/pb.h"

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION,
	P_STRING_TABLE, P_DROP_FRAMES, P_KEEP_FRAMES, P_TIME_NANOS,
	P_DURATION_NANOS, P_PERIOD_TYPE, P_PERIOD, P_COMMENT,
	P_DEFAULT_SAMPLE_TYPE,
};

struct pp {
	struct an *an;
	const struct an_settings *vs;
	struct pb b;
	struct an_strtab st;	/* the string table, "" first */
	uint8_t *pc_used, *fn_used, *obj_used;
};

static uint64_t str(struct pp *p, const char *s)
{
	uint32_t id = an_str_intern(&p->st, s ? s : "");

	if (id == UINT32_MAX)
		p->b.err = -ENOMEM;
	return id == UINT32_MAX ? 0 : id;
}

static const char *unit_name(struct an *an, int m)
{
	const struct an_metric *x = &AN_VEC(an->metrics, struct an_metric, m);

	return x->unit == AN_U_TIME ? "nanoseconds" :
	       x->unit == AN_U_BYTES ? "bytes" : "count";
}

/* A metric's sample type: its keyword; totalcpu is pprof's "cpu". */
static const char *type_name(struct an *an, int m)
{
	const char *kw = an_metric_kw(an, m);

	return !strcmp(kw, "totalcpu") ? "cpu" : kw;
}

static void value_type(struct pp *p, uint32_t field, int m)
{
	pb_open(&p->b, field);
	pb_uint(&p->b, 1, str(p, type_name(p->an, m)));
	pb_uint(&p->b, 2, str(p, unit_name(p->an, m)));
	pb_close(&p->b);
}

/* One Sample per stack with a value: its pcs leaf first, the sums. */
static void samples(struct pp *p, const struct an_agg *g, const int *ms, int nm)
{
	struct an *an = p->an;
	size_t i;
	int k;

	for (i = 0; i < g->n; i++) {
		const uint64_t *row = g->acc + i * g->nb;
		uint32_t nd;
		bool any = false;

		if (!g->used[i])
			continue;
		for (k = 0; k < nm && !any; k++)
			any = an_metric_raw(an, ms[k], row) != 0;
		if (!any)
			continue;
		pb_open(&p->b, P_SAMPLE);
		pb_open(&p->b, 1);	/* location_id, packed */
		for (nd = i; nd != UINT32_MAX;
		     nd = AN_VEC(an->nodes, struct an_node, nd).parent) {
			uint32_t pc = AN_VEC(an->nodes, struct an_node, nd).pc;

			pb_varint(&p->b, pc + 1);
			p->pc_used[pc] = 1;
		}
		pb_close(&p->b);
		pb_open(&p->b, 2);	/* value, packed */
		for (k = 0; k < nm; k++)
			pb_varint(&p->b, an_metric_raw(an, ms[k], row));
		pb_close(&p->b);
		pb_close(&p->b);
	}
}

static void locations(struct pp *p)
{
	struct an *an = p->an;
	size_t i;

	for (i = 0; i < an->pcs.n; i++) {
		const struct an_pc *pc = &AN_VEC(an->pcs, struct an_pc, i);
		uint32_t fn = an_pc_func(an, pc);
		uint32_t obj = AN_VEC(an->funcs, struct an_func, fn).obj;

		if (!p->pc_used[i])
			continue;
		p->fn_used[fn] = 1;
		p->obj_used[obj] = 1;
		pb_open(&p->b, P_LOCATION);
		pb_uint(&p->b, 1, i + 1);
		pb_uint(&p->b, 2, obj + 1);
		if (pc->ret != 2)
			pb_uint(&p->b, 3, pc->addr);
		pb_open(&p->b, 4);	/* Line */
		pb_uint(&p->b, 1, fn + 1);
		if (pc->line != UINT32_MAX)
			pb_uint(&p->b, 2, AN_VEC(an->lines, struct an_line, pc->line).line);
		pb_close(&p->b);
		pb_close(&p->b);
	}
}

static void functions(struct pp *p)
{
	struct an *an = p->an;
	size_t i;

	for (i = 0; i < an->funcs.n; i++) {
		const struct an_func *f = &AN_VEC(an->funcs, struct an_func, i);
		const char *file = NULL;
		int line = 0;

		if (!p->fn_used[i])
			continue;
		if (!(f->flags & AN_F_PSEUDO) &&
		    !AN_VEC(an->objs, struct an_obj, f->obj).pseudo &&
		    an_func_src(an, i, &file, &line))
			file = NULL;
		pb_open(&p->b, P_FUNCTION);
		pb_uint(&p->b, 1, i + 1);
		pb_uint(&p->b, 2, str(p, an_func_name(an, i, p->vs->name_long)));
		pb_uint(&p->b, 3, str(p, f->lname));
		if (file)
			pb_uint(&p->b, 4, str(p, file));
		if (line > 0)
			pb_uint(&p->b, 5, line);
		pb_close(&p->b);
	}
}

/*
 * The main executable: of the first experiment's target process (its
 * latest exec), the file-backed object mapped lowest, as a program's
 * text is mapped below its libraries, the loader's and the vDSO's;
 * UINT32_MAX when the target left no mapping (a whole-machine run).
 */
static uint32_t main_obj(struct an *an)
{
	const struct an_exp *e0 = &AN_VEC(an->exps, struct an_exp, 0);
	uint32_t best = UINT32_MAX, gen = 0;
	uint64_t lo = UINT64_MAX;
	size_t i, k;

	for (i = 0; i < an->as.n; i++) {
		const struct an_as *a = &AN_VEC(an->as, struct an_as, i);

		if (a->exp || a->pid != e0->log->target || !a->maps.n)
			continue;
		if (best != UINT32_MAX && a->gen < gen)
			continue;
		if (a->gen > gen)
			lo = UINT64_MAX;
		gen = a->gen;
		for (k = 0; k < a->maps.n; k++) {
			const struct an_map *m = &AN_VEC(a->maps, struct an_map, k);
			const struct an_obj *o = &AN_VEC(an->objs, struct an_obj, m->obj);

			if (o->pseudo || o->kernel || m->start >= lo)
				continue;
			lo = m->start;
			best = m->obj;
		}
	}
	return best;
}

static void mapping(struct pp *p, uint32_t i)
{
	struct an *an = p->an;
	const struct an_obj *o = &AN_VEC(an->objs, struct an_obj, i);
	uint64_t lo, hi;
	char id[80];

	pb_open(&p->b, P_MAPPING);
	pb_uint(&p->b, 1, i + 1);
	if (an_export_obj_range(an, i, &lo, &hi)) {
		pb_uint(&p->b, 2, lo);
		pb_uint(&p->b, 3, hi);
	}
	pb_uint(&p->b, 5, str(p, o->path));
	if (an_export_buildid(an, i, id, sizeof(id)))
		pb_uint(&p->b, 6, str(p, id));
	pb_uint(&p->b, 7, 1);	/* has_functions */
	pb_uint(&p->b, 8, 1);	/* has_filenames */
	pb_uint(&p->b, 9, 1);	/* has_line_numbers */
	pb_uint(&p->b, 10, an->inline_funcs);	/* has_inline_frames */
	pb_close(&p->b);
}

/* The mappings: the main executable's first (written even if unused). */
static void mappings(struct pp *p)
{
	uint32_t first = main_obj(p->an);
	size_t i;

	if (first != UINT32_MAX)
		mapping(p, first);
	for (i = 0; i < p->an->objs.n; i++)
		if (p->obj_used[i] && i != first)
			mapping(p, i);
}

/*
 * The sample types: without -metrics, "cpu" (totalcpu) first when the
 * experiments have CPU time, then the default columns.  *ms is
 * malloc'd; the count, or a negative errno.
 */
static int types(struct an *an, const struct an_settings *vs,
		 const struct an_agg *g, int **ms)
{
	int n = an_export_metrics(an, vs, g, ms), cpu, k;
	int *v;

	if (n <= 0 || vs->ml.n)
		return n;
	cpu = an_metric_find(an, "totalcpu");
	for (k = 0; k < n; k++)
		if ((*ms)[k] == cpu)
			return n;
	if (cpu < 0 || !an_metric_raw(an, cpu, g->total))
		return n;
	v = realloc(*ms, (n + 1) * sizeof(*v));
	if (!v)
		return an_errf(an, -ENOMEM, "out of memory");
	memmove(v + 1, v, n * sizeof(*v));
	v[0] = cpu;
	*ms = v;
	return n + 1;
}

int an_export_pprof(struct an *an, const struct an_settings *vs, FILE *f)
{
	struct pp p = { .an = an, .vs = vs };
	const struct an_exp *e0 = &AN_VEC(an->exps, struct an_exp, 0);
	struct an_agg g;
	int *ms = NULL, nm, k, err;
	size_t i;

	pb_init(&p.b);
	err = an_aggregate(an, vs->filter, &g);
	if (err)
		return err;
	nm = types(an, vs, &g, &ms);
	if (nm < 0) {
		err = nm;
		goto out;
	}
	p.pc_used = calloc(an->pcs.n + 1, 1);
	p.fn_used = calloc(an->funcs.n + 1, 1);
	p.obj_used = calloc(an->objs.n + 1, 1);
	if (!p.pc_used || !p.fn_used || !p.obj_used) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	str(&p, "");
	for (k = 0; k < nm; k++)
		value_type(&p, P_SAMPLE_TYPE, ms[k]);
	samples(&p, &g, ms, nm);
	locations(&p);
	functions(&p);
	mappings(&p);
	if (an_export_start_wall(e0))
		pb_uint(&p.b, P_TIME_NANOS, an_export_start_wall(e0));
	if (an->tmax > an->tmin)
		pb_uint(&p.b, P_DURATION_NANOS, an->tmax - an->tmin);
	value_type(&p, P_PERIOD_TYPE, ms[0]);
	if (an_metric_is_time(an, ms[0]) && e0->log->clock_interval_ns)
		pb_uint(&p.b, P_PERIOD, e0->log->clock_interval_ns);
	for (i = 0; i < an->exps.n; i++) {
		const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);
		char c[512];

		snprintf(c, sizeof(c), "lwprof experiment %s: %s", e->name,
			 e->log->command ? e->log->command : "");
		pb_uint(&p.b, P_COMMENT, str(&p, c));
	}
	pb_uint(&p.b, P_DEFAULT_SAMPLE_TYPE, str(&p, type_name(an, ms[0])));
	for (i = 0; i < p.st.s.n; i++)
		pb_str(&p.b, P_STRING_TABLE, an_str(&p.st, i));
	err = pb_write(&p.b, f, 1);
	if (err)
		err = an_errf(an, err, "pprof: %s", strerror(-err));
out:
	pb_free(&p.b);
	an_str_free(&p.st);
	free(p.pc_used);
	free(p.fn_used);
	free(p.obj_used);
	free(ms);
	an_agg_free(&g);
	return err;
}
