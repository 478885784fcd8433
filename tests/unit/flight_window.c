// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's window (userspace/collect/flight.c) when its FIFO
 * is not in time order: a take copies ring 0, then ring 1, so ring 1's
 * older records follow ring 0's newer ones, and none older than the
 * window may be kept for it.  Here two rings in this process's memory,
 * each with a sample every millisecond from 0 to 99 ms, a pause packet at
 * 45 ms between them, and a 50 ms window at 100 ms: the snapshot must
 * hold exactly the samples from 50 ms on, of
 * both rings, start at 50 ms, and start paused (the pause was let go).
 * By size (no time window): what stays after the newest record let go.
 * And a pause over a stack copy that is its thread's base: the sample is
 * not kept, but the delta copy after the resume gets it back before it,
 * so that the reader finds every base (libexp's stack scan).
 */
#include <fcntl.h>
#include <unistd.h>

#include "test.h"
#include "userspace/collect/collect.h"
#include "libexp/format.h"
#include "libexp/reader.h"
#include "libexp/stack.h"

#define NR	2
#define RING	65536
#define MS	1000000ULL
#define T0	(1000 * MS)	/* the run's start */

struct rings {
	struct rec_ring r[NR];
	__u64 head[NR], tail[NR];
	unsigned char data[NR][RING];
};

static void put_sample(struct rings *g, unsigned int i, __u64 t)
{
	struct lwprof_rec_sample s;

	memset(&s, 0, sizeof(s));
	s.hdr.type = LWPROF_REC_SAMPLE;
	s.hdr.size = sizeof(s);
	s.time_ns = t;
	s.pid = s.tid = 100 + i;
	s.cpu = i;
	s.kind = LWPROF_SK_CLOCK;
	s.value = MS;
	memcpy(g->data[i] + g->head[i] % RING, &s, sizeof(s));
	__atomic_store_n(&g->head[i], g->head[i] + sizeof(s), __ATOMIC_RELEASE);
}

static void put_gs(struct flight *f, int kind, __u64 t)
{
	struct exp_rec_gsample r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = EXP_REC_GSAMPLE;
	r.hdr.size = sizeof(r);
	r.time_ns = t;
	r.kind = kind;
	flight_gs(f, &r, sizeof(r));
}

/* The sample times of cpu.N.rec, N < NR, in ms after T0: a bitmap. */
static int read_times(const char *exp, unsigned char seen[NR][100],
		      __u64 *oldest)
{
	unsigned int i;
	int n = 0;

	*oldest = ~0ULL;
	for (i = 0; i < NR; i++) {
		struct lwprof_rec_sample s;
		char path[4400];
		int fd;

		snprintf(path, sizeof(path), "%s/cpu.%u.rec", exp, i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		lseek(fd, sizeof(struct exp_file_header), SEEK_SET);
		while (read(fd, &s, sizeof(s)) == sizeof(s)) {
			__u64 ms = (s.time_ns - T0) / MS;

			if (s.time_ns < *oldest)
				*oldest = s.time_ns;
			if (ms < 100 && s.cpu == i)
				seen[i][ms]++;
			n++;
		}
		close(fd);
	}
	return n;
}

/* The kinds of samples.rec's packets, in order: S(tart), P(ause), R(esume), E(nd). */
static void read_packets(const char *exp, char *kinds, size_t len,
			 __u64 *first_t)
{
	struct exp_rec_gsample r;
	char path[4400];
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/samples.rec", exp);
	fd = open(path, O_RDONLY);
	*first_t = 0;
	if (fd >= 0) {
		lseek(fd, sizeof(struct exp_file_header), SEEK_SET);
		while (n + 1 < len && read(fd, &r, sizeof(r)) == sizeof(r)) {
			if (!n)
				*first_t = r.time_ns;
			kinds[n++] = "?S...PRE"[r.kind <= EXP_GS_KIND_MAX ? r.kind : 0];
			lseek(fd, r.hdr.size - sizeof(r), SEEK_CUR);
		}
		close(fd);
	}
	kinds[n] = 0;
}

/* Empty rings, no options but the directory, not paused. */
static void init(struct rings *g, struct rec_opts *o, struct gsamp *gs,
		 const char *dir)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < NR; i++) {
		g->r[i].data = g->data[i];
		g->r[i].size = RING;
		g->r[i].head = &g->head[i];
		g->r[i].tail = &g->tail[i];
	}
	memset(o, 0, sizeof(*o));
	memset(gs, 0, sizeof(*gs));
	o->dir = dir;
}

