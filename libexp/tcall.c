// SPDX-License-Identifier: GPL-2.0
/*
 * The compact trace record (EXP_REC_TCALL, format 1.5, libexp/trace.h):
 * its checks, and the view every reader of traced calls uses (of types 16
 * and 18 too).  Its stack copy's codec is libexp/stack.c's.
 */
#include <string.h>

#include "libexp/trace.h"

#define NR	EXP_TR_NR_REGS

static __u32 runs_bytes(__u32 nr_runs)
{
	return (4 * nr_runs + 7) & ~7u;
}

/* The stack part at off of t (size bytes): its checks, *end its end. */
static const char *check_stack(const struct exp_rec_tcall *t, __u32 size,
			       __u32 off, __u32 *end, unsigned int *at)
{
	const struct exp_tstack *st = (const void *)((const __u8 *)t + off);
	const struct exp_trun *run;
	const __u8 *pad;
	__u32 i, next = 0, words, lit = 0;

	*at = 4;
	if ((__u64)off + sizeof(*st) > size)
		return "trace call record too short for its stack";
	words = NR + st->size / 8;
	*at = off;
	if (st->size % 8 || st->size > LWPROF_STACK_MAX)
		return "trace call stack size not a multiple of 8 up to LWPROF_STACK_MAX";
	off += sizeof(*st);
	if (!(t->hdr.flags & EXP_TCF_DELTA)) {
		*at = off - 2;
		if (st->nr_runs)
			return "whole trace call stack with runs";
		*end = off + 8 * NR + st->size;
		*at = 4;
		return *end > size ? "trace call record too short for its stack" : NULL;
	}
	*at = 4;
	if ((__u64)off + runs_bytes(st->nr_runs) > size)
		return "trace call record too short for its delta's runs";
	run = (const void *)((const __u8 *)t + off);
	for (i = 0; i < st->nr_runs; i++) {
		*at = off + 4 * i;
		if (!run[i].len || run[i].pos < next ||
		    (__u32)run[i].pos + run[i].len > words)
			return "trace call delta run out of order or outside its image";
		next = run[i].pos + run[i].len;
		lit += run[i].len;
	}
	for (pad = (const __u8 *)(run + st->nr_runs);
	     pad < (const __u8 *)t + off + runs_bytes(st->nr_runs); pad++)
		if (*pad) {
			*at = pad - (const __u8 *)t;
			return "trace call delta runs' padding not zero";
		}
	*end = off + runs_bytes(st->nr_runs) + 8 * lit;
	*at = 4;
	return *end > size ? "trace call record too short for its delta's words" : NULL;
}

const char *exp_tcall_check(const struct exp_rec_tcall *t, __u32 size,
			    __u32 *known, unsigned int *at)
{
	const __u16 f = t->hdr.flags;
	__u32 off = sizeof(*t) + 8 * __builtin_popcount(f & EXP_TCF_FIELDS);

	*at = offsetof(struct exp_rec_tcall, event);
	if (!exp_trace_event(t->event))
		return "unknown traced call";
	*at = offsetof(struct exp_rec_tcall, pid);
	if (!t->pid || !t->tid)
		return "trace call record of pid or tid 0";
	*at = 2;
	if ((f & EXP_TCF_RET) && (f & EXP_TCF_RET_BYTES))
		return "trace call record flags RET and RET_BYTES";
	if ((f & EXP_TCF_DELTA) && !(f & EXP_TCF_STACK))
		return "trace call record flag DELTA without STACK";
	*at = 4;
	if (off > size)
		return "trace call record too short for its fields";
	*at = sizeof(*t);
	if ((f & EXP_TCF_START) && t->fields[0] > t->time_ns)
		return "trace call record returns before it starts";
	if (f & EXP_TCF_MS) {
		off += 8 * LWPROF_MS_COUNT;
		*at = 4;
		if (off > size)
			return "trace call record too short for its microstates";
	}
	if (f & EXP_TCF_STACK)
		return check_stack(t, size, off, known, at);
	*known = off;
	return NULL;
}

int exp_tcall_view(const struct lwprof_rec *h, struct exp_tcall *v)
{
	const struct exp_rec_tcall *t = (const void *)h;
	const struct exp_rec_trace *o = (const void *)h;
	const struct exp_rec_trace_free *fr = (const void *)h;
	const __u64 *f;

	memset(v, 0, sizeof(*v));
	v->type = h->type;
	switch (h->type) {
	case EXP_REC_TRACE:
		*v = (struct exp_tcall){ .type = h->type, .event = o->event,
			.pid = o->s.pid, .tid = o->s.tid, .cpu = o->s.cpu,
			.fd = o->fd, .start_ns = o->start_ns, .time_ns = o->s.time_ns,
			.addr = o->addr, .addr2 = o->addr2, .bytes = o->bytes,
			.ret = o->ret, .s = &o->s,
			/* a value is their sum (exp_trace_check()): 0, none */
			.ms = o->s.value ? (const __u64 *)o->s.mstate_ns : NULL };
		return 0;
	case EXP_REC_TRACE_FREE:
		*v = (struct exp_tcall){ .type = h->type, .event = fr->event,
			.pid = fr->pid, .tid = fr->tid, .fd = -1,
			.start_ns = fr->time_ns, .time_ns = fr->time_ns,
			.addr = fr->addr, .bytes = fr->bytes };
		return 0;
	case EXP_REC_TCALL:
		break;
	default:
		return -1;
	}
	v->event = t->event;
	v->pid = t->pid;
	v->tid = t->tid;
	v->cpu = t->cpu;
	v->fd = t->fd;
	v->time_ns = t->time_ns;
	f = t->fields;
	v->start_ns = h->flags & EXP_TCF_START ? *f++ : t->time_ns;
	v->addr = h->flags & EXP_TCF_ADDR ? *f++ : 0;
	v->addr2 = h->flags & EXP_TCF_ADDR2 ? *f++ : 0;
	v->bytes = h->flags & EXP_TCF_BYTES ? *f++ : 0;
	if (h->flags & EXP_TCF_RET)
		v->ret = (__s64)*f++;
	else if (h->flags & EXP_TCF_RET_BYTES)
		v->ret = (__s64)v->bytes;
	if (h->flags & EXP_TCF_MS) {
		v->ms = f;
		f += LWPROF_MS_COUNT;
	}
	if (!(h->flags & EXP_TCF_STACK))
		return 0;
	v->st = (const void *)f;
	v->delta = !!(h->flags & EXP_TCF_DELTA);
	if (v->delta) {
		v->runs = (const void *)(v->st + 1);
		v->words = (const void *)((const __u8 *)v->runs +
					  runs_bytes(v->st->nr_runs));
	} else {
		v->words = (const void *)(v->st + 1);
	}
	return 0;
}
