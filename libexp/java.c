// SPDX-License-Identifier: GPL-2.0
/*
 * The Java records' checks and accessors (java.h): what the reader
 * refuses in a java.PID.rec file, said at the byte at fault.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "libexp/java.h"

const char *exp_jwhat_name(unsigned int what)
{
	static const char *const names[EXP_JW_MAX] = {
		[EXP_JW_TICK] = "tick", [EXP_JW_SLEEP] = "sleep",
		[EXP_JW_PARK] = "park", [EXP_JW_WAIT] = "wait",
		[EXP_JW_MONITOR] = "monitor", [EXP_JW_READ] = "read",
	};

	return what < EXP_JW_MAX ? names[what] : "?";
}

int exp_java_file_name(const char *name)
{
	unsigned int pid;
	int n = 0;

	return sscanf(name, EXP_JAVA_FMT "%n", &pid, &n) == 1 && n && !name[n];
}

/* Are bytes [from, to) of the record zero? */
static bool zeros(const void *rec, size_t from, size_t to)
{
	const char *p = rec;

	for (; from < to; from++)
		if (p[from])
			return false;
	return true;
}

static const char *check_method(const struct exp_rec_jmethod *m,
				unsigned int *at)
{
	size_t strs = ((size_t)m->str_len + 7) & ~(size_t)7;
	const char *s = (const char *)(m + 1);
	unsigned int i, nul = 0;

	*at = offsetof(struct exp_rec_jmethod, nlines);
	if (sizeof(*m) + strs + (size_t)m->nlines * sizeof(struct exp_jline) !=
	    m->hdr.size)
		return "method record size does not match its strings and lines";
	*at = offsetof(struct exp_rec_jmethod, pad0);
	if (m->pad0)
		return "method record padding not zero";
	*at = sizeof(*m);
	for (i = 0; i < m->str_len; i++)
		nul += !s[i];
	if (nul != 4 || !m->str_len || s[m->str_len - 1])
		return "method record strings are not four NUL-terminated ones";
	if (!zeros(m, sizeof(*m) + m->str_len, sizeof(*m) + strs))
		return "method record string padding not zero";
	return NULL;
}

static const char *check_frames(const struct exp_jframe *f, uint32_t n,
				const void *rec, unsigned int *at)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (f[i].pad0) {
			*at = (const char *)&f[i].pad0 - (const char *)rec;
			return "Java frame padding not zero";
		}
	return NULL;
}

static const char *check_code(const struct exp_rec_jcode *c, unsigned int *at)
{
	const char *p = (const char *)(c + 1), *end = (const char *)c + c->hdr.size;
	const struct exp_jpc *pc;
	const char *why;
	uint32_t i;

	*at = 2;
	if (!(c->hdr.flags & EXP_JC_METHOD) == !(c->hdr.flags & EXP_JC_STUB))
		return "code record neither a method's nor a stub's";
	for (i = 0; i < c->npcs; i++) {
		pc = (const void *)p;
		*at = p - (const char *)c;
		if ((size_t)(end - p) < sizeof(*pc) ||
		    (size_t)(end - p - sizeof(*pc)) / sizeof(struct exp_jframe) <
		    pc->nframes)
			return "code record pcs overrun it";
		if (pc->pad0)
			return "code record pc padding not zero";
		why = check_frames((const void *)(pc + 1), pc->nframes, c, at);
		if (why)
			return why;
		p += sizeof(*pc) + pc->nframes * sizeof(struct exp_jframe);
	}
	*at = offsetof(struct exp_rec_jcode, name_len);
	if (!c->name_len || (size_t)(end - p) != ((c->name_len + 7) & ~7u) ||
	    p[c->name_len - 1] || memchr(p, 0, c->name_len) != p + c->name_len - 1)
		return "code record name not NUL-terminated at its length";
	if (!zeros(p, c->name_len, end - p))
		return "code record name padding not zero";
	return NULL;
}

