// SPDX-License-Identifier: GPL-2.0
/*
 * The record reader (libexp/reader.h) on files this test writes, so it
 * knows every record and offset: a sound file's records handed out in
 * order at their offsets (a type it does not know too, by its size),
 * looked ahead and read again at random; then damage, each refused with
 * the file and the byte of the field at fault: a file cut inside a record
 * (the records before it used), a size that is no multiple of 8, type 0,
 * an unknown sample kind, a path without its NUL, a bad magic, another
 * major version, a header of another CPU; and a newer minor's longer
 * record handed out as this reader knows it, with one warning.  The heap
 * tracer's records (1.10): a stack chain and a slice's counts read, a
 * chain whose parent comes after it and an entry of no blocks refused at
 * their bytes, and both skipped unchecked in a 1.6 file.  Compact samples
 * (1.11), made by exp_sample_compact() from a sample this test wrote:
 * smaller, handed out as that sample with the registers not kept zero;
 * a microstate mask past the ten, a register past the file's set,
 * registers without their flag, a nonzero pad, a size short of its
 * fields and a damaged delta copy refused at their byte in the file; a
 * newer minor's longer one handed out whole with one warning; a 1.10
 * file skips it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "libexp/sample.h"
#include "libexp/trace.h"
#include "recfile.h"

static struct rf file;
static uint64_t off[8];

/* The sound file: TASK, MMAP, SAMPLE, an unknown type, LOST. */
static void sound_file(void)
{
	struct lwprof_rec_task *t;
	struct lwprof_rec_mmap *m;
	struct lwprof_rec_sample *s;
	struct lwprof_rec_lost *l;
	uint64_t *w;

	rf_begin(&file, "cpu.0.rec", 0, EXP_FILE_MINOR);
	off[0] = file.len;
	t = rf_add(&file, LWPROF_REC_TASK, sizeof(*t));
	t->time_ns = 10;
	t->pid = t->tid = 42;
	t->event = LWPROF_TASK_START;
	strcpy(t->comm, "prog");
	off[1] = file.len;
	m = rf_add(&file, LWPROF_REC_MMAP, sizeof(*m) + 8);
	m->pid = m->tid = 42;
	m->start = 0x400000;
	m->len = 0x1000;
	strcpy(m->path, "/bin/x");
	off[2] = file.len;
	s = rf_add(&file, LWPROF_REC_SAMPLE, sizeof(*s) + 8 * (LWPROF_NR_REGS + 3) + 24);
	s->hdr.flags = LWPROF_RS_REGS;
	s->time_ns = 20;
	s->pid = s->tid = 42;
	s->kind = LWPROF_SK_CLOCK;
	s->nr_user = 2;
	s->nr_kernel = 1;
	s->stack_size = 20;
	w = (uint64_t *)(s + 1);
	w[LWPROF_NR_REGS] = 0x401000;
	w[LWPROF_NR_REGS + 1] = 0x401234;
	w[LWPROF_NR_REGS + 2] = 0xffffffff81000000ULL;
	off[3] = file.len;
	rf_add(&file, 15, 16);
	off[4] = file.len;
	l = rf_add(&file, LWPROF_REC_LOST, sizeof(*l));
	l->lost = 7;
}

static void sound(void)
{
	static const uint16_t types[] = { LWPROF_REC_TASK, LWPROF_REC_MMAP,
		LWPROF_REC_SAMPLE, 15, LWPROF_REC_LOST };
	const struct lwprof_rec *h, *p;
	struct exp_reader r;
	uint64_t o;
	int i = 0, ok = 0, err;

	sound_file();
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	p = exp_reader_peek(&r, 3, &o);
	t_check(p && p->type == LWPROF_REC_SAMPLE && o == off[2],
		"a look ahead: the third record, at its offset");
	while ((err = exp_reader_next(&r, &h)) > 0 && i < 5) {
		ok += h->type == types[i] && r.off == off[i];
		i++;
	}
	t_check(err == 0 && i == 5 && ok == 5,
		"five records in order at their offsets, the unknown type by its size (%d of %d), then the end",
		ok, i);
	t_check(exp_reader_tell(&r) == file.len, "tell: the file's end");
	exp_reader_close(&r);

	exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL);
	err = exp_reader_at(&r, off[2], &h);
	t_check(err == 1 && h->type == LWPROF_REC_SAMPLE &&
		exp_sample_ips((const void *)h, LWPROF_NR_REGS)[1] == 0x401234,
		"random access: the sample again, its frames in place");
	err = exp_reader_at(&r, off[2] + 4, &h);
	t_check(err == -EBADMSG && strstr(r.msg, "no record starts here"),
		"an offset not a multiple of 8: %s", r.msg);
	err = exp_reader_at(&r, file.len, &h);
	t_check(err == -EBADMSG && strstr(r.msg, "no record: the end of the file"),
		"the offset of the file's end: %s", r.msg);
	exp_reader_close(&r);
}

