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
 * before them, passed over.
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

int main(void)
{
	file.dir = t_dir("omp_records");
	sound();
	damage();
	older();
	return t_done();
}
