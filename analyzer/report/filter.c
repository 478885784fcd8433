// SPDX-License-Identifier: GPL-2.0
/*
 * Filters: -thread_select, -cpu_select, -sample_select and -rank_select
 * lists, and -filters expressions over each sample:
 *   TSTAMP (ns since the earliest start; a number may end in s, ms, us,
 *   ns), THRID (the -thread_list number), TID, PID, CPUID, EXPID (from 1),
 *   SAMPLE (the -sample_list number in its experiment), RANK (the MPI
 *   rank of its experiment),
 *   compared with == != < <= > >= or "in (a, b, c-d)";
 *   inStack("fn") (fn anywhere on the stack), leaf("fn");
 *   combined with && || ! and parentheses.
 * A sample passes when it passes all five.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

enum { F_AND, F_OR, F_NOT, F_CMP, F_IN, F_STACK, F_LEAF, F_TRUE };
enum { V_TSTAMP, V_THRID, V_TID, V_PID, V_CPUID, V_EXPID, V_SAMPLE, V_RANK };
enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct fnode {
	int type, field, op;
	int a, b;		/* children */
	uint64_t v;
	uint64_t *lo, *hi;	/* F_IN ranges */
	int nr;
	uint8_t *nodes;		/* F_STACK / F_LEAF: per pc-trie node */
};

struct an_filter {
	uint8_t *thr_ok;	/* NULL: all */
	uint8_t *cpu_ok;	/* NULL: all */
	uint8_t *span_ok;	/* per an->spans; NULL: all */
	uint8_t *exp_ok;	/* per experiment (-rank_select); NULL: all */
	struct fnode *n;
	int nn, root;		/* root < 0: no expression */
	char *expr, *threads, *cpus, *samples, *ranks;
};

struct parser {
	struct an *an;
	struct an_filter *f;
	const char *s, *p;
	int err;
};

static void skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
	skip(ps);
	if (strncmp(ps->p, tok, strlen(tok)))
		return false;
	ps->p += strlen(tok);
	return true;
}

static int fail(struct parser *ps, const char *what)
{
	if (!ps->err)
		ps->err = an_errf(ps->an, -EINVAL, "filter: %s at column %ld of '%s'",
				  what, (long)(ps->p - ps->s) + 1, ps->s);
	return -1;
}

static int node_new(struct parser *ps, int type)
{
	struct fnode *n = realloc(ps->f->n, (ps->f->nn + 1) * sizeof(*n));

	if (!n)
		return fail(ps, "out of memory");
	ps->f->n = n;
	memset(&n[ps->f->nn], 0, sizeof(*n));
	n[ps->f->nn].type = type;
	return ps->f->nn++;
}

static bool number(struct parser *ps, uint64_t *v, bool time)
{
	char *end;
	double d;

	skip(ps);
	if (!isdigit((unsigned char)*ps->p) && *ps->p != '.')
		return false;
	d = strtod(ps->p, &end);
	ps->p = end;
	if (time) {
		if (eat(ps, "ms"))
			d *= 1e6;
		else if (eat(ps, "us"))
			d *= 1e3;
		else if (eat(ps, "ns"))
			;
		else if (eat(ps, "s"))
			d *= 1e9;
	}
	*v = (uint64_t)(d + 0.5);
	return true;
}

static int parse_or(struct parser *ps);

static int stack_pred(struct parser *ps, int type)
{
	char name[512];
	const char *q;
	int id;
	size_t i, l;

	if (!eat(ps, "(") || !eat(ps, "\""))
		return fail(ps, "expected (\"function\")");
	q = strchr(ps->p, '"');
	if (!q || (l = q - ps->p) >= sizeof(name))
		return fail(ps, "unterminated function name");
	memcpy(name, ps->p, l);
	name[l] = 0;
	ps->p = q + 1;
	if (!eat(ps, ")"))
		return fail(ps, "expected )");
	id = node_new(ps, type);
	if (id < 0)
		return id;
	ps->f->n[id].nodes = calloc(ps->an->nodes.n + 1, 1);
	if (!ps->f->n[id].nodes)
		return fail(ps, "out of memory");
	for (i = 0; i < ps->an->nodes.n; i++) {
		struct an_node *nd = &AN_VEC(ps->an->nodes, struct an_node, i);
		struct an_pc *pc = &AN_VEC(ps->an->pcs, struct an_pc, nd->pc);
		struct an_func *fn = &AN_VEC(ps->an->funcs, struct an_func,
					     ps->an->inline_funcs ? pc->ifunc : pc->func);
		bool hit = !strcmp(fn->name, name) || !strcmp(fn->lname, name);

		/* parents come before children: one pass */
		if (type == F_STACK && nd->parent != UINT32_MAX)
			hit |= ps->f->n[id].nodes[nd->parent];
		ps->f->n[id].nodes[i] = hit;
	}
	return id;
}

