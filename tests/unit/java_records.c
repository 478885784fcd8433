// SPDX-License-Identifier: GPL-2.0
/*
 * The Java agent's records (libexp/java.h) through the record reader, on
 * a java.PID.rec file this test writes, so it knows every field: a method
 * with its strings and line table, compiled code with an inlined pc, a
 * stub, an unload, a tick's stack, a block and its end, a thread name,
 * each handed out whole; then damage, each refused at the byte at fault
 * (strings that are not four, frames past the record, a block's end with
 * frames, a stack of an unknown kind, a name without its NUL); and the
 * same records in a file of the minor before them, skipped by size.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/java.h"
#include "libexp/reader.h"
#include "test.h"

static const char *dir;
static uint8_t file[8192];
static size_t len;
static uint64_t off[8];

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

	snprintf(path, sizeof(path), "%s/java.42.rec", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, file, n) != (ssize_t)n || close(fd))
		t_fatal(path);
	return path;
}

static const char strs[] = "LDemo;\0cpu\0()V\0Demo.java";	/* 25 with the NUL */

static void sound_file(__u32 minor)
{
	struct exp_rec_jmethod *m;
	struct exp_rec_jcode *c;
	struct exp_rec_junload *u;
	struct exp_rec_jstack *s;
	struct exp_rec_jthread *t;
	struct exp_jline *l;
	struct exp_jpc *pc;
	struct exp_jframe *f;

	begin(minor);
	off[0] = len;
	m = add(EXP_REC_JMETHOD, sizeof(*m) + 32 + 2 * sizeof(*l));
	m->time_ns = 1;
	m->id = 0x1000;
	m->pid = 42;
	m->nlines = 2;
	m->str_len = sizeof(strs);
	memcpy(m + 1, strs, sizeof(strs));
	l = (struct exp_jline *)((char *)(m + 1) + 32);
	l[0] = (struct exp_jline){ 0, 10 };
	l[1] = (struct exp_jline){ 5, 11 };
	off[1] = len;
	c = add(EXP_REC_JCODE, sizeof(*c) + sizeof(*pc) + 2 * sizeof(*f) + 8);
	c->hdr.flags = EXP_JC_METHOD;
	c->time_ns = 2;
	c->method = 0x1000;
	c->addr = 0x7f0000001000;
	c->size = 256;
	c->pid = 42;
	c->npcs = 1;
	c->name_len = 1;
	pc = (struct exp_jpc *)(c + 1);
	pc->pc = 0x7f0000001010;
	pc->nframes = 2;
	f = (struct exp_jframe *)(pc + 1);
	f[0] = (struct exp_jframe){ 0x2000, 3, 0 };
	f[1] = (struct exp_jframe){ 0x1000, 5, 0 };
	off[2] = len;
	c = add(EXP_REC_JCODE, sizeof(*c) + 16);
	c->hdr.flags = EXP_JC_STUB;
	c->time_ns = 3;
	c->addr = 0x7f0000000000;
	c->size = 4096;
	c->pid = 42;
	c->name_len = 12;
	strcpy((char *)(c + 1), "Interpreter");
	off[3] = len;
	u = add(EXP_REC_JUNLOAD, sizeof(*u));
	u->time_ns = 4;
	u->method = 0x1000;
	u->addr = 0x7f0000001000;
	u->pid = 42;
	off[4] = len;
	s = add(EXP_REC_JSTACK, sizeof(*s) + 2 * sizeof(*f));
	s->time_ns = 5;
	s->pid = 42;
	s->tid = 43;
	s->nframes = 2;
	f = (struct exp_jframe *)(s + 1);
	f[0] = (struct exp_jframe){ 0x1000, 5, 0 };
	f[1] = (struct exp_jframe){ 0x3000, -1, 0 };
	off[5] = len;
	s = add(EXP_REC_JSTACK, sizeof(*s));
	s->hdr.flags = EXP_JS_END;
	s->time_ns = 6;
	s->pid = 42;
	s->tid = 43;
	s->what = EXP_JW_SLEEP;
	off[6] = len;
	t = add(EXP_REC_JTHREAD, sizeof(*t) + 16);
	t->time_ns = 7;
	t->pid = 42;
	t->tid = 43;
	strcpy(t->name, "worker-1");
	off[7] = len;
}

