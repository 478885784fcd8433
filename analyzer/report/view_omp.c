// SPDX-License-Identifier: GPL-2.0
/*
 * The OpenMP views (docs/guide/openmp.md), over an->omp (load/omp.c):
 * -omp_regions, each parallel region construct by its source line (the
 * program's call into the runtime: the function and line that hold the
 * construct): its instances, team size, time, the threads' time in it and
 * their OpenMP Wait there; -omp_tasks, each task construct by the line
 * that creates its tasks: the tasks' runs, their time, mean and longest.
 * Rows come in order of time, the longest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/omp.h"
#include "analyzer/report/report.h"
#include "analyzer/viewmode/viewmode.h"

/* A construct's row: what its instances sum to. */
struct orow {
	uint32_t exp, pid;
	uint64_t codeptr;
	uint32_t stack;		/* a stack that reached it (a node) */
	uint64_t n, ns, thr_ns, wait_ns, hi;
	uint32_t team;
};

struct orows {
	struct orow *r;
	size_t n, cap;
};

static struct orow *row_of(struct orows *v, uint32_t exp, uint32_t pid,
			   uint64_t codeptr, uint32_t stack)
{
	struct orow *p;
	size_t i;

	for (i = 0; i < v->n; i++)	/* constructs are few */
		if (v->r[i].exp == exp && v->r[i].pid == pid &&
		    v->r[i].codeptr == codeptr)
			return &v->r[i];
	if (v->n == v->cap) {
		p = realloc(v->r, sizeof(*p) * (v->cap ? 2 * v->cap : 16));
		if (!p)
			return NULL;
		v->r = p;
		v->cap = v->cap ? 2 * v->cap : 16;
	}
	p = &v->r[v->n++];
	*p = (struct orow){ .exp = exp, .pid = pid, .codeptr = codeptr,
			    .stack = stack };
	return p;
}

/*
 * "main, line 46 in imbal.c": where the program called the runtime for
 * it, the first frame of stack from the leaf that is the program's (an
 * outlined body, for a task), named by the function it was written in
 * (the first up the stack that is no outlined body).
 */
static void where(struct an *an, uint32_t stack, uint64_t codeptr, char *buf,
		  size_t len)
{
	const struct an_node *nd = an->nodes.p;
	uint32_t n, func = UINT32_MAX, line = UINT32_MAX;
	const struct an_pc *pc;
	const char *file;
	bool first = true;

	for (n = stack; n != UINT32_MAX; n = nd[n].parent) {
		if (!an_vm_omp_program(an, nd[n].pc, true))
			continue;
		pc = &AN_VEC(an->pcs, struct an_pc, nd[n].pc);
		if (first)
			line = pc->line;
		first = false;
		if (an_vm_omp_program(an, nd[n].pc, false)) {
			func = an_pc_func(an, pc);
			break;
		}
	}
	if (func == UINT32_MAX) {
		snprintf(buf, len, "<unknown> 0x%llx", (unsigned long long)codeptr);
	} else if (line == UINT32_MAX) {
		snprintf(buf, len, "%s", an_func_name(an, func, false));
	} else {
		file = an_line_file(an, line);
		snprintf(buf, len, "%s, line %u in %s",
			 an_func_name(an, func, false),
			 AN_VEC(an->lines, struct an_line, line).line,
			 file ? file : "?");
	}
}

static int by_ns(const void *a, const void *b)
{
	const struct orow *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->codeptr < y->codeptr ? -1 : x->codeptr > y->codeptr;
}

struct ocol {
	const char *head, *unit;
};

/* The rows, sorted, as a table with the columns cols (their values: put). */
static int print_rows(struct an *an, struct an_out *o, struct orows *v,
		      const struct ocol *cols, int ncols,
		      void (*put)(struct an_table *t, size_t r, const struct orow *w))
{
	struct an_table t = { 0 };
	char name[512];
	size_t i, r;
	int k, err = -ENOMEM;

	qsort(v->r, v->n, sizeof(*v->r), by_ns);
	if (an_table_init(&t, ncols + 1) ||
	    an_table_head(&t, 0, "Name", "", true))
		goto out;
	for (k = 0; k < ncols; k++)
		if (an_table_head(&t, k + 1, cols[k].head, cols[k].unit, false))
			goto out;
	for (i = 0; i < v->n; i++) {
		r = an_table_row(&t);
		where(an, v->r[i].stack, v->r[i].codeptr, name, sizeof(name));
		an_table_text(&t, r, 0, "%s", name);
		put(&t, r, &v->r[i]);
	}
	an_table_print(o, &t);
	err = 0;
out:
	an_table_free(&t);
	return err;
}