static int parse_cmp(struct parser *ps)
{
	static const char *const fields[] = { "TSTAMP", "THRID", "TID", "PID",
					      "CPUID", "EXPID", "SAMPLE", "RANK" };
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };
	static const int opv[] = { OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT };
	int field = -1, id, i;

	skip(ps);
	if (eat(ps, "inStack"))
		return stack_pred(ps, F_STACK);
	if (eat(ps, "leaf"))
		return stack_pred(ps, F_LEAF);
	for (i = 0; i < 8; i++)
		if (!strncmp(ps->p, fields[i], strlen(fields[i])) &&
		    !isalnum((unsigned char)ps->p[strlen(fields[i])])) {
			field = i;
			ps->p += strlen(fields[i]);
			break;
		}
	if (field < 0)
		return fail(ps, "expected TSTAMP, THRID, TID, PID, CPUID, EXPID, SAMPLE, RANK, inStack or leaf");
	if (field == V_SAMPLE && an_spans_build(ps->an))
		return fail(ps, "out of memory");
	if (eat(ps, "in")) {
		struct fnode *n;

		id = node_new(ps, F_IN);
		if (id < 0 || !eat(ps, "("))
			return fail(ps, "expected (");
		do {
			uint64_t lo, hi;

			if (!number(ps, &lo, field == V_TSTAMP))
				return fail(ps, "expected a number");
			hi = lo;
			if (eat(ps, "-") && !number(ps, &hi, field == V_TSTAMP))
				return fail(ps, "expected a number");
			n = &ps->f->n[id];
			n->lo = realloc(n->lo, (n->nr + 1) * sizeof(uint64_t));
			n->hi = realloc(n->hi, (n->nr + 1) * sizeof(uint64_t));
			if (!n->lo || !n->hi)
				return fail(ps, "out of memory");
			n->lo[n->nr] = lo;
			n->hi[n->nr++] = hi;
		} while (eat(ps, ","));
		if (!eat(ps, ")"))
			return fail(ps, "expected )");
		ps->f->n[id].field = field;
		return id;
	}
	for (i = 0; i < 6; i++)
		if (eat(ps, ops[i]))
			break;
	if (i == 6)
		return fail(ps, "expected a comparison");
	id = node_new(ps, F_CMP);
	if (id < 0)
		return id;
	ps->f->n[id].field = field;
	ps->f->n[id].op = opv[i];
	if (!number(ps, &ps->f->n[id].v, field == V_TSTAMP))
		return fail(ps, "expected a number");
	return id;
}

static int parse_unary(struct parser *ps)
{
	int a, id;

	if (eat(ps, "!")) {
		a = parse_unary(ps);
		if (a < 0)
			return a;
		id = node_new(ps, F_NOT);
		if (id >= 0)
			ps->f->n[id].a = a;
		return id;
	}
	if (eat(ps, "(")) {
		a = parse_or(ps);
		if (a < 0)
			return a;
		if (!eat(ps, ")"))
			return fail(ps, "expected )");
		return a;
	}
	return parse_cmp(ps);
}

static int parse_bin(struct parser *ps, const char *tok, int type,
		     int (*sub)(struct parser *))
{
	int a = sub(ps), b, id;

	while (a >= 0 && eat(ps, tok)) {
		b = sub(ps);
		if (b < 0)
			return b;
		id = node_new(ps, type);
		if (id < 0)
			return id;
		ps->f->n[id].a = a;
		ps->f->n[id].b = b;
		a = id;
	}
	return a;
}

static int parse_and(struct parser *ps)
{
	return parse_bin(ps, "&&", F_AND, parse_unary);
}

static int parse_or(struct parser *ps)
{
	return parse_bin(ps, "||", F_OR, parse_and);
}

static uint64_t field_val(struct an *an, int field, size_t i)
{
	struct an_thread *t;

	switch (field) {
	case V_TSTAMP:
		return an->s.time[i] - an->tmin;
	case V_THRID:
		return an->s.thr[i] + 1;
	case V_CPUID:
		return an->s.cpu[i];
	case V_SAMPLE:
		return AN_VEC(an->spans, struct an_span, an->span_of[i]).num;
	}
	t = &AN_VEC(an->threads, struct an_thread, an->s.thr[i]);
	if (field == V_RANK)
		return (uint64_t)(int64_t)AN_VEC(an->exps, struct an_exp, t->exp).rank;
	return field == V_TID ? t->tid : field == V_PID ? t->pid : t->exp + 1;
}

