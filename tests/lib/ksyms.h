/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel addresses to function names for the guest tests, from
 * /proc/kallsyms (real addresses as root; kptr_restrict shows zeros
 * otherwise, and ks_load() then fails).  Header-only, like ring.h.
 */
#ifndef LWPROF_KSYMS_H
#define LWPROF_KSYMS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ks_sym {
	uint64_t addr;
	char name[64];
};

struct ks_table {
	struct ks_sym *s;
	size_t n;
};

static inline int ks_cmp(const void *a, const void *b)
{
	const struct ks_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols (t, T, w, W) of the kernel and its modules; -1 if none. */
static inline int ks_load(struct ks_table *k)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], type, name[256];
	unsigned long long addr;
	size_t cap = 0;

	k->s = NULL;
	k->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !addr || !strchr("tTwW", type))
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->s = realloc(k->s, cap * sizeof(*k->s));
			if (!k->s) {
				fclose(f);
				return -1;
			}
		}
		k->s[k->n].addr = addr;
		name[sizeof(k->s[k->n].name) - 1] = '\0';
		strcpy(k->s[k->n].name, name);
		k->n++;
	}
	fclose(f);
	qsort(k->s, k->n, sizeof(*k->s), ks_cmp);
	return k->n ? 0 : -1;
}

/* The function holding addr (the last symbol at or below it), or "?". */
static inline const char *ks_name(const struct ks_table *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->s[lo - 1].name : "?";
}

/* Is addr exactly where a symbol begins (a function pointer, not a pc)? */
static inline int ks_name_is_entry(const struct ks_table *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->s[lo].addr == addr;
}

/*
 * Does one of the n return addresses lie in a function whose name starts
 * with fn?  (The call before a return address may end its function.)
 */
static inline int ks_has(const struct ks_table *k, const uint64_t *ips,
			 unsigned int n, const char *fn)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strncmp(ks_name(k, ips[i] - 1), fn, strlen(fn)))
			return 1;
	return 0;
}

#endif
