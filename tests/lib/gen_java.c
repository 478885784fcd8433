// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp's Java records (libexp/java.h): what the JVMTI agent writes
 * into a JVM's java.PID.rec, one statement a record, in the order given,
 * and the JVM's anonymous code mapping:
 *
 *   java PID anon START LEN [t=NS]       an anonymous executable mapping
 *                                        (MMAP, cpu.0.rec): the code cache
 *   java PID method ID CLASS NAME SIG FILE   a method (CLASS "LDemo;")
 *   java PID code ID ADDR SIZE [t=NS]    method ID compiled at ADDR (hex)
 *   java PID unload ID ADDR [t=NS]       that code freed
 *   java PID thread TID NAME [t=NS]      a Java thread's name
 *   java PID tick TID [t=NS] frames=ID@BCI,...   a tick's stack, leaf first
 */
#include "gen_exp.h"
#include "libexp/java.h"

static FILE *java_file(struct gen *g, uint32_t pid)
{
	struct exp_file_header fh;
	char path[4200];

	if (g->java && g->java_pid == pid)
		return g->java;
	if (g->java && fclose(g->java)) {
		g->java = NULL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/" EXP_JAVA_FMT, g->out, pid);
	g->java = fopen(path, "w");
	g->java_pid = pid;
	exp_file_header_init(&fh, EXP_CPU_NONE, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	if (g->java && fwrite(&fh, sizeof(fh), 1, g->java) != 1) {
		fclose(g->java);
		g->java = NULL;
	}
	return g->java;
}

static int put(struct gen *g, uint32_t pid, const void *r, size_t n)
{
	FILE *f = java_file(g, pid);

	if (!f || fwrite(r, n, 1, f) != 1)
		return -EIO;
	g->records++;
	return 0;
}

/* "t=NS" among w[0..n): the time, start-relative (0 if absent) */
static uint64_t at(const struct gen *g, char **w, int n)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(w[i], "t=", 2))
			return g->start_ns + strtoull(w[i] + 2, NULL, 0);
	return g->start_ns;
}

static int anon(struct gen *g, uint32_t pid, char **w, int n)
{
	struct { struct lwprof_rec_mmap m; char path[8]; } x = { 0 };

	x.m.hdr.type = LWPROF_REC_MMAP;
	x.m.hdr.flags = LWPROF_MMAP_ANON;
	x.m.hdr.size = sizeof(x);
	x.m.time_ns = at(g, w + 2, n - 2);
	x.m.pid = x.m.tid = pid;
	x.m.start = strtoull(w[0], NULL, 16);
	x.m.len = strtoull(w[1], NULL, 0);
	x.m.prot = 5;	/* PROT_READ | PROT_EXEC */
	strcpy(x.path, "//anon");
	return gen_rec(g, 0, &x, sizeof(x));
}

static int method(struct gen *g, uint32_t pid, char **w)
{
	size_t slen = strlen(w[1]) + strlen(w[2]) + strlen(w[3]) + strlen(w[4]) + 4;
	size_t size = sizeof(struct exp_rec_jmethod) + ((slen + 7) & ~(size_t)7);
	struct exp_rec_jmethod *m = calloc(1, size);
	char *p;
	int err;

	if (!m)
		return -ENOMEM;
	m->hdr.type = EXP_REC_JMETHOD;
	m->hdr.size = size;
	m->time_ns = g->start_ns;
	m->id = strtoull(w[0], NULL, 0);
	m->pid = pid;
	m->str_len = slen;
	p = (char *)(m + 1);
	for (int i = 1; i <= 4; i++)
		p = stpcpy(p, w[i]) + 1;
	err = put(g, pid, m, size);
	free(m);
	return err;
}

static int code(struct gen *g, uint32_t pid, char **w, int n)
{
	struct exp_rec_jcode c = {
		.hdr = { .type = EXP_REC_JCODE, .flags = EXP_JC_METHOD,
			 .size = sizeof(c) + 8 },
		.time_ns = at(g, w + 3, n - 3), .method = strtoull(w[0], NULL, 0),
		.addr = strtoull(w[1], NULL, 16), .size = strtoul(w[2], NULL, 0),
		.pid = pid, .name_len = 1,
	};
	struct { struct exp_rec_jcode c; char name[8]; } x = { c, "" };

	return put(g, pid, &x, sizeof(x));
}

static int unload(struct gen *g, uint32_t pid, char **w, int n)
{
	struct exp_rec_junload u = {
		.hdr = { .type = EXP_REC_JUNLOAD, .size = sizeof(u) },
		.time_ns = at(g, w + 2, n - 2), .method = strtoull(w[0], NULL, 0),
		.addr = strtoull(w[1], NULL, 16), .pid = pid,
	};

	return put(g, pid, &u, sizeof(u));
}

static int thread(struct gen *g, uint32_t pid, char **w, int n)
{
	struct { struct exp_rec_jthread t; char name[32]; } x = { 0 };

	snprintf(x.name, sizeof(x.name), "%s", w[1]);
	x.t.hdr.type = EXP_REC_JTHREAD;
	x.t.hdr.size = sizeof(x.t) + ((strlen(x.name) + 8) & ~(size_t)7);
	x.t.time_ns = at(g, w + 2, n - 2);
	x.t.pid = pid;
	x.t.tid = strtoul(w[0], NULL, 0);
	return put(g, pid, &x, x.t.hdr.size);
}

static int tick(struct gen *g, uint32_t pid, char **w, int n)
{
	struct { struct exp_rec_jstack s; struct exp_jframe f[32]; } x = { 0 };
	char *f = NULL, *save = NULL, *tok;
	int k = 0;

	for (int i = 1; i < n; i++)
		if (!strncmp(w[i], "frames=", 7))
			f = w[i] + 7;
	for (tok = f ? strtok_r(f, ",", &save) : NULL; tok && k < 32;
	     tok = strtok_r(NULL, ",", &save), k++) {
		x.f[k].method = strtoull(tok, &tok, 0);
		x.f[k].bci = *tok == '@' ? atoi(tok + 1) : -1;
	}
	x.s.hdr.type = EXP_REC_JSTACK;
	x.s.hdr.size = sizeof(x.s) + k * sizeof(x.f[0]);
	x.s.time_ns = at(g, w + 1, n - 1);
	x.s.pid = pid;
	x.s.tid = strtoul(w[0], NULL, 0);
	x.s.what = EXP_JW_TICK;
	x.s.nframes = k;
	x.s.err = k ? 0 : -1;
	return put(g, pid, &x, x.s.hdr.size);
}

int gen_java(struct gen *g, char **w, int n)
{
	uint32_t pid = strtoul(w[0], NULL, 0);

	if (n >= 4 && !strcmp(w[1], "anon"))
		return anon(g, pid, w + 2, n - 2);
	if (n == 7 && !strcmp(w[1], "method"))
		return method(g, pid, w + 2);
	if (n >= 5 && !strcmp(w[1], "code"))
		return code(g, pid, w + 2, n - 2);
	if (n >= 4 && !strcmp(w[1], "unload"))
		return unload(g, pid, w + 2, n - 2);
	if (n >= 4 && !strcmp(w[1], "thread"))
		return thread(g, pid, w + 2, n - 2);
	if (n >= 3 && !strcmp(w[1], "tick"))
		return tick(g, pid, w + 2, n - 2);
	return -EINVAL;
}
