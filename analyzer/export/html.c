// SPDX-License-Identifier: GPL-2.0
/*
 * The html export: one page, self-contained.  The analyzer computes what
 * the views compute (the per-stack sums of the samples that pass the
 * filter, the flat metrics, the caller and callee edges, the call tree;
 * report/compute.c) and writes it as compact JSON into the page (json.c),
 * with the timeline's samples (html_timeline.c), the -header and
 * -statistics reports as text, and the page's script and style (html/).
 * Metric values are raw integers (nanoseconds, events); a metric's shown
 * value is raw / div.  The layout of the data is in docs/design/html-report.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/html.h"
#include "libexp/mstate_names.h"

/* What one export computed, and the page's numbering of it. */
struct hx {
	struct an *an;
	const struct an_settings *set;
	FILE *o;
	struct an_agg g;
	struct an_flat f;
	struct an_edges callers, callees;
	struct an_tree tr;
	int *ms, nm;		/* the metrics on the page */
	uint32_t *fid;		/* per function: its page number, or UINT32_MAX */
	uint32_t *tid;		/* per tree node: its page number, or UINT32_MAX */
	uint32_t nf, nt;
	uint64_t npackets, ncalls;	/* selected: clock and counter packets, traced calls */
};

/* A base vector as the page's metrics' raw values. */
static void vals(struct hx *x, const uint64_t *base)
{
	int k;

	fputc('[', x->o);
	for (k = 0; k < x->nm; k++)
		html_num(x->o, k, an_metric_raw(x->an, x->ms[k], base));
	fputc(']', x->o);
}

/* The metrics with data (and always the total thread time). */
static int pick_metrics(struct hx *x)
{
	struct an *an = x->an;
	int m, n = an_metric_count(an);

	x->ms = calloc(n + 1, sizeof(*x->ms));
	if (!x->ms)
		return -ENOMEM;
	for (m = 0; m < n; m++)
		if (m == AN_M_TOTAL || (an_metric_present(an, m) &&
					an_metric_raw(an, m, x->g.total)))
			x->ms[x->nm++] = m;
	return 0;
}

static void put_metrics(struct hx *x)
{
	struct an *an = x->an;
	int k, st;

	fprintf(x->o, ",\"metrics\":[");
	for (k = 0; k < x->nm; k++) {
		const struct an_metric *mt = &AN_VEC(an->metrics, struct an_metric,
						     x->ms[k]);

		/* a one-microstate metric: which state */
		st = -1;
		if (mt->nbases == 1) {
			const struct an_base *b = &AN_VEC(an->bases, struct an_base,
							  mt->bases[0]);

			if (b->kind == AN_B_MSTATE)
				st = b->idx;
			else if (b->kind == AN_B_IDLE)
				st = LWPROF_MS_COUNT;
		}
		fprintf(x->o, "%s{\"kw\":", k ? "," : "");
		html_json_str(x->o, mt->kw);
		fprintf(x->o, ",\"title\":");
		html_json_str(x->o, mt->title);
		fprintf(x->o, ",\"time\":%s,\"unit\":\"%s\",\"div\":%.17g,\"state\":%d,\"flags\":%u,\"bases\":[",
			mt->as_time ? "true" : "false",
			mt->unit == AN_U_BYTES ? "bytes" : mt->as_time ? "s" : "events",
			mt->div, st, mt->flags);
		for (uint32_t b = 0; b < mt->nbases; b++)
			fprintf(x->o, b ? ",%u" : "%u", mt->bases[b]);
		fprintf(x->o, "]}");
	}
	fprintf(x->o, "],\"states\":[");
	for (k = 0; k < LWPROF_MS_COUNT; k++) {
		fprintf(x->o, "%s{\"kw\":", k ? "," : "");
		html_json_str(x->o, exp_mstate_names[k].keyword);
		fprintf(x->o, ",\"label\":");
		html_json_str(x->o, exp_mstate_names[k].label);
		fputc('}', x->o);
	}
	fprintf(x->o, ",{\"kw\":\"idle\",\"label\":\"Idle\"}],\"bases\":[");
	for (k = 0; k < (int)an->bases.n; k++) {
		const struct an_base *b = &AN_VEC(an->bases, struct an_base, k);

		fprintf(x->o, k ? ",[%u,%u]" : "[%u,%u]", b->kind, b->idx);
	}
	fputc(']', x->o);
}

