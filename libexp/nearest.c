// SPDX-License-Identifier: GPL-2.0
/*
 * The nearest name (nearest.h): the optimal string alignment distance,
 * three rows of the table at a time.
 */
#include <stdio.h>
#include <string.h>

#include "libexp/nearest.h"

int exp_name_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j;
	int d[3][64], *prev2 = d[0], *prev = d[1], *cur = d[2], *t;

	if (la > 62 || lb > 62)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < c)
				c = prev[j] + 1;
			if (cur[j - 1] + 1 < c)
				c = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < c)
				c = prev2[j - 2] + 1;
			cur[j] = c;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *exp_nearest_name(const char *name, const void *names, size_t n,
			     size_t stride, bool (*ok)(const char *))
{
	const char *best = NULL;
	int bd = 99;
	size_t i;

	while (*name == '-')
		name++;
	for (i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)names + i * stride);
		int d;

		if (ok && !ok(c))
			continue;
		d = exp_name_distance(name, c);
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	return best && bd * 3 <= (int)strlen(best) ? best : NULL;
}


int exp_option_error(const char *prog, char *const *argv, int c,
		     const char *shortopts, const struct option *longopts)
{
	/* A long option's optopt is its val (0 when unknown): its word says it. */
	const char *word = argv[optind - 1], *s, *best = NULL;
	bool is_long = !strncmp(word, "--", 2);
	char name[64];
	size_t n = 0;

	if (is_long) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(word, "="), word);
		word = name;
	}
	if (c == ':') {
		if (is_long)
			fprintf(stderr, "%s: option %s needs a value\n", prog, word);
		else
			fprintf(stderr, "%s: option -%c needs a value\n", prog, optopt);
		return 2;
	}
	while (longopts[n].name)
		n++;
	if (is_long && !optopt)
		best = exp_nearest_name(word, &longopts[0].name, n, sizeof(*longopts), NULL);
	if (is_long && !optopt)
		fprintf(stderr, "%s: unknown option %s", prog, word);
	else
		fprintf(stderr, "%s: unknown option -%c", prog, optopt);
	if (best)
		fprintf(stderr, " (did you mean --%s?)", best);
	fprintf(stderr, "; valid:");
	for (s = shortopts; *s; s++)
		if (*s != '+' && *s != ':')
			fprintf(stderr, " -%c", *s);
	for (; longopts->name; longopts++)
		fprintf(stderr, " --%s", longopts->name);
	fputc('\n', stderr);
	return 2;
}
