// SPDX-License-Identifier: GPL-2.0
/*
 * -source NAME|FILE: the source file of a function (or a file named by a
 * path suffix), each line with its exclusive and inclusive metrics; lines
 * of at least 75% of the hottest line's exclusive metric are marked "##".
 * -disasm NAME: the function's instructions (capstone), each with the
 * metrics of the samples whose pc is that instruction (or, for callers,
 * whose return address follows it: the call), and its source line.
 */
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/report/report.h"

/* Add item i's exclusive and inclusive rows to slot k of ex and in. */
static void add_item(const struct an_flat *f, size_t i, uint64_t *ex,
		     uint64_t *in, size_t k)
{
	for (size_t b = 0; b < f->nb; b++) {
		ex[k * f->nb + b] += f->excl[i * f->nb + b];
		in[k * f->nb + b] += f->incl[i * f->nb + b];
	}
}

static bool path_match(const char *path, const char *want)
{
	size_t lp = strlen(path), lw = strlen(want);

	if (!strcmp(path, want))
		return true;
	return lp > lw && path[lp - lw - 1] == '/' && !strcmp(path + lp - lw, want);
}

/* Columns for annotated listings: the e and i metric columns, then text. */
static int listing_heads(struct an *an, const struct an_mlist *ml,
			 struct an_table *t, const char *textcol)
{
	int i, n = 0;

	for (i = 0; i < ml->n; i++)
		if (ml->c[i].flavor == 'e' || ml->c[i].flavor == 'i')
			n++;
	if (an_table_init(t, n + 1))
		return -E2BIG;
	for (i = 0, n = 0; i < ml->n; i++) {
		const struct an_mcol *c = &ml->c[i];
		char h[128];

		if (c->flavor != 'e' && c->flavor != 'i')
			continue;
		snprintf(h, sizeof(h), "%s %s", c->flavor == 'e' ? "Excl." : "Incl.",
			 an_metric_kw(an, c->m));
		an_table_head(t, n++, h, an_metric_unit_name(an, c->m),
			      false);
	}
	return an_table_head(t, n, textcol, "", true);
}

static void listing_row(struct an *an, const struct an_mlist *ml,
			struct an_table *t, size_t row, const uint64_t *e,
			const uint64_t *i)
{
	int k, n = 0;

	for (k = 0; k < ml->n; k++) {
		const struct an_mcol *c = &ml->c[k];
		if (c->flavor != 'e' && c->flavor != 'i')
			continue;
		an_table_num(t, row, n++, an_metric_cell(an, c->m),
			     an_metric_val(an, c->m, c->flavor == 'e' ? e : i));
	}
}

int an_view_source(struct an *an, const struct an_settings *vs,
		   struct an_out *o, const char *what)
{
	struct an_agg g;
	struct an_flat f;
	struct an_mlist ml = { 0 };
	struct an_table t;
	const char *file = NULL;
	uint64_t *ex = NULL, *in = NULL, hot = 0;
	uint32_t maxline = 0, fid = UINT32_MAX;
	char text[4096];
	size_t i, nb;
	FILE *src;
	int nf, line, err, sm = AN_M_TOTAL;
	uint32_t fn = an_func_find(an, what, &nf);

