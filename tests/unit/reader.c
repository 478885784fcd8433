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
 * their bytes, and both skipped unchecked in a 1.6 file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/reader.h"
#include "libexp/sample.h"
#include "libexp/trace.h"
#include "test.h"

static const char *dir;
static uint8_t file[8192];
static size_t len;
static uint64_t off[8];

static void begin(__u32 cpu, __u32 minor)
{
	struct exp_file_header h;

	exp_file_header_init(&h, cpu, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
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

static const char *save(const char *name, size_t n)
{
	static char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, file, n) != (ssize_t)n || close(fd))
		t_fatal(path);
	return path;
}

/* The sound file: TASK, MMAP, SAMPLE, an unknown type, LOST. */
static void sound_file(void)
{
	struct lwprof_rec_task *t;
	struct lwprof_rec_mmap *m;
	struct lwprof_rec_sample *s;
	struct lwprof_rec_lost *l;
	uint64_t *w;

	begin(0, EXP_FILE_MINOR);
	off[0] = len;
	t = add(LWPROF_REC_TASK, sizeof(*t));
	t->time_ns = 10;
	t->pid = t->tid = 42;
	t->event = LWPROF_TASK_START;
	strcpy(t->comm, "prog");
	off[1] = len;
	m = add(LWPROF_REC_MMAP, sizeof(*m) + 8);
	m->pid = m->tid = 42;
	m->start = 0x400000;
	m->len = 0x1000;
	strcpy(m->path, "/bin/x");
	off[2] = len;
	s = add(LWPROF_REC_SAMPLE, sizeof(*s) + 8 * (LWPROF_NR_REGS + 3) + 24);
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
	off[3] = len;
	add(15, 16);
	off[4] = len;
	l = add(LWPROF_REC_LOST, sizeof(*l));
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
	if (exp_reader_open(&r, AT_FDCWD, save("cpu.0.rec", len), NULL, NULL))
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
	t_check(exp_reader_tell(&r) == len, "tell: the file's end");
	exp_reader_close(&r);

	exp_reader_open(&r, AT_FDCWD, save("cpu.0.rec", len), NULL, NULL);
	err = exp_reader_at(&r, off[2], &h);
	t_check(err == 1 && h->type == LWPROF_REC_SAMPLE &&
		exp_sample_ips((const void *)h, LWPROF_NR_REGS)[1] == 0x401234,
		"random access: the sample again, its frames in place");
	err = exp_reader_at(&r, off[2] + 4, &h);
	t_check(err == -EBADMSG && strstr(r.msg, "no record starts here"),
		"an offset not a multiple of 8: %s", r.msg);
	err = exp_reader_at(&r, len, &h);
	t_check(err == -EBADMSG && strstr(r.msg, "no record: the end of the file"),
		"the offset of the file's end: %s", r.msg);
	exp_reader_close(&r);
}

/* Open name (len bytes of file) and read to the first failure: its status. */
static int first_error(const char *name, size_t n, char *msg, size_t mlen)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	int err;

	err = exp_reader_open(&r, AT_FDCWD, save(name, n), NULL, NULL);
	while (!err && (err = exp_reader_next(&r, &h)) > 0)
		err = 0;
	snprintf(msg, mlen, "%s", r.msg);
	exp_reader_close(&r);
	return err;
}

