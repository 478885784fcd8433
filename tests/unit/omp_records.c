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
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/omp.h"
#include "libexp/reader.h"
#include "test.h"

#define NREC	7

static const char *dir;
static uint8_t file[4096];
static size_t len;
static uint64_t off[NREC + 1];

static void begin(__u32 minor)
{
	struct exp_file_header h;

	exp_file_header_init(&h, EXP_CPU_NONE, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	h.minor = minor;
	memcpy(file, &h, sizeof(h));
	len = sizeof(h);
}

static void *add(uint16_t type, uint32_t size)
{
	struct lwprof_rec *h = (void *)(file + len);

	memset(h, 0, size);
	h->type = type;
	h->size = size;
	len += size;
	return h;
}

static const char *save(size_t n)
{
	static char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/trace.42.rec", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, file, n) != (ssize_t)n || close(fd))
		t_fatal(path);
	return path;
}

static struct exp_rec_omp_event *event(uint16_t ev, uint64_t t0, uint64_t t1,
				       bool ms)
{
	struct exp_rec_omp_event *e = add(EXP_REC_OMP_EVENT, sizeof(*e) +
					  (ms ? 8 * LWPROF_MS_COUNT : 0));

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

	begin(minor);
	off[0] = len;
	rt = add(EXP_REC_OMP_RUNTIME, sizeof(*rt) + 16);
	rt->time_ns = 1;
	rt->pid = 42;
	rt->omp_version = 201611;
	strcpy(rt->version, "LLVM OMP 14");
	off[1] = len;
	st = add(EXP_REC_OMP_STACK, sizeof(*st) + 2 * 8);
	st->pid = 42;
	st->id = 1;
	st->nr = 2;
	st->ips[0] = 0x401000;
	st->ips[1] = 0x402000;
	off[2] = len;
	e = event(EXP_OMP_REGION, 10, 100, false);
	e->obj = 2;
	e->codeptr = 0x401000;
	off[3] = len;
	e = event(EXP_OMP_BARRIER_EXPLICIT, 20, 30, true);
	e->ms[LWPROF_MS_USER] = 10;
	off[4] = len;
	event(EXP_OMP_TASK, 30, 40, false);
	off[5] = len;
	e = event(EXP_OMP_BARRIER_EXPLICIT, 40, 50, true);
	e->hdr.flags |= EXP_OMPF_CONT;
	e->ms[LWPROF_MS_WAIT_CPU] = 10;
	off[6] = len;
	event(EXP_OMP_EVENT_MAX + 3, 50, 60, false);
	off[7] = len;
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
	if (exp_reader_open(&r, AT_FDCWD, save(len), NULL, NULL))
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

/* The sound file with one change: the reader's first error. */
static int first_error(char *msg, size_t mlen)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	int err;

	err = exp_reader_open(&r, AT_FDCWD, save(len), NULL, NULL);
	while (!err && (err = exp_reader_next(&r, &h)) > 0)
		err = 0;
	snprintf(msg, mlen, "%s", r.msg);
	exp_reader_close(&r);
	return err;
}

static void expect(const char *what, const char *text, uint64_t at)
{
	char msg[1024], want[128];
	int err = first_error(msg, sizeof(msg));

	snprintf(want, sizeof(want), "byte %llu: %s", (unsigned long long)at, text);
	t_check(err == -EBADMSG && strstr(msg, want), "%s: %s", what, msg);
}

static void damage(void)
{
	struct exp_rec_omp_event *e;

	sound_file(EXP_MINOR_OMP);
	memset(file + off[0] + sizeof(struct exp_rec_omp_runtime), 'x', 16);
	expect("a runtime's version without its NUL",
	       "OpenMP runtime record: version not NUL-terminated",
	       off[0] + sizeof(struct exp_rec_omp_runtime));

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_stack *)(file + off[1]))->nr = 3;
	expect("a stack's frames past the record",
	       "OpenMP stack record too short for its frames", off[1] + 4);

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file + off[2]))->event = 0;
	expect("event 0", "OpenMP event 0",
	       off[2] + offsetof(struct exp_rec_omp_event, event));

	sound_file(EXP_MINOR_OMP);
	e = (void *)(file + off[3]);
	e->start_ns = e->end_ns + 1;
	expect("an event that ends before it starts",
	       "OpenMP event ends before it starts",
	       off[3] + offsetof(struct exp_rec_omp_event, start_ns));

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file + off[4]))->hdr.flags = 0x8;
	expect("a flag no minor has", "OpenMP event record flags 0x8", off[4] + 2);

	sound_file(EXP_MINOR_OMP);
	((struct exp_rec_omp_event *)(file + off[4]))->hdr.flags = EXP_OMPF_MS;
	expect("microstates the record has no room for",
	       "OpenMP event record too short", off[4] + 4);
}

static void older(void)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	int n = 0, err;

	sound_file(EXP_MINOR_OMP - 1);
	((struct exp_rec_omp_event *)(file + off[2]))->event = 0;	/* not checked */
	if (exp_reader_open(&r, AT_FDCWD, save(len), NULL, NULL))
		t_fatal(r.msg);
	while ((err = exp_reader_next(&r, &h)) > 0)
		n++;
	t_check(!err && n == NREC, "a file of the minor before: types 48-50 are another's, passed over by size (%d, %d)",
		n, err);
	exp_reader_close(&r);
}

int main(void)
{
	dir = t_dir("omp_records");
	sound();
	damage();
	older();
	return t_done();
}
