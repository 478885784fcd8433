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
#include <stdint.h>
#include <string.h>

#include "libexp/java.h"
#include "recfile.h"

static struct rf file;
static uint64_t off[8];

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

	rf_begin(&file, "java.42.rec", EXP_CPU_NONE, minor);
	off[0] = file.len;
	m = rf_add(&file, EXP_REC_JMETHOD, sizeof(*m) + 32 + 2 * sizeof(*l));
	m->time_ns = 1;
	m->id = 0x1000;
	m->pid = 42;
	m->nlines = 2;
	m->str_len = sizeof(strs);
	memcpy(m + 1, strs, sizeof(strs));
	l = (struct exp_jline *)((char *)(m + 1) + 32);
	l[0] = (struct exp_jline){ 0, 10 };
	l[1] = (struct exp_jline){ 5, 11 };
	off[1] = file.len;
	c = rf_add(&file, EXP_REC_JCODE, sizeof(*c) + sizeof(*pc) + 2 * sizeof(*f) + 8);
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
	off[2] = file.len;
	c = rf_add(&file, EXP_REC_JCODE, sizeof(*c) + 16);
	c->hdr.flags = EXP_JC_STUB;
	c->time_ns = 3;
	c->addr = 0x7f0000000000;
	c->size = 4096;
	c->pid = 42;
	c->name_len = 12;
	strcpy((char *)(c + 1), "Interpreter");
	off[3] = file.len;
	u = rf_add(&file, EXP_REC_JUNLOAD, sizeof(*u));
	u->time_ns = 4;
	u->method = 0x1000;
	u->addr = 0x7f0000001000;
	u->pid = 42;
	off[4] = file.len;
	s = rf_add(&file, EXP_REC_JSTACK, sizeof(*s) + 2 * sizeof(*f));
	s->time_ns = 5;
	s->pid = 42;
	s->tid = 43;
	s->nframes = 2;
	f = (struct exp_jframe *)(s + 1);
	f[0] = (struct exp_jframe){ 0x1000, 5, 0 };
	f[1] = (struct exp_jframe){ 0x3000, -1, 0 };
	off[5] = file.len;
	s = rf_add(&file, EXP_REC_JSTACK, sizeof(*s));
	s->hdr.flags = EXP_JS_END;
	s->time_ns = 6;
	s->pid = 42;
	s->tid = 43;
	s->what = EXP_JW_SLEEP;
	off[6] = file.len;
	t = rf_add(&file, EXP_REC_JTHREAD, sizeof(*t) + 16);
	t->time_ns = 7;
	t->pid = 42;
	t->tid = 43;
	strcpy(t->name, "worker-1");
	off[7] = file.len;
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
	if (exp_reader_open(&r, AT_FDCWD, rf_save(&file), NULL, NULL))
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

static void damage(void)
{
	struct exp_rec_jstack *s;

	sound_file(EXP_MINOR_JAVA);
	file.buf[off[0] + sizeof(struct exp_rec_jmethod) + 6] = 'x';
	rf_expect(&file, "three strings where four are",
		  "method record strings are not four",
		  off[0] + sizeof(struct exp_rec_jmethod));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_jpc *)(file.buf + off[1] + sizeof(struct exp_rec_jcode)))->nframes = 9;
	rf_expect(&file, "an inlined pc's frames past the record",
		  "code record pcs overrun it",
		  off[1] + sizeof(struct exp_rec_jcode));

	sound_file(EXP_MINOR_JAVA);
	s = (void *)(file.buf + off[5]);
	s->what = 0;
	rf_expect(&file, "the end of a tick",
		  "the end of a block with frames, or of a tick",
		  off[5] + offsetof(struct exp_rec_jstack, what));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_rec_jstack *)(file.buf + off[4]))->what = EXP_JW_MAX;
	rf_expect(&file, "a stack of an unknown kind",
		  "Java stack of an unknown kind",
		  off[4] + offsetof(struct exp_rec_jstack, what));

	sound_file(EXP_MINOR_JAVA);
	((struct exp_rec_jstack *)(file.buf + off[4]))->nframes = 3;
	rf_expect(&file, "frames that do not fill the record",
		  "Java stack record size does not match its frames",
		  off[4] + offsetof(struct exp_rec_jstack, nframes));

	sound_file(EXP_MINOR_JAVA);
	memset(file.buf + off[6] + sizeof(struct exp_rec_jthread), 'x', 16);
	rf_expect(&file, "a thread name without its NUL",
		  "Java thread name not NUL-terminated",
		  off[6] + sizeof(struct exp_rec_jthread));
}

static void older(void)
{
	int n, err;

	sound_file(EXP_MINOR_JAVA - 1);
	((struct exp_rec_jstack *)(file.buf + off[4]))->what = EXP_JW_MAX;	/* not checked */
	err = rf_read(&file, &n, NULL, 0);
	t_check(!err && n == 7, "a file of the minor before: its types 56-60 are another's, passed over by size (%d, %d)",
		n, err);
}

int main(void)
{
	file.dir = t_dir("java_records");
	sound();
	damage();
	older();
	return t_done();
}
