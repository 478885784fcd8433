/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libexp's own: the opened experiment (exp.h keeps it opaque) and the
 * text files' parsing, shared by exp.c, log.c, usage.c and archives.c.
 * Not for the library's users.
 */
#ifndef LWPROF_LIBEXP_INTERNAL_H
#define LWPROF_LIBEXP_INTERNAL_H

#include <stdio.h>

#include "libexp/exp.h"
#include "lwprof.h"

struct exp {
	char *dir;
	unsigned int flags;	/* EXP_OPEN_* */
	exp_warn_fn *warn;
	void *warn_arg;
	int err;		/* the first error, with msg */
	char msg[512];
	struct exp_info info;
	bool has_usage;
	struct exp_usage *usage;
	size_t nusage, cusage;
	struct exp_archive *archives;
	size_t narchives, carchives;
	struct exp_file *files;
	size_t nfiles;
	char *samples;		/* samples.rec's path, or NULL */
	struct exp_stacks *stacks;
	struct exp_progress *progress;	/* exp_progress_attach()'s */
};

/*
 * A complaint about the experiment, printf-style: an error (err, which is
 * returned) in x->msg, or with EXP_OPEN_DAMAGED a warning (0 returned)
 * unless err is -ENOMEM.
 */
int exp_complain(struct exp *x, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A whole small text file (at most 64 MiB, no NUL byte): *buf (malloc'd,
 * NUL-terminated) and *len, or *buf NULL and: -ENOENT unsaid when !must
 * and it does not exist; else what exp_complain() returned (0 with
 * EXP_OPEN_DAMAGED: go on without it).
 */
int exp_slurp(struct exp *x, const char *path, char **buf, size_t *len,
	      bool must);

/* A text file's lines, NUL-terminated in place. */
struct exp_lines {
	char *p, *end, *start;
	unsigned long no;	/* of the line last returned, from 1 */
	size_t off;		/* its byte offset */
};

static inline void exp_lines_init(struct exp_lines *l, char *buf, size_t len)
{
	*l = (struct exp_lines){ buf, buf + len, buf, 0, 0 };
}

char *exp_next_line(struct exp_lines *l);

/*
 * Each line of text file name (in x's directory) but blank ones and
 * comments (#) to fn, which returns 0, -EINVAL (a bad line: said as "bad
 * WHAT line") or -ENOMEM.  Returns 0, what was said (exp_complain()), or
 * -ENOENT unsaid when the file does not exist.
 */
int exp_text_each(struct exp *x, const char *name, const char *what,
		  int (*fn)(struct exp *x, char *line));

/* Make room in *v (n elements of esz, *cap of them) for one more: 0 or -ENOMEM. */
int exp_grow(void **v, size_t esz, size_t n, size_t *cap);

/* Whole numbers: decimal, 0x hex or 0 octal, no sign; 0 or -EINVAL. */
int exp_parse_u64(const char *s, uint64_t *v);
int exp_parse_u32(const char *s, uint32_t *v);

/* log.c, usage.c, archives.c: the text files into x. */
int exp_log_read(struct exp *x);
void exp_info_free(struct exp_info *in);
int exp_usage_read(struct exp *x);
int exp_index_read(struct exp *x);

/*
 * For the writer: "key = " of k, then the value (printf-style) and a
 * newline; usage.txt's head and rows; an index.txt line.
 */
void exp_log_put(FILE *f, enum exp_key k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void exp_usage_put_head(FILE *f);
void exp_usage_put(FILE *f, const struct lwprof_thread_usage *tu, size_t n);
void exp_index_put(FILE *f, const struct exp_archive *a);

#endif