static bool eval(struct an *an, struct an_filter *f, int id, size_t i)
{
	struct fnode *n = &f->n[id];
	uint64_t v;
	int k;

	switch (n->type) {
	case F_AND:
		return eval(an, f, n->a, i) && eval(an, f, n->b, i);
	case F_OR:
		return eval(an, f, n->a, i) || eval(an, f, n->b, i);
	case F_NOT:
		return !eval(an, f, n->a, i);
	case F_STACK:
	case F_LEAF:
		return n->nodes[an->s.stack[i]];
	case F_IN:
		v = field_val(an, n->field, i);
		for (k = 0; k < n->nr; k++)
			if (v >= n->lo[k] && v <= n->hi[k])
				return true;
		return false;
	case F_CMP:
		v = field_val(an, n->field, i);
		switch (n->op) {
		case OP_EQ: return v == n->v;
		case OP_NE: return v != n->v;
		case OP_LT: return v < n->v;
		case OP_LE: return v <= n->v;
		case OP_GT: return v > n->v;
		default: return v >= n->v;
		}
	}
	return true;
}

bool an_filter_pass(struct an *an, struct an_filter *f, size_t i)
{
	if (f->thr_ok && !f->thr_ok[an->s.thr[i]])
		return false;
	if (f->cpu_ok && !f->cpu_ok[an->s.cpu[i]])
		return false;
	if (f->span_ok && !f->span_ok[an->span_of[i]])
		return false;
	if (f->exp_ok && !f->exp_ok[AN_VEC(an->threads, struct an_thread,
					    an->s.thr[i]).exp])
		return false;
	return f->root < 0 || eval(an, f, f->root, i);
}

bool an_filter_exp(const struct an_filter *f, uint32_t exp)
{
	return !f || !f->exp_ok || f->exp_ok[exp];
}

static void free_expr(struct an_filter *f)
{
	int i;

	for (i = 0; i < f->nn; i++) {
		free(f->n[i].lo);
		free(f->n[i].hi);
		free(f->n[i].nodes);
	}
	free(f->n);
	f->n = NULL;
	f->nn = 0;
	f->root = -1;
	free(f->expr);
	f->expr = NULL;
}

static struct an_filter *get(struct an_filter **fp)
{
	if (!*fp) {
		*fp = calloc(1, sizeof(**fp));
		if (*fp)
			(*fp)->root = -1;
	}
	return *fp;
}

/* Drop the filter when it selects everything (the fast path). */
static void settle(struct an_filter **fp)
{
	struct an_filter *f = *fp;

	if (f && !f->thr_ok && !f->cpu_ok && !f->span_ok && !f->exp_ok &&
	    f->root < 0) {
		free(f->threads);
		free(f->cpus);
		free(f->samples);
		free(f->ranks);
		free(f);
		*fp = NULL;
	}
}

int an_filter_set(struct an *an, struct an_filter **fp, const char *expr)
{
	struct an_filter *f = get(fp);
	struct parser ps = { an, f, expr, expr, 0 };
	int root;

	if (!f)
		return an_errf(an, -ENOMEM, "out of memory");
	free_expr(f);
	skip(&ps);
	if (!*ps.p || !strcmp(ps.p, "none") || !strcmp(ps.p, "all")) {
		settle(fp);
		return 0;
	}
	root = parse_or(&ps);
	skip(&ps);
	if (root >= 0 && *ps.p)
		root = fail(&ps, "unexpected text");
	if (root < 0) {
		free_expr(f);
		settle(fp);
		return ps.err ? ps.err : -EINVAL;
	}
	f->root = root;
	f->expr = strdup(expr);
	return 0;
}

int an_filter_renew(struct an *an, struct an_filter **fp)
{
	char *e;
	int err;

	if (!*fp || !(*fp)->expr)
		return 0;
	e = strdup((*fp)->expr);
	if (!e)
		return an_errf(an, -ENOMEM, "out of memory");
	err = an_filter_set(an, fp, e);
	free(e);
	return err;
}