/* Functions (those with data), their metrics, callers and callees. */
static void put_funcs(struct hx *x)
{
	struct an *an = x->an;
	size_t i, nb = x->f.nb;
	uint32_t k;
	int side;

	fprintf(x->o, ",\"funcs\":[");
	for (i = 0, k = 0; i < x->f.n; i++) {
		const struct an_func *fn = &AN_VEC(an->funcs, struct an_func, i);

		if (x->fid[i] == UINT32_MAX)
			continue;
		fprintf(x->o, "%s[", k++ ? "," : "");
		html_json_str(x->o, an_func_name(an, i, x->set->name_long));
		fputc(',', x->o);
		html_json_str(x->o, AN_VEC(an->objs, struct an_obj, fn->obj).name);
		fputc(',', x->o);
		vals(x, x->f.excl + i * nb);
		fputc(',', x->o);
		vals(x, x->f.incl + i * nb);
		fprintf(x->o, ",%d]", AN_VEC(an->objs, struct an_obj, fn->obj).kernel ? 1 :
			fn->flags & AN_F_PSEUDO ? 2 : 0);
	}
	fprintf(x->o, "],\"total\":");
	vals(x, x->g.total);
	for (side = 0; side < 2; side++) {
		struct an_edges *e = side ? &x->callees : &x->callers;

		fprintf(x->o, ",\"%s\":[", side ? "callees" : "callers");
		for (i = 0; i < e->n; i++) {
			fprintf(x->o, "%s[%u,%u,", i ? "," : "", x->fid[e->e[i].from],
				x->fid[e->e[i].to]);
			vals(x, e->vals + i * e->nb);
			fputc(']', x->o);
		}
		fputc(']', x->o);
	}
}

/*
 * The call tree: per node its parent (as k - parent's k; 0: a root) and
 * function, and the base values of the samples whose stack ends there
 * (the page sums them into each metric's inclusive values, as
 * an_metric_raw() would).
 */
static void put_tree(struct hx *x)
{
	const struct an_tree *t = &x->tr;
	size_t i;
	uint32_t k;

	/* parents as distances back (0: a root): mostly short numbers */
	fprintf(x->o, ",\"tree\":{\"p\":[");
	for (i = 0, k = 0; i < t->cnt; i++)
		if (x->tid[i] != UINT32_MAX) {
			html_num(x->o, k, t->n[i].parent == UINT32_MAX ? 0 :
				 k - x->tid[t->n[i].parent]);
			k++;
		}
	fprintf(x->o, "],\"f\":[");
	for (i = 0, k = 0; i < t->cnt; i++)
		if (x->tid[i] != UINT32_MAX)
			html_num(x->o, k++, x->fid[t->n[i].func]);
	/* exclusive, per base, sparse: node, count, then (base, value) pairs */
	fprintf(x->o, "],\"x\":[");
	for (i = 0, k = 0; i < t->cnt; i++) {
		const uint64_t *e = t->excl + i * t->nb;
		uint32_t b, n = 0;

		if (x->tid[i] == UINT32_MAX)
			continue;
		for (b = 0; b < t->nb; b++)
			n += e[b] != 0;
		if (!n)
			continue;
		html_num(x->o, k++, x->tid[i]);
		html_num(x->o, true, n);
		for (b = 0; b < t->nb; b++)
			if (e[b]) {
				html_num(x->o, true, b);
				html_num(x->o, true, e[b]);
			}
	}
	fprintf(x->o, "]}");
}

/*
 * Number what the page shows: the tree nodes on the stacks of the
 * selected samples (parents before children, as an_tree made them) and
 * the functions with data.
 */
static int number(struct hx *x)
{
	size_t i;

	x->fid = malloc((x->an->funcs.n + 1) * sizeof(*x->fid));
	x->tid = malloc((x->tr.cnt + 1) * sizeof(*x->tid));
	if (!x->fid || !x->tid)
		return -ENOMEM;
	memset(x->tid, 0xff, (x->tr.cnt + 1) * sizeof(*x->tid));
	for (i = 0; i < x->g.n; i++) {
		uint32_t tn = x->tr.of_node[i];

		if (!x->g.used[i])
			continue;
		for (; tn != UINT32_MAX && x->tid[tn] == UINT32_MAX;
		     tn = x->tr.n[tn].parent)
			x->tid[tn] = 0;
	}
	for (i = 0; i < x->tr.cnt; i++)
		if (x->tid[i] != UINT32_MAX)
			x->tid[i] = x->nt++;
	for (i = 0; i < x->an->funcs.n; i++)
		x->fid[i] = x->f.seen[i] ? x->nf++ : UINT32_MAX;
	return 0;
}

