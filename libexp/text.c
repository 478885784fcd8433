// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment's text files (internal.h): read whole, line by line,
 * with their complaints ("PATH: line N (byte B): what") made errors or,
 * for a damaged experiment, warnings.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/internal.h"

int exp_complain(struct exp *x, int err, const char *fmt, ...)
{
	char msg[sizeof(x->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if ((x->flags & EXP_OPEN_DAMAGED) && err != -ENOMEM) {
		if (x->warn)
			x->warn(x->warn_arg, msg);
		return 0;
	}
	if (!x->err) {
		x->err = err;
		memcpy(x->msg, msg, sizeof(msg));
	}
	return err;
}

int exp_slurp(struct exp *x, const char *path, char **buf, size_t *len,
	      bool must)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0, r;
	char *b, *nb;

	*buf = NULL;
	if (!f) {
		if (!must && errno == ENOENT)
			return -ENOENT;
		return exp_complain(x, -errno, "%s: %s", path, strerror(errno));
	}
	b = malloc(cap + 1);
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap >= (64u << 20)) {
				free(b);
				fclose(f);
				return exp_complain(x, -EFBIG, "%s: larger than 64 MiB",
						    path);
			}
			nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!b)
		return exp_complain(x, -ENOMEM, "out of memory");
	b[n] = 0;
	if (memchr(b, 0, n)) {
		size_t off = (char *)memchr(b, 0, n) - b;

		free(b);
		return exp_complain(x, -EINVAL, "%s: byte %zu: NUL byte in a text file",
				    path, off);
	}
	*buf = b;
	*len = n;
	return 0;
}

char *exp_next_line(struct exp_lines *l)
{
	char *s = l->p, *nl;

	if (s >= l->end)
		return NULL;
	nl = memchr(s, '\n', l->end - s);
	if (!nl)
		nl = l->end;
	*nl = 0;
	l->p = nl + 1;
	l->no++;
	l->off = s - l->start;
	return s;
}

int exp_text_each(struct exp *x, const char *name, const char *what,
		  int (*fn)(struct exp *x, char *line))
{
	char path[4096], *buf, *s;
	struct exp_lines l;
	size_t len;
	int err;

	snprintf(path, sizeof(path), "%s/%s", x->dir, name);
	err = exp_slurp(x, path, &buf, &len, false);
	if (!buf)
		return err;
	exp_lines_init(&l, buf, len);
	while (!err && (s = exp_next_line(&l))) {
		if (!*s || *s == '#')
			continue;
		err = fn(x, s);
		if (err == -ENOMEM)
			err = exp_complain(x, err, "out of memory");
		else if (err)
			err = exp_complain(x, err, "%s: line %lu (byte %zu): bad %s line",
					   path, l.no, l.off, what);
	}
	free(buf);
	return err;
}

int exp_grow(void **v, size_t esz, size_t n, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, c * esz);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

int exp_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

int exp_parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (exp_parse_u64(s, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}