	if (fn != UINT32_MAX && !an_func_src(an, fn, &file, &line))
		fid = an_str_intern(&an->strs, file);
	for (i = 0; fid == UINT32_MAX && i < an->strs.s.n; i++)
		if (path_match(an_str(&an->strs, i), what))
			fid = i;
	if (fid == UINT32_MAX)
		return an_errf(an, -ENOENT, "no source file for '%s' (no such function with line information, nor file)",
			       what);
	file = an_str(&an->strs, fid);
	err = an_aggregate(an, vs->filter, &g);
	if (err)
		return err;
	err = an_flat(an, &g, AN_K_LINE, &f);
	if (err) {
		an_agg_free(&g);
		return err;
	}
	nb = f.nb;
	err = an_cols_effective(an, vs, &g, &ml, false);
	if (err)
		goto out;
	for (i = 0; i < (size_t)ml.n; i++)
		if (ml.c[i].flavor == 'e' || ml.c[i].flavor == 'i') {
			sm = ml.c[i].m;
			break;
		}
	for (i = 0; i < an->lines.n; i++) {
		struct an_line *l = &AN_VEC(an->lines, struct an_line, i);

		if (l->file == fid && l->line > maxline)
			maxline = l->line;
	}
	ex = calloc((maxline + 2) * nb, sizeof(*ex));
	in = calloc((maxline + 2) * nb, sizeof(*in));
	if (!ex || !in || listing_heads(an, &ml, &t, "Source")) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < an->lines.n; i++) {
		struct an_line *l = &AN_VEC(an->lines, struct an_line, i);

		if (l->file != fid || !f.seen[i])
			continue;
		add_item(&f, i, ex, in, l->line);
	}
	for (i = 1; i <= maxline; i++)
		if (an_metric_raw(an, sm, ex + i * nb) > hot)
			hot = an_metric_raw(an, sm, ex + i * nb);
	fprintf(o->f, "Source file: %s\n\n", file);
	src = fopen(file, "r");
	if (!src)
		fprintf(o->f, "(the source file cannot be read: %s; metrics by line number)\n\n",
			strerror(errno));
	for (i = 1;; i++) {
		size_t row, l;
		bool mark;

		if (src) {
			if (!fgets(text, sizeof(text), src))
				break;
			l = strlen(text);
			if (l && text[l - 1] == '\n')
				text[l - 1] = 0;
		} else {
			if (i > maxline)
				break;
			text[0] = 0;
			if (!an_metric_raw(an, AN_M_TOTAL, in + i * nb) &&
			    an_metric_raw(an, sm, in + i * nb) == 0)
				continue;
		}
		row = an_table_row(&t);
		if (row == SIZE_MAX)
			break;
		mark = hot && i <= maxline &&
		       an_metric_raw(an, sm, ex + i * nb) * 4 >= hot * 3;
		if (i <= maxline)
			listing_row(an, &ml, &t, row, ex + i * nb, in + i * nb);
		an_table_text(&t, row, t.ncol - 1, "%s%5zu. %s", mark ? "## " : "   ",
			      i, text);
	}
	if (src)
		fclose(src);
	an_table_print(o, &t);
	an_table_free(&t);
out:
	an_mlist_free(&ml);
	free(ex);
	free(in);
	an_flat_free(&f);
	an_agg_free(&g);
	return err;
}

/* The bytes of [addr, addr + size) of an object's file. */
static uint8_t *obj_bytes(struct an_obj *o, uint64_t addr, uint64_t size)
{
	uint8_t *buf;
	size_t i;

	if (o->pseudo || o->failed || o->fd < 0 || !size || size > (64u << 20))
		return NULL;
	for (i = 0; i < o->phdrs.n; i++) {
		struct an_seg *s = &AN_VEC(o->phdrs, struct an_seg, i);

		if (addr < s->vaddr || addr + size > s->vaddr + s->filesz)
			continue;
		buf = malloc(size);
		if (buf && pread(o->fd, buf, size, addr - s->vaddr + s->offset) ==
		    (ssize_t)size)
			return buf;
		free(buf);
		return NULL;
	}
	return NULL;
}

#define MAX_PARTS 16

/* One part of a function: the body, or a clone such as foo.cold. */
struct part {
	uint64_t addr, size;
	cs_insn *insn;
	size_t count, first;	/* first: index over all parts' insns */
};

/*
 * The parts of function id: its own symbol first, then the others of its
 * name (.cold, .part.N, ...) by address.
 */
static int func_parts(struct an *an, uint32_t id, csh cs, struct part *p,
		      size_t *total)
{
	struct an_func *fn = &AN_VEC(an->funcs, struct an_func, id);
	struct an_obj *o = &AN_VEC(an->objs, struct an_obj, fn->obj);
	int n = 0;
	size_t i;

	p[n++] = (struct part){ .addr = fn->addr, .size = fn->size };
	for (i = 0; i < o->syms.n && n < MAX_PARTS; i++) {
		struct an_sym *s = &AN_VEC(o->syms, struct an_sym, i);

		if (s->func != id || !s->size)
			continue;
		if (s->addr == fn->addr)
			p[0].size = s->size;
		else
			p[n++] = (struct part){ .addr = s->addr, .size = s->size };
	}
	*total = 0;
	for (i = 0; i < (size_t)n; i++) {
		uint8_t *b = obj_bytes(o, p[i].addr, p[i].size);

		p[i].first = *total;
		if (b)
			p[i].count = cs_disasm(cs, b, p[i].size, p[i].addr, 0, &p[i].insn);
		free(b);
		*total += p[i].count;
	}
	return n;
}

/* " <name>" for a direct call or jump to another function, else "". */
static const char *target_name(struct an *an, bool name_long, uint32_t obj,
			       const cs_insn *in, char *buf, size_t len)
{
	char *end;
	uint64_t to;

	buf[0] = 0;
	if (in->mnemonic[0] != 'j' && strncmp(in->mnemonic, "call", 4))
		return buf;
	to = strtoull(in->op_str, &end, 16);
	if (strncmp(in->op_str, "0x", 2) || *end)
		return buf;
	snprintf(buf, len, " <%s>", an_func_name(an, an_obj_func(an, obj, to), name_long));
	return buf;
}