/* "all", or numbers and ranges: "1,3-5". */
static int parse_list(struct an *an, const char *list, uint8_t **ok, size_t n,
		      const char *what, int base)
{
	char *copy, *tok, *save = NULL, *end;
	uint8_t *m;

	free(*ok);
	*ok = NULL;
	if (!strcmp(list, "all"))
		return 0;
	m = calloc(n + 1, 1);
	copy = strdup(list);
	if (!m || !copy) {
		free(m);
		free(copy);
		return an_errf(an, -ENOMEM, "out of memory");
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long lo, hi;

		lo = strtoul(tok, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (end == tok || *end || hi < lo || lo < (unsigned long)base) {
			free(m);
			free(copy);
			return an_errf(an, -EINVAL, "'%s': not a %s list (all, or N,M-K)",
				       list, what);
		}
		for (; lo <= hi && lo - base < n; lo++)
			m[lo - base] = 1;
	}
	free(copy);
	*ok = m;
	return 0;
}

int an_thread_select(struct an *an, struct an_filter **fp, const char *list)
{
	struct an_filter *f = get(fp);
	int err;

	if (!f)
		return an_errf(an, -ENOMEM, "out of memory");
	err = parse_list(an, list, &f->thr_ok, an->threads.n, "thread", 1);
	free(f->threads);
	f->threads = f->thr_ok ? strdup(list) : NULL;
	settle(fp);
	return err;
}

int an_cpu_select(struct an *an, struct an_filter **fp, const char *list)
{
	struct an_filter *f = get(fp);
	int err;

	if (!f)
		return an_errf(an, -ENOMEM, "out of memory");
	err = parse_list(an, list, &f->cpu_ok, 65536, "cpu", 0);
	free(f->cpus);
	f->cpus = f->cpu_ok ? strdup(list) : NULL;
	settle(fp);
	return err;
}

/*
 * -sample_select LIST: sample numbers of -sample_list, the same in every
 * experiment (as er_print's); flattened to an->spans's order.
 */
int an_sample_select(struct an *an, struct an_filter **fp, const char *list)
{
	struct an_filter *f = get(fp);
	uint8_t *nums = NULL;
	uint32_t maxn = 1;
	size_t k;
	int err;

	if (!f)
		return an_errf(an, -ENOMEM, "out of memory");
	err = an_spans_build(an);
	if (err)
		return err;
	for (k = 0; k < an->spans.n; k++)
		if (AN_VEC(an->spans, struct an_span, k).num > maxn)
			maxn = AN_VEC(an->spans, struct an_span, k).num;
	err = parse_list(an, list, &nums, maxn, "sample", 1);
	free(f->span_ok);
	f->span_ok = NULL;
	free(f->samples);
	f->samples = NULL;
	if (!err && nums) {
		f->span_ok = calloc(an->spans.n + 1, 1);
		f->samples = strdup(list);
		if (!f->span_ok || !f->samples)
			err = an_errf(an, -ENOMEM, "out of memory");
		for (k = 0; !err && k < an->spans.n; k++)
			f->span_ok[k] = nums[AN_VEC(an->spans, struct an_span, k).num - 1];
	}
	free(nums);
	settle(fp);
	return err;
}

/*
 * -rank_select LIST: the experiments of those MPI ranks (an experiment
 * of no rank is left out by any list but all).
 */
int an_rank_select(struct an *an, struct an_filter **fp, const char *list)
{
	struct an_filter *f = get(fp);
	uint8_t *ranks = NULL;
	int32_t maxr = 0;
	size_t k;
	int err;

	if (!f)
		return an_errf(an, -ENOMEM, "out of memory");
	for (k = 0; k < an->exps.n; k++)
		if (AN_VEC(an->exps, struct an_exp, k).rank > maxr)
			maxr = AN_VEC(an->exps, struct an_exp, k).rank;
	err = parse_list(an, list, &ranks, maxr + 1, "rank", 0);
	free(f->exp_ok);
	f->exp_ok = NULL;
	free(f->ranks);
	f->ranks = NULL;
	if (!err && ranks) {
		f->exp_ok = calloc(an->exps.n + 1, 1);
		f->ranks = strdup(list);
		if (!f->exp_ok || !f->ranks)
			err = an_errf(an, -ENOMEM, "out of memory");
		for (k = 0; !err && k < an->exps.n; k++) {
			int32_t r = AN_VEC(an->exps, struct an_exp, k).rank;

			f->exp_ok[k] = r >= 0 && ranks[r];
		}
	}
	free(ranks);
	settle(fp);
	return err;
}

void an_filter_free(struct an_filter **fp)
{
	struct an_filter *f = *fp;

	if (!f)
		return;
	free_expr(f);
	free(f->thr_ok);
	free(f->cpu_ok);
	free(f->span_ok);
	free(f->exp_ok);
	free(f->threads);
	free(f->cpus);
	free(f->samples);
	free(f->ranks);
	free(f);
	*fp = NULL;
}

const char *an_filter_desc(const struct an_filter *f, char *buf, size_t len)
{
	if (!f)
		return "none";
	snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s",
		 f->threads ? "threads " : "", f->threads ? f->threads : "",
		 f->cpus ? " cpus " : "", f->cpus ? f->cpus : "",
		 f->samples ? " samples " : "", f->samples ? f->samples : "",
		 f->expr ? " expression " : "", f->expr ? f->expr : "",
		 f->ranks ? " ranks " : "", f->ranks ? f->ranks : "");
	return buf;
}
