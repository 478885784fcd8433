// SPDX-License-Identifier: GPL-2.0
/*
 * Tables: the views fill cells, this prints them as aligned text (two
 * header lines, numbers right-aligned, names left), as CSV (RFC 4180
 * quoting, one header line), or with another one-character delimiter
 * (-printmode text|csv|<delimiter>).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "compute.h"

/* A view's title: text mode only (CSV output is the table alone). */
void an_title(struct an_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->mode != AN_PM_TEXT)
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

int an_table_init(struct an_table *t, int ncol)
{
	memset(t, 0, sizeof(*t));
	t->ncol = ncol;
	return ncol > AN_MAX_COLS ? -E2BIG : 0;
}

int an_table_head(struct an_table *t, int col, const char *h1, const char *h2,
		  bool left)
{
	t->head1[col] = strdup(h1);
	t->head2[col] = strdup(h2);
	t->left[col] = left;
	return t->head1[col] && t->head2[col] ? 0 : -ENOMEM;
}

size_t an_table_row(struct an_table *t)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **p = realloc(t->cells, cap * t->ncol * sizeof(char *));

		if (!p)
			return SIZE_MAX;
		t->cells = p;
		t->cap = cap;
	}
	memset(t->cells + t->rows * t->ncol, 0, t->ncol * sizeof(char *));
	return t->rows++;
}

int an_table_cell(struct an_table *t, size_t row, int col, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	free(t->cells[row * t->ncol + col]);
	t->cells[row * t->ncol + col] = s;
	return 0;
}

static void put_field(FILE *f, const char *s, char delim)
{
	if (!strchr(s, delim) && !strchr(s, '"') && !strchr(s, '\n')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_delim(struct an_table *t, FILE *f, char delim)
{
	size_t r;
	int c;

	for (c = 0; c < t->ncol; c++) {
		char h[256];

		if (t->head2[c][0])
			snprintf(h, sizeof(h), "%s (%s)", t->head1[c], t->head2[c]);
		else
			snprintf(h, sizeof(h), "%s", t->head1[c]);
		if (c)
			fputc(delim, f);
		put_field(f, h, delim);
	}
	fputc('\n', f);
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < t->ncol; c++) {
			const char *s = t->cells[r * t->ncol + c];
			char *trim = NULL;

			if (c)
				fputc(delim, f);
			if (!s)
				continue;
			while (*s == ' ')
				s++;
			/* a name's tree indentation is data, numbers' padding not */
			if (!t->left[c]) {
				trim = strdup(s);
				if (trim) {
					size_t l = strlen(trim);

					while (l && trim[l - 1] == ' ')
						trim[--l] = 0;
					s = trim;
				}
			}
			put_field(f, s, delim);
			free(trim);
		}
		fputc('\n', f);
	}
}

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

void an_table_print(struct an_out *o, struct an_table *t)
{
	FILE *f = o->f;
	size_t w[AN_MAX_COLS], r, l, total = 0, at;
	char *line;
	int c;

	if (o->mode != AN_PM_TEXT) {
		print_delim(t, f, o->mode == AN_PM_CSV ? ',' : o->delim);
		return;
	}
	for (c = 0; c < t->ncol; c++) {
		/* a title shared with the next column (value, then %) spans both */
		bool shared = c + 1 < t->ncol && !strcmp(t->head1[c], t->head1[c + 1]);

		w[c] = shared ? 0 : strlen(t->head1[c]);
		if (c && !strcmp(t->head1[c], t->head1[c - 1]) &&
		    strlen(t->head1[c]) > w[c - 1] + 2)
			w[c] = strlen(t->head1[c]) - w[c - 1] - 2;
		if (strlen(t->head2[c]) > w[c])
			w[c] = strlen(t->head2[c]);
		for (r = 0; r < t->rows; r++) {
			const char *s = t->cells[r * t->ncol + c];

			l = s ? strlen(s) : 0;
			if (l > w[c])
				w[c] = l;
		}
		total += w[c] + 2;
	}
	line = malloc(total + 1);
	if (!line)
		return;
	/* title line: a shared title right-aligned over its two columns */
	for (c = 0, at = 0; c < t->ncol; c++) {
		if (c + 1 < t->ncol && !strcmp(t->head1[c], t->head1[c + 1])) {
			at = put_cell(line, at, t->head1[c], w[c] + 2 + w[c + 1], false);
			c++;
			continue;
		}
		at = put_cell(line, at, t->head1[c], w[c], t->left[c]);
	}
	put_line(f, line, at);
	for (c = 0, at = 0; c < t->ncol; c++)
		at = put_cell(line, at, t->head2[c], w[c], t->left[c]);
	put_line(f, line, at);
	for (r = 0; r < t->rows; r++) {
		for (c = 0, at = 0; c < t->ncol; c++) {
			const char *s = t->cells[r * t->ncol + c];

			at = put_cell(line, at, s ? s : "", w[c], t->left[c]);
		}
		put_line(f, line, at);
	}
	free(line);
}

void an_table_free(struct an_table *t)
{
	size_t i;
	int c;

	for (i = 0; i < t->rows * t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
	for (c = 0; c < t->ncol; c++) {
		free(t->head1[c]);
		free(t->head2[c]);
	}
	memset(t, 0, sizeof(*t));
}
