// SPDX-License-Identifier: GPL-2.0
/*
 * What names the code (agent.h): a method record for every method of
 * every class prepared (which also makes its jmethodID, which
 * AsyncGetCallTrace needs to name a frame), compiled code with the
 * methods inlined at each of its pcs, and the VM's generated stubs.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include <jvmticmlr.h>	/* after jni.h (agent.h), which it needs */

#define CODE_REC_MAX	(1u << 20)	/* a compiled method's pcs: cut beyond */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put_method(jvmtiEnv *jvmti, jmethodID m, const char *cls,
		       const char *file)
{
	jvmtiLineNumberEntry *lt = NULL;
	char *name = NULL, *sig = NULL;
	struct exp_rec_jmethod *r;
	struct exp_jline *l;
	jint nlt = 0, i;
	jboolean native = 0;
	size_t slen, size;
	char *p;

	if ((*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) != JVMTI_ERROR_NONE)
		return;
	(*jvmti)->IsMethodNative(jvmti, m, &native);
	if (!native && (*jvmti)->GetLineNumberTable(jvmti, m, &nlt, &lt) !=
	    JVMTI_ERROR_NONE)
		nlt = 0;
	slen = strlen(cls) + strlen(name) + strlen(sig) + strlen(file) + 4;
	size = sizeof(*r) + pad8(slen) + nlt * sizeof(*l);
	r = calloc(1, size);
	if (r) {
		r->hdr.type = EXP_REC_JMETHOD;
		r->hdr.flags = native ? EXP_JM_NATIVE : 0;
		r->hdr.size = size;
		r->time_ns = ja_now();
		r->id = (uintptr_t)m;
		r->pid = ja_pid;
		r->nlines = nlt;
		r->str_len = slen;
		p = (char *)(r + 1);
		p = stpcpy(p, cls) + 1;
		p = stpcpy(p, name) + 1;
		p = stpcpy(p, sig) + 1;
		strcpy(p, file);
		l = (struct exp_jline *)((char *)(r + 1) + pad8(slen));
		for (i = 0; i < nlt; i++) {
			l[i].bci = lt[i].start_location;
			l[i].line = lt[i].line_number;
		}
		ja_put(r, size);
		free(r);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (lt)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)lt);
}

void ja_class_methods(jvmtiEnv *jvmti, jclass cls)
{
	char *csig = NULL, *file = NULL;
	jmethodID *ms = NULL;
	jint n = 0, i;

	if ((*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) != JVMTI_ERROR_NONE)
		return;
	if ((*jvmti)->GetSourceFileName(jvmti, cls, &file) != JVMTI_ERROR_NONE)
		file = NULL;
	if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &ms) == JVMTI_ERROR_NONE) {
		for (i = 0; i < n; i++)
			put_method(jvmti, ms[i], csig, file ? file : "");
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	if (file)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)file);
}

void JNICALL ja_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
				 jclass cls)
{
	ja_class_methods(jvmti, cls);
}

/* The classes the VM prepared before the agent saw them. */
void ja_loaded_classes(jvmtiEnv *jvmti)
{
	jclass *cs = NULL;
	jint n = 0, i, st;

	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE)
		return;
	for (i = 0; i < n; i++)
		if ((*jvmti)->GetClassStatus(jvmti, cs[i], &st) == JVMTI_ERROR_NONE &&
		    (st & JVMTI_CLASS_STATUS_PREPARED) &&
		    !(st & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)))
			ja_class_methods(jvmti, cs[i]);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
}

/* The inlining record of a compiled method's info, or NULL. */
static const jvmtiCompiledMethodLoadInlineRecord *inline_rec(const void *info)
{
	const jvmtiCompiledMethodLoadRecordHeader *h = info;

	for (; h; h = h->next)
		if (h->kind == JVMTI_CMLR_INLINE_INFO)
			return (const void *)h;
	return NULL;
}

static void put_code(uint16_t flags, jmethodID m, const void *addr,
		     jint size, const char *name, const void *info)
{
	const jvmtiCompiledMethodLoadInlineRecord *in = inline_rec(info);
	size_t len = sizeof(struct exp_rec_jcode), nlen = strlen(name) + 1;
	struct exp_rec_jcode *r;
	struct exp_jframe *f;
	struct exp_jpc *pc;
	jint npcs = 0, i, k;
	char *p;

	for (i = 0; in && i < in->numpcs; i++) {
		size_t one = sizeof(*pc) + in->pcinfo[i].numstackframes * sizeof(*f);

		if (len + one + pad8(nlen) > CODE_REC_MAX) {
			flags |= EXP_JC_CUT;
			break;
		}
		len += one;
		npcs++;
	}
	len += pad8(nlen);
	r = calloc(1, len);
	if (!r)
		return;
	r->hdr.type = EXP_REC_JCODE;
	r->hdr.flags = flags;
	r->hdr.size = len;
	r->time_ns = ja_now();
	r->method = (uintptr_t)m;
	r->addr = (uintptr_t)addr;
	r->size = size;
	r->pid = ja_pid;
	r->npcs = npcs;
	r->name_len = nlen;
	p = (char *)(r + 1);
	for (i = 0; i < npcs; i++) {
		const PCStackInfo *s = &in->pcinfo[i];

		pc = (struct exp_jpc *)p;
		pc->pc = (uintptr_t)s->pc;
		pc->nframes = s->numstackframes;
		f = (struct exp_jframe *)(pc + 1);
		for (k = 0; k < s->numstackframes; k++) {
			f[k].method = (uintptr_t)s->methods[k];
			f[k].bci = s->bcis[k];
		}
		p = (char *)(f + s->numstackframes);
	}
	memcpy(p, name, nlen);
	ja_put(r, len);
	free(r);
}

void JNICALL ja_on_compiled_load(jvmtiEnv *jvmti, jmethodID m, jint size,
				 const void *addr, jint map_len,
				 const jvmtiAddrLocationMap *map,
				 const void *info)
{
	put_code(EXP_JC_METHOD, m, addr, size, "", info);
}

void JNICALL ja_on_compiled_unload(jvmtiEnv *jvmti, jmethodID m,
				   const void *addr)
{
	struct exp_rec_junload r = {
		.hdr = { .type = EXP_REC_JUNLOAD, .size = sizeof(r) },
		.time_ns = ja_now(), .method = (uintptr_t)m,
		.addr = (uintptr_t)addr, .pid = ja_pid,
	};

	ja_put(&r, sizeof(r));
}

void JNICALL ja_on_dynamic_code(jvmtiEnv *jvmti, const char *name,
				const void *addr, jint len)
{
	put_code(EXP_JC_STUB, NULL, addr, len, name && *name ? name : "stub",
		 NULL);
}