static void damage(void)
{
	char msg[1024], want[8600];
	struct lwprof_rec *h;
	int err;

	sound_file();
	err = first_error("cpu.0.rec", off[2] + 20, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/cpu.0.rec: byte %llu: last record cut short (20 of %llu bytes); using the records before it",
		 dir, (unsigned long long)off[2], (unsigned long long)(off[3] - off[2]));
	t_check(err == -ENODATA && !strcmp(msg, want), "cut inside a record: %s", msg);

	sound_file();
	((struct lwprof_rec *)(file + off[1]))->size = 12;
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/cpu.0.rec: byte %llu: bad record size 12 (type 3)",
		 dir, (unsigned long long)off[1] + 4);
	t_check(err == -EBADMSG && !strcmp(msg, want), "a size not a multiple of 8: %s", msg);

	sound_file();
	((struct lwprof_rec *)(file + off[3]))->type = 0;
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "record type 0"), "type 0: %s", msg);

	sound_file();
	((struct lwprof_rec_sample *)(file + off[2]))->kind = 9;
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	snprintf(want, sizeof(want), "byte %llu: unknown sample kind 9",
		 (unsigned long long)off[2] + 28);
	t_check(err == -EBADMSG && strstr(msg, want), "an unknown sample kind: %s", msg);

	sound_file();
	memset(((struct lwprof_rec_mmap *)(file + off[1]))->path, 'x', 8);
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "mmap path not NUL-terminated"),
		"a path without its NUL: %s", msg);

	sound_file();
	file[0] = 'X';
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "cpu.0.rec: byte 0: not an lwprof record file (bad magic)"),
		"a bad magic: %s", msg);

	sound_file();
	((struct exp_file_header *)file)->major = 2;
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
	snprintf(want, sizeof(want), "byte 8: format version 2.%u; this lwprof reads 1.x",
		 EXP_FILE_MINOR);
	t_check(err == -EBADMSG && strstr(msg, want), "another major: %s", msg);

	sound_file();
	err = first_error("cpu.3.rec", len, msg, sizeof(msg));
	t_check(err == -EBADMSG && strstr(msg, "cpu.3.rec: byte 20: header says cpu 0, the file is cpu 3"),
		"the header of another CPU's file: %s", msg);

	begin(0, EXP_FILE_MINOR);
	h = add(LWPROF_REC_TASK, sizeof(struct lwprof_rec_task) + 8);
	((struct lwprof_rec_task *)h)->pid = 1;
	err = first_error("cpu.0.rec", len, msg, sizeof(msg));
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

	begin(0, 99);
	t = add(LWPROF_REC_TASK, sizeof(*t) + 8);
	t->pid = t->tid = 1;
	t = add(LWPROF_REC_TASK, sizeof(*t) + 16);
	t->pid = t->tid = 2;
	add(LWPROF_REC_LOST, sizeof(struct lwprof_rec_lost));
	if (exp_reader_open(&r, AT_FDCWD, save("cpu.0.rec", len), warn, NULL))
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

	begin(0, minor);
	off[0] = len;
	st = add(EXP_REC_TSTACK, sizeof(*st) + sizeof(*c) + 24);
	st->pid = 7;
	st->nchain = 1;
	c = (void *)(st + 1);
	*c = (struct exp_tchain){ 8, 1, 0, 3, 0 };
	c->pc[0] = 0x401000;
	c->pc[1] = c->pc[2] = 0x10;
	off[1] = len;
	h = add(EXP_REC_THEAP, sizeof(*h) + 2 * sizeof(h->e[0]));
	*h = (struct exp_rec_theap){ { EXP_REC_THEAP, 0, h->hdr.size }, 7, 2,
				     1000, 64, 1000, 100000000, 0 };
	h->e[0] = (struct exp_theap_ent){ 3, EXP_TR_MALLOC, 0, 64, 2, 0, 0, 0 };
	h->e[1] = (struct exp_theap_ent){ 3, EXP_TR_FREE, EXP_THE_FREE, 64, 1, 0, 5, 0 };
}

static void heap(void)
{
	char msg[1024], want[64];
	const struct lwprof_rec *h;
	struct exp_reader r;
	int err, n = 0;

	heap_file(EXP_MINOR_THEAP);
	err = exp_reader_open(&r, AT_FDCWD, save("trace.7.rec", len), NULL, NULL);
	while (!err && exp_reader_next(&r, &h) > 0)
		n++;
	t_check(!err && n == 2 && !r.msg[0], "1.10: a stack record and a slice's counts read (%d: %s)",
		n, r.msg);
	exp_reader_close(&r);

	heap_file(EXP_MINOR_THEAP);
	((struct exp_tchain *)(file + off[0] + sizeof(struct exp_rec_tstack)))->parent = 5;
	err = first_error("trace.7.rec", len, msg, sizeof(msg));
	snprintf(want, sizeof(want), "byte %llu: stack chain's parent",
		 (unsigned long long)off[0] + sizeof(struct exp_rec_tstack));
	t_check(err == -EBADMSG && strstr(msg, want), "a chain under a later node: %s", msg);

	heap_file(EXP_MINOR_THEAP);
	((struct exp_rec_theap *)(file + off[1]))->e[1].count = 0;
	err = first_error("trace.7.rec", len, msg, sizeof(msg));
	snprintf(want, sizeof(want), "byte %llu: heap record entry of no blocks",
		 (unsigned long long)off[1] + sizeof(struct exp_rec_theap) +
		 sizeof(struct exp_theap_ent));
	t_check(err == -EBADMSG && strstr(msg, want), "an entry of no blocks: %s", msg);

	heap_file(EXP_MINOR_STOP);
	((struct exp_rec_theap *)(file + off[1]))->e[1].count = 0;
	n = 0;
	err = exp_reader_open(&r, AT_FDCWD, save("trace.7.rec", len), NULL, NULL);
	while (!err && exp_reader_next(&r, &h) > 0)
		n++;
	t_check(!err && n == 2 && !r.msg[0], "1.6: types 21 and 22 are not its own: skipped (%d: %s)",
		n, r.msg);
	exp_reader_close(&r);
}

int main(void)
{
	dir = t_dir("reader");
	sound();
	damage();
	newer();
	heap();
	return t_done();
}
