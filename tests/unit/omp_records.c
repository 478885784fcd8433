// SPDX-License-Identifier: GPL-2.0
/*
 * The OMPT tool's records (libexp/omp.h) through the record reader, on
 * a trace.PID.rec file this test writes, so it knows every field: the
 * runtime, a stack, a region, a wait with its microstates, the segment
 * of that wait after a task (EXP_OMPF_CONT), the task's run and an event
 * of a kind this lwprof does not know (a newer minor's: handed out, for
 * the analyzer to skip), each whole; then damage, each refused at the
 * byte at fault (a version without its NUL, frames past the record,
 * event 0, an event that ends before it starts, a flag no minor has,
 * microstates cut off); and the same records in a file of the minor
 * before them, passed over.  Folded records (an implicit task, its
 * barrier, the idle time before, the region: one record): handed out
 * whole and unfolded into the events they stand for, field by field;
 * damage refused at its byte; a newer minor's part cut off; passed over
 * in a file of the minor before them.
 */
#include <stdint.h>
#include <string.h>

#include "libexp/omp.h"
#include "recfile.h"

#define NREC	7

static struct rf file;
static uint64_t off[NREC + 1];

static struct exp_rec_omp_event *event(uint16_t ev, uint64_t t0, uint64_t t1,
				       bool ms)
{
	struct exp_rec_omp_event *e;

	e = rf_add(&file, EXP_REC_OMP_EVENT,
		   sizeof(*e) + (ms ? 8 * LWPROF_MS_COUNT : 0));
	e->hdr.flags = ms ? EXP_OMPF_MS : 0;
	e->event = ev;
	e->pid = 42;
	e->tid = 43;
	e->stack = 1;
	e->start_ns = t0;
	e->end_ns = t1;
	e->region = 1;
	return e;
}

static void sound_file(__u32 minor)
{
	struct exp_rec_omp_runtime *rt;
	struct exp_rec_omp_stack *st;
	struct exp_rec_omp_event *e;

	rf_begin(&file, "trace.42.rec", EXP_CPU_NONE, minor);
	off[0] = file.len;
	rt = rf_add(&file, EXP_REC_OMP_RUNTIME, sizeof(*rt) + 16);
	rt->time_ns = 1;
	rt->pid = 42;
	rt->omp_version = 201611;
	strcpy(rt->version, "LLVM OMP 14");
	off[1] = file.len;
	st = rf_add(&file, EXP_REC_OMP_STACK, sizeof(*st) + 2 * 8);
	st->pid = 42;
	st->id = 1;
	st->nr = 2;
	st->ips[0] = 0x401000;
	st->ips[1] = 0x402000;
	off[2] = file.len;
	e = event(EXP_OMP_REGION, 10, 100, false);
	e->obj = 2;
	e->codeptr = 0x401000;
	off[3] = file.len;
	e = event(EXP_OMP_BARRIER_EXPLICIT, 20, 30, true);
	e->ms[LWPROF_MS_USER] = 10;
	off[4] = file.len;
	event(EXP_OMP_TASK, 30, 40, false);
	off[5] = file.len;
	e = event(EXP_OMP_BARRIER_EXPLICIT, 40, 50, true);
	e->hdr.flags |= EXP_OMPF_CONT;
	e->ms[LWPROF_MS_WAIT_CPU] = 10;
	off[6] = file.len;
	event(EXP_OMP_EVENT_MAX + 3, 50, 60, false);
	off[7] = file.len;
}

static void sound(void)
{
	const struct exp_rec_omp_runtime *rt;
	const struct exp_rec_omp_stack *st;
	const struct exp_rec_omp_event *e;
	const struct lwprof_rec *h;
	struct exp_reader r;
	int n = 0, ok = 1;

	sound_file(EXP_MINOR_OMP);
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	while (exp_reader_next(&r, &h) > 0 && n < NREC) {
		ok &= r.off == off[n];
		e = (const void *)h;
		switch (n) {
		case 0:
			rt = (const void *)h;
			ok &= h->type == EXP_REC_OMP_RUNTIME &&
			      rt->omp_version == 201611 &&
			      !strcmp(rt->version, "LLVM OMP 14");
			break;
		case 1:
			st = (const void *)h;
			ok &= h->type == EXP_REC_OMP_STACK && st->nr == 2 &&
			      st->ips[1] == 0x402000;
			break;
		case 2:
			ok &= e->event == EXP_OMP_REGION && e->obj == 2 &&
			      e->codeptr == 0x401000;
			break;
		case 3:
			ok &= e->event == EXP_OMP_BARRIER_EXPLICIT &&
			      h->flags == EXP_OMPF_MS && e->ms[LWPROF_MS_USER] == 10;
			break;
		case 4:
			ok &= e->event == EXP_OMP_TASK && !h->flags;
			break;
		case 5:
			ok &= h->flags == (EXP_OMPF_MS | EXP_OMPF_CONT) &&
			      e->ms[LWPROF_MS_WAIT_CPU] == 10;
			break;
		case 6:
			ok &= e->event == EXP_OMP_EVENT_MAX + 3;
			break;
		}
		n++;
	}
	t_check(ok && n == NREC, "the %d records handed out whole, at their offsets, fields as written (%d)",
		NREC, n);
	exp_reader_close(&r);
}