static void run(const char *dir, __u64 window_ns, __u64 bytes)
{
	static struct rings g;
	unsigned char seen[NR][100] = { { 0 } };
	struct rec_opts o;
	struct exp_writer tmpl;
	struct gsamp gs;
	struct flight *f;
	unsigned int i, t, want_from = window_ns ? 50 : 0;
	__u64 oldest;
	char kinds[16], exp[4200];
	int n, missing = 0, extra = 0;

	init(&g, &o, &gs, dir);
	o.output = window_ns ? "time.er" : "size.er";
	o.flight_ns = window_ns;
	o.flight_bytes = bytes;
	t_check(flight_create(&f, &o, g.r, NR, &gs) == 0, "flight_create");
	/* ring 0's 100 samples, taken; a pause; then ring 1's, taken */
	for (t = 0; t < 100; t++)
		put_sample(&g, 0, T0 + t * MS);
	flight_take(f, T0 + 100 * MS);
	put_gs(f, EXP_GS_PAUSE, T0 + 45 * MS);
	for (t = 0; t < 100; t++)
		put_sample(&g, 1, T0 + t * MS);
	flight_take(f, T0 + 100 * MS);
	t_check(g.tail[0] == g.head[0] && g.tail[1] == g.head[1],
		"the rings were given their bytes back");

	exp_init(&tmpl);
	tmpl.start_ns = T0;
	t_check(flight_write(f, &tmpl, &o, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR,
			     &gs, T0 + 100 * MS) == 0, "%s: flight_write", o.output);
	snprintf(exp, sizeof(exp), "%s/%s", dir, o.output);
	n = read_times(exp, seen, &oldest);
	if (!window_ns) {
		/*
		 * 96 bytes of FIFO room less than both rings' records: ring
		 * 0's first sample is let go (t = 0) and with it ring 1's at
		 * t = 0, behind the tail; the window starts 1 ns after 0 ms.
		 */
		want_from = 1;
	}
	for (i = 0; i < NR; i++)
		for (t = 0; t < 100; t++) {
			if (t >= want_from && seen[i][t] != 1)
				missing++;
			if (t < want_from && seen[i][t])
				extra++;
		}
	t_check(n > 0 && !missing, "%s: every sample from %u ms on, of both rings (%d missing of %d)",
		o.output, want_from, missing, 2 * (100 - want_from));
	t_check(!extra && oldest >= T0 + want_from * MS,
		"%s: none older than the window's start (%d; oldest %.3f ms)",
		o.output, extra, (oldest - T0) / 1e6);
	read_packets(exp, kinds, sizeof(kinds), &oldest);
	if (window_ns) {
		t_check(!strcmp(kinds, "SPE"),
			"%s: the window starts paused: START, PAUSE, END packets (%s)",
			o.output, kinds);
		t_check(oldest == T0 + 50 * MS, "%s: its start is now - 50 ms (%.3f ms)",
			o.output, (oldest - T0) / 1e6);
	} else {
		t_check(!strcmp(kinds, "SPE"), "%s: the pause was kept (%s)", o.output, kinds);
		t_check(oldest == T0 + 1, "%s: its start is 1 ns after the newest record let go (%llu ns after it)",
			o.output, (unsigned long long)(oldest - T0));
	}
	flight_destroy(f);
	exp_free(&tmpl);
}

#define SP	0x7fff00000000ULL	/* 64-aligned: one block of 64 bytes */

/* A sample of tid 100 in ring 0 at t with a 64-byte stack copy, or delta. */
static void put_copy(struct rings *g, __u64 t, bool delta, __u64 base_t)
{
	struct {
		struct lwprof_rec_sample s;
		__u64 regs[LWPROF_NR_REGS], ip;
		union {
			unsigned char stack[64];
			struct { struct lwprof_sdelta d; __u64 bitmap; } dl;
		} u;
	} r;
	__u32 size = delta ? sizeof(r.u.dl) : sizeof(r.u.stack);

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = LWPROF_REC_SAMPLE;
	r.s.hdr.flags = LWPROF_RS_REGS | LWPROF_RS_SBASE |
			(delta ? LWPROF_RS_SDELTA : 0);
	r.s.hdr.size = offsetof(typeof(r), u) + size;
	r.s.time_ns = t;
	r.s.pid = r.s.tid = 100;
	r.s.kind = LWPROF_SK_CLOCK;
	r.s.value = MS;
	r.s.mstate_ns[LWPROF_MS_USER] = MS;
	r.s.nr_user = 1;
	r.s.stack_size = size;
	r.regs[LWPROF_REG_SP] = SP;
	r.ip = 0x401000;
	if (delta)	/* every block the base's */
		r.u.dl.d = (struct lwprof_sdelta){ SP, base_t, 64, 1, 0 };
	else
		memset(r.u.stack, 0x5a, sizeof(r.u.stack));
	memcpy(g->data[0] + g->head[0] % RING, &r, r.s.hdr.size);
	__atomic_store_n(&g->head[0], g->head[0] + r.s.hdr.size, __ATOMIC_RELEASE);
}