static void damage(void)
{
	char msg[1024], want[8600];
	struct lwprof_rec *h;
	int err;

	sound_file();
	file.len = off[2] + 20;		/* the sample cut after 20 bytes */
	err = rf_read(&file, NULL, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/cpu.0.rec: byte %llu: last record cut short (20 of %llu bytes); using the records before it",
		 file.dir, (unsigned long long)off[2], (unsigned long long)(off[3] - off[2]));
	t_check(err == -ENODATA && !strcmp(msg, want), "cut inside a record: %s", msg);

	sound_file();
	((struct lwprof_rec *)(file.buf + off[1]))->size = 12;
	err = rf_read(&file, NULL, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/cpu.0.rec: byte %llu: bad record size 12 (type 3)",
		 file.dir, (unsigned long long)off[1] + 4);
	t_check(err == -EBADMSG && !strcmp(msg, want), "a size not a multiple of 8: %s", msg);

	sound_file();
	((struct lwprof_rec *)(file.buf + off[3]))->type = 0;
	err = rf_read(&file, NULL, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "record type 0"), "type 0: %s", msg);

	sound_file();
	((struct lwprof_rec_sample *)(file.buf + off[2]))->kind = 9;
	rf_expect(&file, "an unknown sample kind", "unknown sample kind 9",
		  off[2] + 28);

	sound_file();
	memset(((struct lwprof_rec_mmap *)(file.buf + off[1]))->path, 'x', 8);
	err = rf_read(&file, NULL, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "mmap path not NUL-terminated"),
		"a path without its NUL: %s", msg);

	sound_file();
	file.buf[0] = 'X';
	err = rf_read(&file, NULL, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "cpu.0.rec: byte 0: not an lwprof record file (bad magic)"),
		"a bad magic: %s", msg);

	sound_file();
	((struct exp_file_header *)file.buf)->major = 2;
	snprintf(want, sizeof(want), "format version 2.%u; this lwprof reads 1.x",
		 EXP_FILE_MINOR);
	rf_expect(&file, "another major", want, 8);

	sound_file();
	file.name = "cpu.3.rec";	/* cpu 0's header in cpu 3's file */
	err = rf_read(&file, NULL, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "cpu.3.rec: byte 20: header says cpu 0, the file is cpu 3"),
		"the header of another CPU's file: %s", msg);

	rf_begin(&file, "cpu.0.rec", 0, EXP_FILE_MINOR);
	h = rf_add(&file, LWPROF_REC_TASK, sizeof(struct lwprof_rec_task) + 8);
	((struct lwprof_rec_task *)h)->pid = 1;
	err = rf_read(&file, NULL, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "task record size 56, its fields need 48"),
		"a longer record of this minor is damage: %s", msg);
}

static int nwarn;

static void warn(void *arg, const char *msg)
{
	nwarn++;
}

static void newer(void)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	struct lwprof_rec_task *t;
	int n = 0, cut = 0;

	rf_begin(&file, "cpu.0.rec", 0, 99);
	t = rf_add(&file, LWPROF_REC_TASK, sizeof(*t) + 8);
	t->pid = t->tid = 1;
	t = rf_add(&file, LWPROF_REC_TASK, sizeof(*t) + 16);
	t->pid = t->tid = 2;
	rf_add(&file, LWPROF_REC_LOST, sizeof(struct lwprof_rec_lost));
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), warn, NULL))
		t_fatal(r.msg);
	while (exp_reader_next(&r, &h) > 0) {
		n++;
		cut += h->type == LWPROF_REC_TASK && h->size == sizeof(*t);
	}
	t_check(r.newer && n == 3 && cut == 2 && nwarn == 1,
		"a newer minor: its longer records as this reader knows them, the next found by size, one warning (%d records, %d cut, %d warnings)",
		n, cut, nwarn);
	exp_reader_close(&r);
}

