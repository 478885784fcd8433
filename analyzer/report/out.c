// SPDX-License-Identifier: GPL-2.0
/*
 * The output layer: views fill tables of values (numbers with their kind,
 * or text) and hand them here with their titles; a formatter, chosen by
 * -printmode, writes them: aligned text (two header lines, numbers
 * right-aligned, names left), CSV (RFC 4180 quoting, one header line), or
 * another one-character delimiter.  Numbers are turned into text in one
 * place, an_fmt_num(), for the formatters and the text-only reports alike.
 * Another format (html, pprof) is another struct an_fmt_ops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report.h"

void an_fmt_num(char *buf, size_t len, int kind, double v)
{
	switch (kind) {
	case AN_C_TIME:
		snprintf(buf, len, "%.3f", v);
		break;
	case AN_C_PCT:
		snprintf(buf, len, "%.2f", v);
		break;
	case AN_C_DTIME:
		snprintf(buf, len, "%+.3f", v);
		break;
	case AN_C_DCOUNT:
		snprintf(buf, len, "%+.0f", v);
		break;
	case AN_C_RATIO:
		if (v > 99.999)
			snprintf(buf, len, "x>99.999");
		else
			snprintf(buf, len, "x%.3f", v);
		break;
	case AN_C_ABSENT:
		snprintf(buf, len, "absent");
		break;
	default:
		snprintf(buf, len, "%.0f", v);
		break;
	}
}

/* A cell as text: in buf, or its own string. */
static const char *cell_str(const struct an_cell *c, char *buf, size_t len)
{
	switch (c->kind) {
	case AN_C_NONE:
		return NULL;
	case AN_C_TEXT:
		return c->s;
	case AN_C_INT:
		snprintf(buf, len, "%" PRIu64, c->u);
		return buf;
	default:
		an_fmt_num(buf, len, c->kind, c->d);
		return buf;
	}
}

int an_table_init(struct an_table *t, int ncol)
{
	memset(t, 0, sizeof(*t));
	t->cols = calloc(ncol + 1, sizeof(*t->cols));
	if (!t->cols)
		return -ENOMEM;
	t->ncol = ncol;
	return 0;
}

int an_table_head(struct an_table *t, int col, const char *h1, const char *h2,
		  bool left)
{
	struct an_col *c = &t->cols[col];

	c->head1 = strdup(h1);
	c->head2 = strdup(h2);
	c->left = left;
	return c->head1 && c->head2 ? 0 : -ENOMEM;
}

size_t an_table_row(struct an_table *t)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct an_cell *p = realloc(t->cells, cap * t->ncol * sizeof(*p));

		if (!p)
			return SIZE_MAX;
		t->cells = p;
		t->cap = cap;
	}
	memset(t->cells + t->rows * t->ncol, 0, t->ncol * sizeof(*t->cells));
	return t->rows++;
}

static struct an_cell *cell(struct an_table *t, size_t row, int col)
{
	struct an_cell *c = &t->cells[row * t->ncol + col];

	if (c->kind == AN_C_TEXT)
		free(c->s);
	c->kind = AN_C_NONE;
	return c;
}

int an_table_text(struct an_table *t, size_t row, int col, const char *fmt, ...)
{
	struct an_cell *c = cell(t, row, col);
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&c->s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	c->kind = AN_C_TEXT;
	return 0;
}

void an_table_num(struct an_table *t, size_t row, int col, int kind, double v)
{
	struct an_cell *c = cell(t, row, col);

	c->kind = kind;
	c->d = v;
}

void an_table_int(struct an_table *t, size_t row, int col, uint64_t v)
{
	struct an_cell *c = cell(t, row, col);

	c->kind = AN_C_INT;
	c->u = v;
}

void an_table_free(struct an_table *t)
{
	size_t i;
	int c;

	for (i = 0; i < t->rows * t->ncol; i++)
		if (t->cells[i].kind == AN_C_TEXT)
			free(t->cells[i].s);
	free(t->cells);
	for (c = 0; c < t->ncol; c++) {
		free(t->cols[c].head1);
		free(t->cols[c].head2);
	}
	free(t->cols);
	memset(t, 0, sizeof(*t));
}

/* ---- delimited: csv or another character ---- */

/* The first len bytes of s, quoted when they hold delim, '"' or a newline. */
static void put_field(FILE *f, const char *s, size_t len, char delim)
{
	if (!memchr(s, delim, len) && !memchr(s, '"', len) && !memchr(s, '\n', len)) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (; len--; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void delim_table(struct an_out *o, const struct an_table *t)
{
	char delim = o->mode == AN_PM_CSV ? ',' : o->delim, buf[64];
	FILE *f = o->f;
	size_t r;
	int c;

	for (c = 0; c < t->ncol; c++) {
		const struct an_col *col = &t->cols[c];
		char h[256];

		if (col->head2[0])
			snprintf(h, sizeof(h), "%s (%s)", col->head1, col->head2);
		else
			snprintf(h, sizeof(h), "%s", col->head1);
		if (c)
			fputc(delim, f);
		put_field(f, h, strlen(h), delim);
	}
	fputc('\n', f);
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < t->ncol; c++) {
			const char *s = cell_str(&t->cells[r * t->ncol + c], buf,
						 sizeof(buf));
			size_t l;

			if (c)
				fputc(delim, f);
			if (!s)
				continue;
			/* padding is not data; a left column's trailing blanks are */
			while (*s == ' ')
				s++;
			l = strlen(s);
			while (!t->cols[c].left && l && s[l - 1] == ' ')
				l--;
			put_field(f, s, l, delim);
		}
		fputc('\n', f);
	}
}

