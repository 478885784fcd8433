// SPDX-License-Identifier: GPL-2.0
/*
 * The analyzer's containers: growable arrays, an id hash table, interned
 * strings, and the error/warning helpers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"
#include "libexp/progress.h"

int an_vec_grow(struct an_vec *v, size_t need)
{
	size_t cap = v->cap ? v->cap : 16;
	void *p;

	if (need <= v->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(v->p, cap * v->esz);
	if (!p)
		return -ENOMEM;
	v->p = p;
	v->cap = cap;
	return 0;
}

void *an_vec_push(struct an_vec *v)
{
	char *e;

	if (v->n == v->cap && an_vec_grow(v, v->n + 1))
		return NULL;
	e = (char *)v->p + v->n * v->esz;
	memset(e, 0, v->esz);
	v->n++;
	return e;
}

void an_vec_sort(struct an_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->n)
		qsort(v->p, v->n, v->esz, cmp);
}

uint64_t an_hash(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL), w;

	while (len >= 8) {
		memcpy(&w, b, 8);
		h = an_mix(h, w);
		b += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, b, len);
		h = an_mix(h, w);
	}
	return h ? h : 1;
}

static int htab_resize(struct an_htab *h, size_t cap)
{
	struct an_hslot *s = calloc(cap, sizeof(*s));
	size_t i, j;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < h->cap; i++) {
		if (!h->s[i].hash)
			continue;
		for (j = h->s[i].hash & (cap - 1); s[j].hash; j = (j + 1) & (cap - 1))
			;
		s[j] = h->s[i];
	}
	free(h->s);
	h->s = s;
	h->cap = cap;
	return 0;
}

uint32_t an_htab_find(struct an_htab *h, uint64_t hash, an_eq_fn eq,
		      void *ctx, const void *key)
{
	size_t j;

	if (!h->cap)
		return UINT32_MAX;
	hash = hash ? hash : 1;
	for (j = hash & (h->cap - 1); h->s[j].hash; j = (j + 1) & (h->cap - 1))
		if (h->s[j].hash == hash && (!eq || eq(ctx, h->s[j].id, key)))
			return h->s[j].id;
	return UINT32_MAX;
}

int an_htab_add_aux(struct an_htab *h, uint64_t hash, uint32_t id,
		    uint32_t aux)
{
	size_t j;
	int err;

	if ((h->n + 1) * 4 >= h->cap * 3) {
		err = htab_resize(h, h->cap ? h->cap * 2 : 64);
		if (err)
			return err;
	}
	hash = hash ? hash : 1;
	for (j = hash & (h->cap - 1); h->s[j].hash; j = (j + 1) & (h->cap - 1))
		;
	h->s[j].hash = hash;
	h->s[j].id = id;
	h->s[j].aux = aux;
	h->n++;
	return 0;
}

int an_htab_add(struct an_htab *h, uint64_t hash, uint32_t id)
{
	return an_htab_add_aux(h, hash, id, 0);
}

void an_htab_free(struct an_htab *h)
{
	free(h->s);
	memset(h, 0, sizeof(*h));
}

static bool str_eq(void *ctx, uint32_t id, const void *key)
{
	struct an_strtab *t = ctx;

	return !strcmp(an_str(t, id), key);
}

uint32_t an_str_intern(struct an_strtab *t, const char *s)
{
	uint64_t h = an_hash(s, strlen(s), 7);
	uint32_t id = an_htab_find(&t->h, h, str_eq, t, s);
	char **slot;

	if (id != UINT32_MAX)
		return id;
	t->s.esz = sizeof(char *);
	slot = an_vec_push(&t->s);
	if (!slot)
		return UINT32_MAX;
	*slot = strdup(s);
	id = t->s.n - 1;
	if (!*slot || an_htab_add(&t->h, h, id)) {
		t->s.n--;
		free(*slot);
		return UINT32_MAX;
	}
	return id;
}

void an_str_free(struct an_strtab *t)
{
	size_t i;

	for (i = 0; i < t->s.n; i++)
		free(AN_VEC(t->s, char *, i));
	free(t->s.p);
	an_htab_free(&t->h);
	memset(t, 0, sizeof(*t));
}

int an_errf(struct an *an, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(an->run->err, sizeof(an->run->err), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void an_warn(struct an *an, const char *fmt, ...)
{
	va_list ap;

	exp_progress_end(an->run->progress);	/* not on the progress line */
	fprintf(stderr, "lwprof print: warning: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	an->run->nwarn++;
}