/*
 * A copy at 1 ms, the base at 10 ms in a pause from 5 to 20 ms, a delta
 * on it at 30 ms: the snapshot holds all three, and every delta's base.
 */
static void run_bases(const char *dir)
{
	static struct rings g;
	struct exp_stack_scan sc;
	struct exp_stacks *st;
	struct exp_reader rd;
	const struct lwprof_rec *h;
	struct rec_opts o;
	struct exp_writer tmpl;
	struct gsamp gs;
	struct flight *f;
	char exp[4200], times[64] = "";
	unsigned int usable = 0;
	const char *why;
	uint64_t at;

	init(&g, &o, &gs, dir);
	o.output = "bases.er";
	o.flight_bytes = 1 << 20;
	t_check(flight_create(&f, &o, g.r, NR, &gs) == 0, "bases: flight_create");
	put_copy(&g, T0 + 1 * MS, false, 0);
	flight_take(f, T0 + 2 * MS);
	gs.paused = true;
	gs.paused_at = T0 + 5 * MS;
	put_gs(f, EXP_GS_PAUSE, T0 + 5 * MS);
	put_copy(&g, T0 + 10 * MS, false, 0);
	flight_take(f, T0 + 11 * MS);
	gs.paused = false;
	gs.last_from = T0 + 5 * MS;
	gs.last_to = T0 + 20 * MS;
	put_gs(f, EXP_GS_RESUME, T0 + 20 * MS);
	put_copy(&g, T0 + 30 * MS, true, T0 + 10 * MS);
	flight_take(f, T0 + 31 * MS);
	exp_init(&tmpl);
	tmpl.start_ns = T0;
	t_check(flight_write(f, &tmpl, &o, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR,
			     &gs, T0 + 40 * MS) == 0, "bases: flight_write");
	snprintf(exp, sizeof(exp), "%s/%s/cpu.0.rec", dir, o.output);
	st = exp_stacks_new();
	if (!st || exp_reader_open(&rd, AT_FDCWD, exp, NULL, NULL))
		t_fatal("bases: reading the snapshot");
	exp_stack_scan_begin(&sc, st, 0);
	while (exp_reader_next(&rd, &h) == 1) {
		const struct lwprof_rec_sample *r = (const void *)h;

		if (h->type != LWPROF_REC_SAMPLE)
			continue;
		snprintf(times + strlen(times), sizeof(times) - strlen(times),
			 " %llu", (unsigned long long)((r->time_ns - T0) / MS));
		usable += exp_stack_sample(&sc, rd.off, r,
					   (const uint8_t *)r + sizeof(*r) +
					   8 * LWPROF_NR_REGS + 8, 8192, &why, &at) == 1;
	}
	t_check(!strcmp(times, " 1 10 30"),
		"bases: the paused base came back before its delta (samples at%s ms)", times);
	t_check(!sc.missing && usable == 3,
		"bases: every delta finds its base (%llu missing, %u usable of 3)",
		(unsigned long long)sc.missing, usable);
	exp_stack_scan_end(&sc);
	exp_reader_close(&rd);
	exp_stacks_free(st);
	flight_destroy(f);
	exp_free(&tmpl);
}

int main(void)
{
	char dir[] = "/tmp/lwprof-flight.XXXXXX";
	char cmd[64];

	if (!mkdtemp(dir))
		t_fatal("mkdtemp");
	run(dir, 50 * MS, 0);
	/* the FIFO's entries are an 8-byte head and the 128-byte record */
	run(dir, 0, 2 * 100 * 136 + 136 - 96);
	run_bases(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		t_check(0, "removing %s", dir);
	return t_done();
}
