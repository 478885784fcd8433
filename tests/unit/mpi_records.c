// SPDX-License-Identifier: GPL-2.0
/*
 * The MPI records (libexp/mpi.h) through the record reader, on a
 * trace.PID.rec file this test writes, so it knows every field: an
 * MPI_Recv's record with its call part (a whole stack copy of 16 bytes),
 * a request completed, an MPI_Barrier's record without a stack; each
 * handed out whole, its call part a trace call record of its own; then
 * damage, each refused at the byte at fault (an unknown function, a call
 * part whose size is not the rest of the record, a call part that is no
 * MPI call, a peer rank below -1, a request of number 0); and the same
 * records in a file of the minor before them, passed over by size.
 */
#include <stdint.h>
#include <string.h>

#include "libexp/mpi.h"
#include "recfile.h"

static struct rf file;
static uint64_t off[4];

/* An MPI record of func, its call from t0 to t1 with stack bytes of stack. */
static struct exp_rec_mpi *add_mpi(uint16_t func, uint64_t t0, uint64_t t1,
				   uint32_t stack)
{
	uint32_t call = sizeof(struct exp_rec_tcall) + 8 +
			(stack ? sizeof(struct exp_tstack) + 8 * EXP_TR_NR_REGS + stack : 0);
	struct exp_rec_mpi *m;
	struct exp_tstack *st;

	m = rf_add(&file, EXP_REC_MPI, offsetof(struct exp_rec_mpi, call) + call);
	m->func = func;
	m->rank = 1;
	m->root = m->dst = m->src = EXP_MPI_NONE;
	m->stag = m->rtag = EXP_MPI_NONE;
	m->call.hdr.type = EXP_REC_TCALL;
	m->call.hdr.size = call;
	m->call.hdr.flags = EXP_TCF_START | (stack ? EXP_TCF_STACK : 0);
	m->call.event = EXP_TR_MPI;
	m->call.pid = 42;
	m->call.tid = 43;
	m->call.fd = -1;
	m->call.time_ns = t1;
	m->call.fields[0] = t0;
	if (stack) {
		st = (void *)&m->call.fields[1];
		st->size = stack;
		st->base = 1;
	}
	return m;
}

static void sound_file(__u32 minor)
{
	struct exp_rec_mpi_req *q;
	struct exp_rec_mpi *m;

	rf_begin(&file, "trace.42.rec", 0, minor);
	off[0] = file.len;
	q = rf_add(&file, EXP_REC_MPI_REQ, sizeof(*q));
	q->pid = 42;
	q->tid = 43;
	q->req = 7;
	q->kind = EXP_MPI_F_Irecv;
	q->peer = 0;
	q->tag = 5;
	q->bytes = 400;
	off[1] = file.len;
	m = add_mpi(EXP_MPI_F_Recv, 1000, 5000, 16);
	m->src = 0;
	m->rtag = 5;
	m->rposted = 800;
	m->rbytes = 400;
	m->nrecv = 1;
	m->comm = 0x1234;
	off[2] = file.len;
	add_mpi(EXP_MPI_F_Barrier, 6000, 7000, 0);
	off[3] = file.len;
}

static void sound(void)
{
	const struct exp_rec_mpi_req *q;
	const struct exp_rec_mpi *m;
	const struct lwprof_rec *h;
	struct exp_tcall v;
	struct exp_reader r;
	int n = 0, ok = 1;

	sound_file(EXP_MINOR_MPI);
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	while (exp_reader_next(&r, &h) > 0) {
		ok &= r.off == off[n] && h->size == off[n + 1] - off[n];
		switch (n) {
		case 0:
			q = (const void *)h;
			ok &= h->type == EXP_REC_MPI_REQ && q->req == 7 &&
			      q->kind == EXP_MPI_F_Irecv && q->bytes == 400;
			break;
		case 1:
			m = (const void *)h;
			ok &= h->type == EXP_REC_MPI && m->func == EXP_MPI_F_Recv &&
			      m->src == 0 && m->rbytes == 400 && m->comm == 0x1234 &&
			      !exp_tcall_view(&m->call.hdr, &v) && v.start_ns == 1000 &&
			      v.time_ns == 5000 && v.st && v.st->size == 16 &&
			      v.tid == 43 && !strcmp(exp_mpi_func(m->func)->name, "MPI_Recv") &&
			      exp_mpi_func(m->func)->cls == EXP_MPI_RECV;
			break;
		case 2:
			m = (const void *)h;
			ok &= m->func == EXP_MPI_F_Barrier &&
			      !exp_tcall_view(&m->call.hdr, &v) && !v.st &&
			      exp_mpi_func(m->func)->cls == EXP_MPI_BARRIER;
			break;
		}
		n++;
	}
	t_check(ok && n == 3, "the three records handed out whole, at their offsets, fields as written (%d)",
		n);
	/* the call part is a record of its own at its offset (the unwinder reads it so) */
	t_check(exp_reader_at(&r, off[1] + offsetof(struct exp_rec_mpi, call), &h) == 1 &&
		h->type == EXP_REC_TCALL, "the call part read at its own offset is a trace call record");
	exp_reader_close(&r);
}

static struct exp_rec_mpi *rec(int i)
{
	return (void *)(file.buf + off[i]);
}

static void damage(void)
{
	const uint64_t call = offsetof(struct exp_rec_mpi, call);

	sound_file(EXP_MINOR_MPI);
	rec(1)->func = EXP_MPI_F_MAX;
	rf_expect(&file, "a function past the table",
		  "unknown MPI function",
		  off[1] + offsetof(struct exp_rec_mpi, func));
	sound_file(EXP_MINOR_MPI);
	rec(1)->call.hdr.size -= 8;
	rf_expect(&file, "a call part shorter than the rest",
		  "MPI record's call size is not the rest of the record",
		  off[1] + call + 4);
	sound_file(EXP_MINOR_MPI);
	rec(2)->call.event = EXP_TR_READ;
	rf_expect(&file, "a call part of another event",
		  "MPI record without its call",
		  off[2] + call);
	sound_file(EXP_MINOR_MPI);
	rec(1)->src = -2;
	rf_expect(&file, "a source below -1",
		  "MPI record's peer rank below -1",
		  off[1] + offsetof(struct exp_rec_mpi, root));
	sound_file(EXP_MINOR_MPI);
	((struct exp_rec_mpi_req *)(file.buf + off[0]))->req = 0;
	rf_expect(&file, "a request numbered 0",
		  "MPI request record of request 0",
		  off[0] + offsetof(struct exp_rec_mpi_req, req));
}

static void older(void)
{
	int n, err;

	sound_file(EXP_MINOR_MPI - 1);
	rec(1)->func = EXP_MPI_F_MAX;	/* not this minor's type: not checked */
	err = rf_read(&file, &n, NULL, 0);
	t_check(!err && n == 3, "a file of the minor before: types 40 and 41 passed over by size (%d, %d)",
		n, err);
}

int main(void)
{
	file.dir = t_dir("mpi_records");
	sound();
	damage();
	older();
	return t_done();
}