/* ---- aligned text ---- */

static void put_line(FILE *f, char *line, size_t len)
{
	while (len && line[len - 1] == ' ')
		len--;
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

/* Append s padded to w (left or right aligned) and two blanks. */
static size_t put_cell(char *line, size_t at, const char *s, size_t w, bool left)
{
	size_t l = strlen(s);

	if (left) {
		memcpy(line + at, s, l);
		memset(line + at + l, ' ', w - l + 2);
	} else {
		memset(line + at, ' ', w - l);
		memcpy(line + at + w - l, s, l);
		memset(line + at + w, ' ', 2);
	}
	return at + w + 2;
}

/* Column c's title is shared with the next column (value, then %). */
static bool shared(const struct an_table *t, int c)
{
	return c + 1 < t->ncol && !strcmp(t->cols[c].head1, t->cols[c + 1].head1);
}

/*
 * Every cell as text, each number formatted once: txt[cell] is its text
 * (NULL: blank); the numbers' texts are in *pool.
 */
static const char **cells_text(const struct an_table *t, char **pool)
{
	size_t n = t->rows * t->ncol, i, len = 0, cap = 4096, *off;
	const char **txt = calloc(n + 1, sizeof(*txt));
	char buf[64], *p = malloc(cap);

	off = calloc(n + 1, sizeof(*off));
	if (!txt || !p || !off)
		goto fail;
	for (i = 0; i < n; i++) {
		const char *s = cell_str(&t->cells[i], buf, sizeof(buf));
		size_t l;

		if (!s || t->cells[i].kind == AN_C_TEXT) {
			txt[i] = s;
			continue;
		}
		l = strlen(s) + 1;
		if (len + l > cap) {
			char *np = realloc(p, cap *= 2);

			if (!np)
				goto fail;
			p = np;
		}
		memcpy(p + len, s, l);
		off[i] = len + 1;	/* 0: not a number */
		len += l;
	}
	for (i = 0; i < n; i++)
		if (off[i])
			txt[i] = p + off[i] - 1;
	free(off);
	*pool = p;
	return txt;
fail:
	free(txt);
	free(p);
	free(off);
	return NULL;
}

static void text_table(struct an_out *o, const struct an_table *t)
{
	size_t *w = calloc(t->ncol + 1, sizeof(*w)), r, l, total = 0, at;
	const struct an_col *cols = t->cols;
	char *line = NULL, *pool = NULL;
	const char **txt = cells_text(t, &pool);
	FILE *f = o->f;
	int c;

	if (!w || !txt)
		goto out;
	for (c = 0; c < t->ncol; c++) {
		/* a title shared with the next column spans both */
		w[c] = shared(t, c) ? 0 : strlen(cols[c].head1);
		if (c && shared(t, c - 1) && strlen(cols[c].head1) > w[c - 1] + 2)
			w[c] = strlen(cols[c].head1) - w[c - 1] - 2;
		if (strlen(cols[c].head2) > w[c])
			w[c] = strlen(cols[c].head2);
		for (r = 0; r < t->rows; r++) {
			const char *s = txt[r * t->ncol + c];

			l = s ? strlen(s) : 0;
			if (l > w[c])
				w[c] = l;
		}
		total += w[c] + 2;
	}
	line = malloc(total + 1);
	if (!line)
		goto out;
	/* title line: a shared title right-aligned over its two columns */
	for (c = 0, at = 0; c < t->ncol; c++) {
		if (shared(t, c)) {
			at = put_cell(line, at, cols[c].head1, w[c] + 2 + w[c + 1], false);
			c++;
			continue;
		}
		at = put_cell(line, at, cols[c].head1, w[c], cols[c].left);
	}
	put_line(f, line, at);
	for (c = 0, at = 0; c < t->ncol; c++)
		at = put_cell(line, at, cols[c].head2, w[c], cols[c].left);
	put_line(f, line, at);
	for (r = 0; r < t->rows; r++) {
		for (c = 0, at = 0; c < t->ncol; c++) {
			const char *s = txt[r * t->ncol + c];

			at = put_cell(line, at, s ? s : "", w[c], cols[c].left);
		}
		put_line(f, line, at);
	}
out:
	free(line);
	free(txt);
	free(pool);
	free(w);
}

static void text_title(struct an_out *o, const char *s)
{
	fputs(s, o->f);
}

/* Delimited output is the tables alone. */
static void no_title(struct an_out *o, const char *s)
{
}

static const struct an_fmt_ops text_ops = {
	.title = text_title,
	.table = text_table,
};

static const struct an_fmt_ops delim_ops = {
	.title = no_title,
	.table = delim_table,
};

void an_out_mode(struct an_out *o, int mode, char delim)
{
	o->mode = mode;
	o->delim = delim;
	o->ops = mode == AN_PM_TEXT ? &text_ops : &delim_ops;
}

void an_title(struct an_out *o, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	o->ops->title(o, s);
	free(s);
}

void an_table_print(struct an_out *o, const struct an_table *t)
{
	o->ops->table(o, t);
}