int an_view_disasm(struct an *an, const struct an_settings *vs,
		   struct an_out *o, const char *what)
{
	struct part parts[MAX_PARTS];
	struct an_agg g;
	struct an_flat f;
	struct an_mlist ml = { 0 };
	struct an_table t;
	struct an_func *fn;
	struct an_obj *ob;
	uint64_t *ex = NULL, *in = NULL;
	size_t count = 0, i, k, nb;
	csh cs;
	int nf, np, j, err;
	uint32_t id = an_func_find(an, what, &nf);
	char tgt[600];
	const char *part_name;

	if (id == UINT32_MAX)
		return an_errf(an, -ENOENT, "no function named '%s'", what);
	fn = &AN_VEC(an->funcs, struct an_func, id);
	ob = &AN_VEC(an->objs, struct an_obj, fn->obj);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return an_errf(an, -EINVAL, "capstone: cannot open x86-64");
	np = func_parts(an, id, cs, parts, &count);
	if (!parts[0].count) {
		err = an_errf(an, -ENOENT, "'%s': no instructions to show (no object file or size)",
			      what);
		goto out0;
	}
	err = an_aggregate(an, vs->filter, &g);
	if (!err)
		err = an_flat(an, &g, AN_K_PC, &f);
	if (err)
		goto out1;
	nb = f.nb;
	err = an_cols_effective(an, vs, &g, &ml, false);
	if (err)
		goto out;
	ex = calloc((count + 1) * nb, sizeof(*ex));
	in = calloc((count + 1) * nb, sizeof(*in));
	if (!ex || !in || listing_heads(an, &ml, &t, "Instruction")) {
		err = an_errf(an, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < an->pcs.n; i++) {
		struct an_pc *p = &AN_VEC(an->pcs, struct an_pc, i);

		if (!f.seen[i] || p->obj != fn->obj || p->ret == 2)
			continue;
		/*
		 * -inline on: an instruction's frames are its pc and one per
		 * inlined call; the innermost one stands for all
		 */
		if (p->inl_n || (p->inl && p->inl !=
				 AN_VEC(an->pcs, struct an_pc, i - p->inl).inl_n))
			continue;
		for (j = 0; j < np; j++)
			for (k = 0; k < parts[j].count; k++) {
				cs_insn *x = &parts[j].insn[k];
				uint64_t at = p->ret ? x->address + x->size : x->address;

				if (at != p->addr)
					continue;
				add_item(&f, i, ex, in, parts[j].first + k);
				j = np;
				break;
			}
	}
	fprintf(o->f, "Annotated disassembly of %s (%s, %d:0x%08" PRIx64 ", %" PRIu64 " bytes)\n\n",
		an_func_name(an, id, vs->name_long), ob->name, ob->num, fn->addr,
		fn->size);
	for (j = 0; j < np; j++) {
		for (k = 0; k < parts[j].count; k++) {
			size_t row = an_table_row(&t), at = parts[j].first + k;
			cs_insn *x = &parts[j].insn[k];
			uint32_t ifn, line = an_pc_line(an, fn->obj, x->address, id, &ifn);
			uint32_t lno = line == UINT32_MAX ? 0 :
				AN_VEC(an->lines, struct an_line, line).line;

			if (row == SIZE_MAX)
				break;
			if (j && !k) {
				/* a clone's part: its symbol's name as a heading */
				part_name = ob->mod ? dwfl_module_addrname(ob->mod,
						x->address + ob->mod_bias) : NULL;
				an_table_text(&t, row, t.ncol - 1, "<%s: %" PRIx64 ", %" PRIu64 " bytes>",
					      part_name ? part_name : "part", x->address,
					      parts[j].size);
				row = an_table_row(&t);
				if (row == SIZE_MAX)
					break;
			}
			listing_row(an, &ml, &t, row, ex + at * nb, in + at * nb);
			an_table_text(&t, row, t.ncol - 1, "[%5u] %8" PRIx64 ":  %-7s %s%s",
				      lno, x->address, x->mnemonic, x->op_str,
				      target_name(an, vs->name_long, fn->obj, x, tgt,
						  sizeof(tgt)));
		}
	}
	an_table_print(o, &t);
	an_table_free(&t);
out:
	an_mlist_free(&ml);
	free(ex);
	free(in);
	an_flat_free(&f);
out1:
	an_agg_free(&g);
out0:
	for (j = 0; j < np; j++)
		if (parts[j].insn)
			cs_free(parts[j].insn, parts[j].count);
	cs_close(&cs);
	return err;
}