static void put_region(struct an_table *t, size_t r, const struct orow *w)
{
	an_table_int(t, r, 1, w->n);
	an_table_int(t, r, 2, w->team);
	an_table_text(t, r, 3, "%.6f", w->ns / 1e9);
	an_table_text(t, r, 4, "%.6f", w->thr_ns / 1e9);
	an_table_text(t, r, 5, "%.6f", w->wait_ns / 1e9);
}

static bool exp_pass(const struct an_settings *vs, uint32_t exp)
{
	return !vs->filter || an_filter_exp(vs->filter, exp);
}

int an_view_omp_regions(struct an *an, const struct an_settings *vs,
			struct an_out *o)
{
	static const struct ocol cols[] = {
		{ "Instances", "events" }, { "Threads", "asked" },
		{ "Region Time", "sec." }, { "Thread Time", "sec." },
		{ "OpenMP Wait", "sec." },
	};
	const struct an_omp *om = an->omp;
	struct orows v = { 0 };
	uint32_t *row = NULL;
	size_t i;
	int err = -ENOMEM;

	if (!om || !an_omp_nregions(om))
		return an_errf(an, -ENOENT, "no OpenMP parallel regions in these experiments (the OMPT tool records them: collect --omp on)");
	row = malloc(sizeof(*row) * an_omp_nregions(om));
	if (!row)
		goto out;
	for (i = 0; i < an_omp_nregions(om); i++) {
		const struct an_omp_region *g = an_omp_region(om, i);
		struct orow *w;

		row[i] = UINT32_MAX;
		if (!exp_pass(vs, g->exp))
			continue;
		w = row_of(&v, g->exp, g->pid, g->codeptr, g->stack);
		if (!w)
			goto out;
		row[i] = w - v.r;
		w->n++;
		w->ns += g->t1 - g->t0;
		if (g->team > w->team)
			w->team = g->team;
	}
	for (i = 0; i < om->tasks.n; i++) {
		const struct an_omp_span *s = &AN_VEC(om->tasks, struct an_omp_span, i);

		if (s->region != UINT32_MAX && row[s->region] != UINT32_MAX)
			v.r[row[s->region]].thr_ns += s->t1 - s->t0;
	}
	for (i = 0; i < om->waits.n; i++) {
		const struct an_omp_span *s = &AN_VEC(om->waits, struct an_omp_span, i);

		if (s->region != UINT32_MAX && row[s->region] != UINT32_MAX)
			v.r[row[s->region]].wait_ns += s->t1 - s->t0;
	}
	err = print_rows(an, o, &v, cols, sizeof(cols) / sizeof(cols[0]),
			 put_region);
out:
	free(row);
	free(v.r);
	return err ? an_errf(an, err, "out of memory") : 0;
}

static void put_task(struct an_table *t, size_t r, const struct orow *w)
{
	an_table_int(t, r, 1, w->n);
	an_table_text(t, r, 2, "%.6f", w->ns / 1e9);
	an_table_text(t, r, 3, "%.1f", w->n ? w->ns / 1e3 / w->n : 0.0);
	an_table_text(t, r, 4, "%.1f", w->hi / 1e3);
}

int an_view_omp_tasks(struct an *an, const struct an_settings *vs,
		      struct an_out *o)
{
	static const struct ocol cols[] = {
		{ "Runs", "events" }, { "Task Time", "sec." },
		{ "Mean", "usec" }, { "Max", "usec" },
	};
	const struct an_omp *om = an->omp;
	struct orows v = { 0 };
	size_t i;
	int err = -ENOMEM;

	if (!om || !om->xtasks.n)
		return an_errf(an, -ENOENT, "no OpenMP tasks in these experiments (the OMPT tool records them: collect --omp on)");
	for (i = 0; i < om->xtasks.n; i++) {
		const struct an_omp_span *s = &AN_VEC(om->xtasks, struct an_omp_span, i);
		const struct an_thread *th = &AN_VEC(an->threads, struct an_thread, s->thr);
		struct orow *w;

		if (!exp_pass(vs, th->exp))
			continue;
		w = row_of(&v, th->exp, th->pid, s->codeptr, s->stack);
		if (!w)
			goto out;
		w->n++;
		w->ns += s->t1 - s->t0;
		if (s->t1 - s->t0 > w->hi)
			w->hi = s->t1 - s->t0;
	}
	err = print_rows(an, o, &v, cols, sizeof(cols) / sizeof(cols[0]),
			 put_task);
out:
	free(v.r);
	return err ? an_errf(an, err, "out of memory") : 0;
}
