// SPDX-License-Identifier: GPL-2.0
/*
 * archives/ (exp.h): the names of the load objects' copies and
 * index.txt, one line per copy:
 *   BUILDID|-  MAJOR:MINOR  INODE  SIZE  ARCHIVED_NAME  ORIGINAL_PATH
 * written by writer.c (exp_write_index()) through exp_index_put(), read by
 * exp_open().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libexp/format.h"
#include "libexp/internal.h"

void exp_archive_name(char *name, size_t len, const char *buildid,
		      uint32_t maj, uint32_t min, uint64_t ino,
		      const char *base)
{
	if (buildid)
		snprintf(name, len, "%s/%s", buildid, base);
	else
		snprintf(name, len, "nobuildid/%u-%u-%llu/%s", maj, min,
			 (unsigned long long)ino, base);
}

void exp_index_put(FILE *f, const struct exp_archive *a)
{
	fprintf(f, "%s  %u:%u  %llu  %llu  %s  %s\n", a->buildid, a->dev_major,
		a->dev_minor, (unsigned long long)a->ino,
		(unsigned long long)a->size, a->file, a->orig);
}

/* One line's fields into a (file, orig malloc'd): 0, -EINVAL, -ENOMEM. */
static int index_line(struct exp *x, char *s, struct exp_archive *a)
{
	char *tok[5], *save = NULL, *orig;
	int i;

	for (i = 0; i < 5; i++) {
		tok[i] = strtok_r(i ? NULL : s, " \t", &save);
		if (!tok[i])
			return -EINVAL;
	}
	orig = strtok_r(NULL, "", &save);
	while (orig && (*orig == ' ' || *orig == '\t'))
		orig++;
	if (!orig || !*orig || strlen(tok[0]) >= sizeof(a->buildid) ||
	    strstr(tok[4], "..") || tok[4][0] == '/')
		return -EINVAL;
	snprintf(a->buildid, sizeof(a->buildid), "%s", tok[0]);
	if (sscanf(tok[1], "%u:%u", &a->dev_major, &a->dev_minor) != 2 ||
	    exp_parse_u64(tok[2], &a->ino) || exp_parse_u64(tok[3], &a->size))
		return -EINVAL;
	if (asprintf(&a->file, "%s/%s/%s", x->dir, EXP_ARCHIVES, tok[4]) < 0) {
		a->file = NULL;
		return -ENOMEM;
	}
	a->orig = strdup(orig);
	return a->orig ? 0 : -ENOMEM;
}

/* One line of index.txt into x: 0, -EINVAL or -ENOMEM. */
static int index_add(struct exp *x, char *s)
{
	struct exp_archive *a;
	int err;

	if (exp_grow((void **)&x->archives, sizeof(*x->archives),
		     x->narchives, &x->carchives))
		return -ENOMEM;
	a = &x->archives[x->narchives];
	memset(a, 0, sizeof(*a));
	err = index_line(x, s, a);
	if (!err) {
		x->narchives++;
		return 0;
	}
	free(a->file);
	free(a->orig);
	return err;
}

int exp_index_read(struct exp *x)
{
	int err = exp_text_each(x, EXP_INDEX, "index", index_add);

	return err == -ENOENT ? 0 : err;
}