/* A text view (-header, -statistics) as a JSON string. */
static int put_view(struct hx *x, const char *key,
		    int (*view)(struct an *, const struct an_settings *,
				struct an_out *))
{
	struct an_out out = { .f = NULL };
	char *buf = NULL;
	size_t len = 0;
	int err;

	out.f = open_memstream(&buf, &len);
	if (!out.f)
		return an_errf(x->an, -ENOMEM, "out of memory");
	an_out_mode(&out, AN_PM_TEXT, ',');
	err = view(x->an, x->set, &out);
	fclose(out.f);
	if (!err) {
		fprintf(x->o, ",\"%s\":", key);
		html_json_str(x->o, buf);
	}
	free(buf);
	return err;
}

static void put_title(struct hx *x)
{
	struct an *an = x->an;
	const struct an_exp *e = an->exps.p;
	char desc[1024];
	size_t i;

	fprintf(x->o, "{\"version\":1,\"title\":");
	html_json_str(x->o, an->exps.n && e->log->command ? e->log->command : "lwprof");
	fprintf(x->o, ",\"filter\":");
	html_json_str(x->o, an_filter_desc(x->set->filter, desc, sizeof(desc)));
	fprintf(x->o, ",\"tmin\":%" PRIu64 ",\"tspan\":%" PRIu64 ",\"samples\":%" PRIu64
		",\"calls\":%" PRIu64 ",\"inline\":%s,\"exps\":[", an->tmin,
		an->tmax > an->tmin ? an->tmax - an->tmin : 0, x->npackets, x->ncalls,
		an->inline_funcs ? "true" : "false");
	for (i = 0; i < an->exps.n; i++) {
		if (i)
			fputc(',', x->o);
		html_json_str(x->o, e[i].name);
	}
	fputc(']', x->o);
}

/*
 * What the summary counts, as -header does: the selected clock and
 * counter packets (a packet split in two once), and apart from them the
 * traced calls (a leak is no call of its own).
 */
static void count(struct hx *x)
{
	struct an *an = x->an;
	struct an_filter *f = x->set->filter;
	size_t i;

	for (i = 0; i < an->s.n; i++)
		if (!(an->s.part[i] & AN_PART_CONT) && !an_sample_traced(an, i) &&
		    (!f || an_filter_pass(an, f, i)))
			x->npackets++;
	for (i = 0; i < an->tev.n; i++) {
		const struct an_tev *t = &AN_VEC(an->tev, struct an_tev, i);

		if (t->sample != UINT32_MAX && (!f || an_filter_pass(an, f, t->sample)))
			x->ncalls += t->count;
	}
}

static int put_data(struct hx *x)
{
	int err;

	count(x);
	put_title(x);
	put_metrics(x);
	put_funcs(x);
	put_tree(x);
	err = html_threads(x->an, x->set, x->tr.of_node, x->tid, x->o);
	if (!err)
		err = html_mpi(x->an, x->set, x->o);
	if (!err)
		err = put_view(x, "header", an_view_header);
	if (!err)
		err = put_view(x, "stats", an_view_statistics);
	fputc('}', x->o);
	return err;
}

int an_export_html(struct an *an, const struct an_settings *set, FILE *out)
{
	struct hx x = { .an = an, .set = set, .o = out };
	int err;

	err = an_aggregate(an, set->filter, &x.g);
	if (!err)
		err = an_flat(an, &x.g, AN_K_FUNC, &x.f);
	if (!err)
		err = an_edges(an, &x.g, &x.callers, &x.callees);
	if (!err)
		err = an_tree(an, &x.g, &x.tr);
	if (err)
		goto out;
	if (pick_metrics(&x) || number(&x)) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta name=\"generator\" content=\"lwprof\">\n<title>lwprof</title>\n"
		"<style>\n%s</style></head>\n<body>\n%s"
		"<script type=\"application/json\" id=\"lwprof-data\">", an_html_css,
		an_html_body);
	err = put_data(&x);
	if (!err) {
		fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n",
			an_html_js);
		if (fflush(out) || ferror(out))
			err = an_errf(an, -EIO, "writing the page: %s", strerror(errno));
	}
out:
	free(x.ms);
	free(x.fid);
	free(x.tid);
	an_tree_free(&x.tr);
	an_edges_free(&x.callers);
	an_edges_free(&x.callees);
	an_flat_free(&x.f);
	an_agg_free(&x.g);
	return err;
}