static const char *check_stack(const struct exp_rec_jstack *s, unsigned int *at)
{
	*at = offsetof(struct exp_rec_jstack, nframes);
	if (sizeof(*s) + (size_t)s->nframes * sizeof(struct exp_jframe) !=
	    s->hdr.size)
		return "Java stack record size does not match its frames";
	*at = offsetof(struct exp_rec_jstack, what);
	if (s->what >= EXP_JW_MAX)
		return "Java stack of an unknown kind";
	if ((s->hdr.flags & EXP_JS_END) && (s->nframes || !s->what))
		return "the end of a block with frames, or of a tick";
	*at = offsetof(struct exp_rec_jstack, err);
	if (s->err > 0 || (s->err && s->nframes))
		return "Java stack with frames and an error";
	return check_frames(exp_jstack_frames(s), s->nframes, s, at);
}

static const char *check_thread(const struct exp_rec_jthread *t, unsigned int *at)
{
	size_t len = t->hdr.size - sizeof(*t);
	const char *nul;

	*at = sizeof(*t);
	nul = len ? memchr(t->name, 0, len) : NULL;
	if (!nul)
		return "Java thread name not NUL-terminated";
	if (!zeros(t->name, nul - t->name, len) || len - (nul - t->name) > 8)
		return "Java thread name padding not zero";
	return NULL;
}

/* The fixed part of each type. */
static size_t fixed(unsigned int type)
{
	switch (type) {
	case EXP_REC_JMETHOD:
		return sizeof(struct exp_rec_jmethod);
	case EXP_REC_JCODE:
		return sizeof(struct exp_rec_jcode) + 8;
	case EXP_REC_JUNLOAD:
		return sizeof(struct exp_rec_junload);
	case EXP_REC_JSTACK:
		return sizeof(struct exp_rec_jstack);
	case EXP_REC_JTHREAD:
		return sizeof(struct exp_rec_jthread) + 8;
	}
	return 0;
}

const char *exp_java_check(const struct lwprof_rec *h, unsigned int *at)
{
	static const uint32_t flags[] = {
		[EXP_REC_JMETHOD - EXP_REC_JMETHOD] = EXP_JM_FLAGS,
		[EXP_REC_JCODE - EXP_REC_JMETHOD] = EXP_JC_FLAGS,
		[EXP_REC_JUNLOAD - EXP_REC_JMETHOD] = 0,
		[EXP_REC_JSTACK - EXP_REC_JMETHOD] = EXP_JS_FLAGS,
		[EXP_REC_JTHREAD - EXP_REC_JMETHOD] = EXP_JT_FLAGS,
	};
	const struct exp_rec_junload *u;

	*at = 4;
	if (h->size < fixed(h->type))
		return "Java record too short for its type";
	*at = 2;
	if (h->flags & ~flags[h->type - EXP_REC_JMETHOD])
		return "Java record flags unknown";
	*at = 8;
	if (!((const __u64 *)h)[1])
		return "Java record of time 0";
	switch (h->type) {
	case EXP_REC_JMETHOD:
		return check_method((const void *)h, at);
	case EXP_REC_JCODE:
		return check_code((const void *)h, at);
	case EXP_REC_JUNLOAD:
		u = (const void *)h;
		*at = offsetof(struct exp_rec_junload, pad0);
		return u->pad0 ? "unload record padding not zero" : NULL;
	case EXP_REC_JSTACK:
		return check_stack((const void *)h, at);
	case EXP_REC_JTHREAD:
		return check_thread((const void *)h, at);
	}
	return NULL;
}

void exp_jmethod_strs(const struct exp_rec_jmethod *m,
		      struct exp_jmethod_strs *s)
{
	const char *p = (const char *)(m + 1);

	s->cls = p;
	s->name = s->cls + strlen(s->cls) + 1;
	s->sig = s->name + strlen(s->name) + 1;
	s->file = s->sig + strlen(s->sig) + 1;
}

const char *exp_jcode_name(const struct exp_rec_jcode *c)
{
	const char *end = (const char *)c + c->hdr.size;

	return end - ((c->name_len + 7) & ~7u);
}