/* A 1.10 heap file: a chain of 3 nodes, a slice with 2 entries. */
static void heap_file(__u32 minor)
{
	struct exp_rec_tstack *st;
	struct exp_tchain *c;
	struct exp_rec_theap *h;

	rf_begin(&file, "trace.7.rec", 0, minor);
	off[0] = file.len;
	st = rf_add(&file, EXP_REC_TSTACK, sizeof(*st) + sizeof(*c) + 24);
	st->pid = 7;
	st->nchain = 1;
	c = (void *)(st + 1);
	*c = (struct exp_tchain){ 8, 1, 0, 3, 0 };
	c->pc[0] = 0x401000;
	c->pc[1] = c->pc[2] = 0x10;
	off[1] = file.len;
	h = rf_add(&file, EXP_REC_THEAP, sizeof(*h) + 2 * sizeof(h->e[0]));
	*h = (struct exp_rec_theap){ { EXP_REC_THEAP, 0, h->hdr.size }, 7, 2,
				     1000, 64, 1000, 100000000, 0 };
	h->e[0] = (struct exp_theap_ent){ 3, EXP_TR_MALLOC, 0, 64, 2, 0, 0, 0 };
	h->e[1] = (struct exp_theap_ent){ 3, EXP_TR_FREE, EXP_THE_FREE, 64, 1, 0, 5, 0 };
}

static void heap(void)
{
	char msg[1024];
	int err, n;

	heap_file(EXP_MINOR_THEAP);
	err = rf_read(&file, &n, msg, sizeof(msg));
	t_check(!err && n == 2 && !msg[0], "1.10: a stack record and a slice's counts read (%d: %s)",
		n, msg);

	heap_file(EXP_MINOR_THEAP);
	((struct exp_tchain *)(file.buf + off[0] + sizeof(struct exp_rec_tstack)))->parent = 5;
	rf_expect(&file, "a chain under a later node", "stack chain's parent",
		  off[0] + sizeof(struct exp_rec_tstack));

	heap_file(EXP_MINOR_THEAP);
	((struct exp_rec_theap *)(file.buf + off[1]))->e[1].count = 0;
	rf_expect(&file, "an entry of no blocks", "heap record entry of no blocks",
		  off[1] + sizeof(struct exp_rec_theap) +
		  sizeof(struct exp_theap_ent));

	heap_file(EXP_MINOR_STOP);
	((struct exp_rec_theap *)(file.buf + off[1]))->e[1].count = 0;
	err = rf_read(&file, &n, msg, sizeof(msg));
	t_check(!err && n == 2 && !msg[0], "1.6: types 21 and 22 are not its own: skipped (%d: %s)",
		n, msg);
}

/* A sample with registers 1..17, three microstates, frames, a stack. */
static size_t full_sample(uint64_t *buf, bool delta)
{
	struct lwprof_rec_sample *s = (void *)buf;
	uint64_t *w = (uint64_t *)(s + 1);
	size_t size = sizeof(*s) + 8 * (LWPROF_NR_REGS + 3) + 24;
	unsigned int i;

	memset(buf, 0, size);
	s->hdr = (struct lwprof_rec){ LWPROF_REC_SAMPLE, LWPROF_RS_REGS, size };
	s->time_ns = 20;
	s->pid = s->tid = 42;
	s->cpu = 1;
	s->kind = LWPROF_SK_CLOCK;
	s->value = 600;
	s->mstate_ns[LWPROF_MS_USER] = 100;
	s->mstate_ns[LWPROF_MS_SLEEP] = 200;
	s->mstate_ns[LWPROF_MS_WAIT_CPU] = 300;
	s->nr_user = 2;
	s->nr_kernel = 1;
	s->stack_size = delta ? 24 : 20;
	if (delta)
		s->hdr.flags |= LWPROF_RS_SDELTA;	/* a header of size 0 */
	for (i = 0; i < LWPROF_NR_REGS; i++)
		w[i] = i + 1;
	w[LWPROF_NR_REGS] = 0x401000;
	w[LWPROF_NR_REGS + 1] = 0x401234;
	w[LWPROF_NR_REGS + 2] = 0xffffffff81000000ULL;
	if (!delta)
		memcpy(w + LWPROF_NR_REGS + 3, "stack bytes of twenty", 20);
	return size;
}

static uint64_t cs_full[64], cs_whole[64];

/* A file of minor: a compact sample (cs_full's, made compact), LOST. */
static struct exp_rec_csample *cs_file(__u32 minor, bool delta, size_t extra)
{
	struct exp_rec_csample *c;
	uint64_t tmp[64];
	size_t n;

	full_sample(cs_full, delta);
	n = exp_sample_compact(tmp, (const void *)cs_full, LWPROF_NR_REGS,
			       EXP_X86_64_UNWIND_REGS);
	rf_begin(&file, "cpu.0.rec", 0, minor);
	off[0] = file.len;
	c = rf_add(&file, EXP_REC_CSAMPLE, n + extra);
	memcpy(c, tmp, n);
	c->hdr.size = n + extra;
	off[1] = file.len;
	rf_add(&file, LWPROF_REC_LOST, sizeof(struct lwprof_rec_lost));
	return c;
}