static void damage(void)
{
	struct exp_rec_omp_event *e;

	sound_file(EXP_MINOR_OMP);
	memset(file.buf + off[0] + sizeof(struct exp_rec_omp_runtime), 'x', 16);
	rf_expect(&file, "a runtime's version without its NUL",
		  "OpenMP runtime record: version not NUL-terminated",
		  off[0] + sizeof(struct exp_rec_omp_runtime));

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_stack *)(file.buf + off[1]))->nr = 3;
	rf_expect(&file, "a stack's frames past the record",
		  "OpenMP stack record too short for its frames", off[1] + 4);

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file.buf + off[2]))->event = 0;
	rf_expect(&file, "event 0", "OpenMP event 0",
		  off[2] + offsetof(struct exp_rec_omp_event, event));

	sound_file(EXP_MINOR_OMP);
	e = (void *)(file.buf + off[3]);
	e->start_ns = e->end_ns + 1;
	rf_expect(&file, "an event that ends before it starts",
		  "OpenMP event ends before it starts",
		  off[3] + offsetof(struct exp_rec_omp_event, start_ns));

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file.buf + off[4]))->hdr.flags = 0x8;
	rf_expect(&file, "a flag no minor has", "OpenMP event record flags 0x8",
		  off[4] + 2);

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file.buf + off[4]))->hdr.flags = EXP_OMPF_MS;
	rf_expect(&file, "microstates the record has no room for",
		  "OpenMP event record too short", off[4] + 4);
}

static void older(void)
{
	int n, err;

	sound_file(EXP_MINOR_OMP - 1);
	((struct exp_rec_omp_event *)(file.buf + off[2]))->event = 0;	/* not checked */
	err = rf_read(&file, &n, NULL, 0);
	t_check(!err && n == NREC, "a file of the minor before: types 48-50 are another's, passed over by size (%d, %d)",
		n, err);
}

static uint64_t foff[3];

/* A worker's folded record with its idle time, then a master's with the region. */
static void fold_file(__u32 minor)
{
	struct exp_rec_omp_fold *f;
	struct exp_omp_fold_region *g;

	rf_begin(&file, "trace.42.rec", EXP_CPU_NONE, minor);
	foff[0] = file.len;
	f = rf_add(&file, EXP_REC_OMP_FOLD, exp_omp_fold_size(EXP_OMPF_FOLD_IDLE));
	f->hdr.flags = EXP_OMPF_FOLD_IDLE;
	f->pid = 42;
	f->tid = 44;
	f->cpu = 1;
	f->bar_stack = 3;
	f->index = 1;
	f->team = 2;
	f->region = 7;
	f->start_ns = 1000;
	f->bar_start = 300;
	f->end = 500;
	f->bar_codeptr = 0x401234;
	f->tail[0] = 900;
	foff[1] = file.len;
	f = rf_add(&file, EXP_REC_OMP_FOLD, exp_omp_fold_size(EXP_OMPF_FOLD_REGION));
	f->hdr.flags = EXP_OMPF_FOLD_REGION;
	f->pid = 42;
	f->tid = 43;
	f->team = 2;
	f->region = 7;
	f->start_ns = 1010;
	f->bar_start = 400;
	f->end = 490;
	g = (void *)f->tail;
	g->before = 10;
	g->after = 20;
	g->stack = 1;
	g->asked = 2;
	g->codeptr = 0x401000;
	foff[2] = file.len;
}

/* Does e hold these fields (and no others)? */
static bool is(const struct exp_rec_omp_event *e, uint16_t ev, uint32_t tid,
	       uint16_t cpu, uint64_t t0, uint64_t t1, uint64_t region,
	       uint32_t stack, uint64_t obj, uint64_t codeptr)
{
	return e->hdr.type == EXP_REC_OMP_EVENT && e->hdr.size == sizeof(*e) &&
	       !e->hdr.flags && e->event == ev && e->pid == 42 && e->tid == tid &&
	       e->cpu == cpu && e->start_ns == t0 && e->end_ns == t1 &&
	       e->region == region && e->stack == stack && e->obj == obj &&
	       e->codeptr == codeptr;
}