static void sound(void)
{
	const struct exp_rec_jmethod *m;
	const struct exp_rec_jcode *c;
	const struct exp_rec_jstack *s;
	struct exp_jmethod_strs ms;
	const struct lwprof_rec *h;
	struct exp_reader r;
	int n = 0, ok = 1;

	sound_file(EXP_MINOR_JAVA);
	if (exp_reader_open(&r, AT_FDCWD, save(len), NULL, NULL))
		t_fatal(r.msg);
	while (exp_reader_next(&r, &h) > 0) {
		ok &= r.off == off[n] && h->type == EXP_REC_JMETHOD +
		      (n < 2 ? n : n == 2 ? 1 : n < 4 ? 2 : n < 6 ? 3 : 4);
		switch (n) {
		case 0:
			m = (const void *)h;
			exp_jmethod_strs(m, &ms);
			ok &= !strcmp(ms.cls, "LDemo;") && !strcmp(ms.name, "cpu") &&
			      !strcmp(ms.sig, "()V") && !strcmp(ms.file, "Demo.java") &&
			      exp_jmethod_lines(m)[1].line == 11;
			break;
		case 1:
			c = (const void *)h;
			ok &= c->npcs == 1 && !strcmp(exp_jcode_name(c), "");
			break;
		case 2:
			c = (const void *)h;
			ok &= !strcmp(exp_jcode_name(c), "Interpreter");
			break;
		case 4:
			s = (const void *)h;
			ok &= s->nframes == 2 && exp_jstack_frames(s)[1].bci == -1;
			break;
		}
		n++;
	}
	t_check(ok && n == 7, "the seven records handed out whole, at their offsets, fields as written (%d)",
		n);
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
	struct exp_rec_jstack *s;

	sound_file(EXP_MINOR_JAVA);
	((char *)file)[off[0] + sizeof(struct exp_rec_jmethod) + 6] = 'x';
	expect("three strings where four are", "method record strings are not four",
	       off[0] + sizeof(struct exp_rec_jmethod));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_jpc *)(file + off[1] + sizeof(struct exp_rec_jcode)))->nframes = 9;
	expect("an inlined pc's frames past the record", "code record pcs overrun it",
	       off[1] + sizeof(struct exp_rec_jcode));

	sound_file(EXP_MINOR_JAVA);
	s = (void *)(file + off[5]);
	s->what = 0;
	expect("the end of a tick", "the end of a block with frames, or of a tick",
	       off[5] + offsetof(struct exp_rec_jstack, what));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_rec_jstack *)(file + off[4]))->what = EXP_JW_MAX;
	expect("a stack of an unknown kind", "Java stack of an unknown kind",
	       off[4] + offsetof(struct exp_rec_jstack, what));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_rec_jstack *)(file + off[4]))->nframes = 3;
	expect("frames that do not fill the record",
	       "Java stack record size does not match its frames",
	       off[4] + offsetof(struct exp_rec_jstack, nframes));

	sound_file(EXP_MINOR_JAVA);
	memset(file + off[6] + sizeof(struct exp_rec_jthread), 'x', 16);
	expect("a thread name without its NUL", "Java thread name not NUL-terminated",
	       off[6] + sizeof(struct exp_rec_jthread));
}

static void older(void)
{
	const struct lwprof_rec *h;
	struct exp_reader r;
	int n = 0, err;

	sound_file(EXP_MINOR_JAVA - 1);
	((struct exp_rec_jstack *)(file + off[4]))->what = EXP_JW_MAX;	/* not checked */
	if (exp_reader_open(&r, AT_FDCWD, save(len), NULL, NULL))
		t_fatal(r.msg);
	while ((err = exp_reader_next(&r, &h)) > 0)
		n++;
	t_check(!err && n == 7, "a file of the minor before: its types 56-60 are another's, passed over by size (%d, %d)",
		n, err);
	exp_reader_close(&r);
}

int main(void)
{
	dir = t_dir("java_records");
	sound();
	damage();
	older();
	return t_done();
}