static void compact(void)
{
	const struct lwprof_rec_sample *full = (const void *)cs_full;
	const struct lwprof_rec *h;
	struct exp_rec_csample *c;
	struct exp_reader r;
	uint64_t *want = cs_whole;
	char msg[1024];
	unsigned int i;
	int err, n;

	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	t_check(c->hdr.type == EXP_REC_CSAMPLE && c->ms_mask == 0x281 &&
		c->reg_mask == EXP_X86_64_UNWIND_REGS &&
		c->hdr.size == full->hdr.size - (sizeof(*full) - sizeof(*c) - 3 * 8) - 9 * 8,
		"compact: 3 of 10 microstates, 8 of 17 registers stored (%u bytes for %u)",
		c->hdr.size, full->hdr.size);
	/* what the reader must hand out: the registers not kept zero */
	memcpy(want, cs_full, full->hdr.size);
	for (i = 0; i < LWPROF_NR_REGS; i++)
		if (!(EXP_X86_64_UNWIND_REGS >> i & 1))
			((uint64_t *)((struct lwprof_rec_sample *)want + 1))[i] = 0;
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
		t_fatal(r.msg);
	err = exp_reader_next(&r, &h);
	t_check(err == 1 && r.off == off[0] && r.stored &&
		h->type == LWPROF_REC_SAMPLE && h->size == full->hdr.size &&
		!memcmp(h, want, h->size),
		"1.11: the compact sample handed out as its sample, the registers not stored zero (%d: %s)",
		err, r.msg);
	err = exp_reader_next(&r, &h);
	t_check(err == 1 && h->type == LWPROF_REC_LOST && r.off == off[1] &&
		!r.stored, "... the next record found by its stored size");
	err = exp_reader_at(&r, off[0], &h);
	t_check(err == 1 && !memcmp(h, want, full->hdr.size),
		"... and the same read again at random");
	exp_reader_close(&r);

	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	c->ms_mask |= 0x400;
	rf_expect(&file, "a microstate past the ten",
		  "compact sample microstate mask 0x681", off[0] + 44);
	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	c->reg_mask |= 1u << 20;
	rf_expect(&file, "a register past the file's set",
		  "compact sample register mask 0x11f0c8", off[0] + 40);
	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	c->hdr.flags &= ~LWPROF_RS_REGS;
	rf_expect(&file, "registers without their flag",
		  "compact sample register mask 0x1f0c8 (without registers", off[0] + 40);
	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	c->pad0 = 1;
	rf_expect(&file, "a nonzero pad", "compact sample pad0 0x1", off[0] + 50);
	c = cs_file(EXP_MINOR_CSAMPLE, false, 0);
	c->nr_user = 3;
	snprintf(msg, sizeof(msg), "compact sample size %u, its fields need %u",
		 c->hdr.size, c->hdr.size + 8);
	rf_expect(&file, "a size short of its fields", msg, off[0] + 4);
	c = cs_file(EXP_MINOR_CSAMPLE, true, 0);
	/* the delta's header, 24 bytes, ends the record; its size at 16 */
	rf_expect(&file, "a damaged delta copy, at its byte in the file",
		  "delta stack copy of a bad size", off[0] + c->hdr.size - 24 + 16);
	c = cs_file(EXP_MINOR_CSAMPLE, false, 8);
	rf_expect(&file, "a longer compact sample of this minor",
		  "compact sample size", off[0] + 4);

	nwarn = 0;
	cs_file(99, false, 8);
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), warn, NULL))
		t_fatal(r.msg);
	err = exp_reader_next(&r, &h);
	t_check(err == 1 && h->size == full->hdr.size &&
		!memcmp(h, want, h->size) && nwarn == 1 &&
		exp_reader_next(&r, &h) == 1 && r.off == off[1],
		"a newer minor: a longer compact sample handed out as this reader knows it, one warning");
	exp_reader_close(&r);

	cs_file(EXP_MINOR_THEAP, false, 0);
	((struct exp_rec_csample *)(file.buf + off[0]))->ms_mask = 0xffff;
	err = rf_read(&file, &n, msg, sizeof(msg));
	t_check(!err && n == 2 && !msg[0],
		"1.10: type 24 is not its own: skipped unchecked (%d: %s)", n, msg);
}

int main(void)
{
	file.dir = t_dir("reader");
	sound();
	damage();
	newer();
	heap();
	compact();
	return t_done();
}