static void folded(void)
{
	struct exp_rec_omp_event ev[2][4];
	const struct lwprof_rec *h;
	struct exp_reader r;
	unsigned int got[2] = { 0 };
	int n = 0, ok = 1, err;

	fold_file(EXP_MINOR_OMP_FOLD);
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	while (exp_reader_next(&r, &h) > 0 && n < 2) {
		ok &= r.off == foff[n] && h->type == EXP_REC_OMP_FOLD &&
		      h->size == foff[n + 1] - foff[n];
		got[n] = exp_omp_unfold((const void *)h, ev[n]);
		n++;
	}
	exp_reader_close(&r);
	t_check(ok && n == 2, "two folded records handed out whole, at their offsets (%d)", n);
	t_check(got[0] == 3 &&
		is(&ev[0][0], EXP_OMP_IDLE, 44, 1, 900, 1000, 0, 0, 0, 0) &&
		is(&ev[0][1], EXP_OMP_BARRIER_IMPLICIT, 44, 1, 1300, 1500, 7, 3, 0, 0x401234) &&
		is(&ev[0][2], EXP_OMP_ITASK, 44, 1, 1000, 1500, 7, 0, 0x200000001, 0),
		"a worker's: its idle time, barrier and implicit task (%u events)", got[0]);
	t_check(got[1] == 3 &&
		is(&ev[1][0], EXP_OMP_BARRIER_IMPLICIT, 43, 0, 1410, 1500, 7, 0, 0, 0) &&
		is(&ev[1][1], EXP_OMP_ITASK, 43, 0, 1010, 1500, 7, 0, 0x200000000, 0) &&
		is(&ev[1][2], EXP_OMP_REGION, 43, 0, 1000, 1520, 7, 1, 2, 0x401000),
		"the encountering thread's: barrier, implicit task and region (%u events)", got[1]);

	fold_file(EXP_MINOR_OMP_FOLD);
	((struct exp_rec_omp_fold *)(file.buf + foff[0]))->bar_start = 501;
	rf_expect(&file, "folded: a barrier that ends before it starts",
		  "OpenMP folded record: its barrier ends before it starts",
		  foff[0] + offsetof(struct exp_rec_omp_fold, bar_start));

	fold_file(EXP_MINOR_OMP_FOLD);
	((struct exp_rec_omp_fold *)(file.buf + foff[0]))->tail[0] = 1001;
	rf_expect(&file, "folded: idle past the task's start",
		  "OpenMP folded record: idle after its task's start",
		  foff[0] + sizeof(struct exp_rec_omp_fold));

	fold_file(EXP_MINOR_OMP_FOLD);
	((struct exp_rec_omp_fold *)(file.buf + foff[0]))->hdr.flags |= EXP_OMPF_FOLD_REGION;
	rf_expect(&file, "folded: a region the record has no room for",
		  "OpenMP folded record too short", foff[0] + 4);

	fold_file(EXP_MINOR_OMP_FOLD);
	((struct exp_rec_omp_fold *)(file.buf + foff[1]))->hdr.flags |= 0x4;
	rf_expect(&file, "folded: a flag no minor has",
		  "OpenMP folded record flags 0x6", foff[1] + 2);

	fold_file(EXP_MINOR_OMP_FOLD);
	((struct exp_rec_omp_fold *)(file.buf + foff[1]))->tid = 0;
	rf_expect(&file, "folded: tid 0", "OpenMP folded record of pid or tid 0",
		  foff[1] + offsetof(struct exp_rec_omp_fold, pid));

	/* a newer minor's flag and part after the known ones: cut off */
	fold_file(EXP_FILE_MINOR + 1);
	((struct exp_rec_omp_fold *)(file.buf + foff[1]))->hdr.flags |= 0x4;
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	n = 0;
	ok = 1;
	while (exp_reader_next(&r, &h) > 0 && n < 2) {
		ok &= n == 0 || (h->flags == EXP_OMPF_FOLD_REGION &&
				 h->size == exp_omp_fold_size(EXP_OMPF_FOLD_REGION));
		n++;
	}
	exp_reader_close(&r);
	t_check(ok && n == 2, "a newer minor's flag dropped, the record handed out as known (%d)", n);

	fold_file(EXP_MINOR_OMP_FOLD - 1);
	((struct exp_rec_omp_fold *)(file.buf + foff[0]))->bar_start = 501;	/* not checked */
	err = rf_read(&file, &n, NULL, 0);
	t_check(!err && n == 2, "a file of the minor before: type 51 is another's, passed over by size (%d, %d)",
		n, err);
}

int main(void)
{
	file.dir = t_dir("omp_records");
	sound();
	damage();
	older();
	folded();
	return t_done();
}
