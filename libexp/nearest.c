// SPDX-License-Identifier: GPL-2.0
/*
 * The nearest name (nearest.h): the optimal string alignment distance,
 * three rows of the table at a time.
 */
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

