// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp: "trace FILE format=16|20|21 [calls=N] [ms=1]": a trace file
 * (trace.PID.rec, docs/design/experiment-format.md) of N allocations whose stack
 * is a capture's first snapshot (a real stack the analyzer unwinds to
 * main), encoded here independently of the tracing library and the
 * reader.  Call i allocates 32 + i bytes at 0x100000 + 0x100 i, 1 us
 * after the one before; the even ones are freed 500 ns later, so the
 * odd ones are the leaks.
 *
 * format=16 writes what the library of format 1.4 wrote, in a file that
 * says 1.4: trace records (16) with a whole sample copy for the first
 * (LWPROF_RS_SBASE) and sdelta copies against it after, frees as type
 * 18.  format=20 writes format 1.5's trace call records: the first stack
 * whole, the others word deltas against it (odd calls with two runs of
 * literal words, rsp and the first two of the stack; even ones with
 * none), frees without a stack; ms=1 (20 only) adds microstates,
 * ms[k] = 1000 (k + 1) + i.  event=NAME (20 only) makes every call that
 * function's ("pthread_mutex_lock", "read"), freed only if it allocates,
 * and wait=NS gives each call a start NS before its return.  format=21
 * writes format 1.10's heap records of the same calls (heap21()).
 */
#include <zlib.h>

#include "gen_exp.h"
#include "capture.h"
#include "libexp/trace.h"

struct tfile {
	FILE *f;
	uint32_t pid, tid;
	uint64_t records;
	uint16_t event;		/* the calls' (format 20) */
	uint64_t wait;		/* their start before their return, ns */
};

static const int dwarf8[EXP_TR_NR_REGS] = { 3, 6, 7, 12, 13, 14, 15, 16 };

static int put(struct tfile *tf, const void *p, size_t n)
{
	return !n || fwrite(p, n, 1, tf->f) == 1 ? 0 : -EIO;
}

/* Format 1.4: a trace record with a sample, whole or an sdelta area. */
static int rec16(struct tfile *tf, uint64_t t, uint64_t addr, uint64_t bytes,
		 const uint64_t *regs, uint16_t sflags, const uint8_t *area,
		 uint32_t alen)
{
	struct exp_rec_trace r = { .hdr.type = EXP_REC_TRACE, .event = EXP_TR_MALLOC,
				   .fd = -1, .start_ns = t, .addr = addr,
				   .bytes = bytes };
	uint32_t pad = ((alen + 7) & ~7u) - alen;
	static const uint8_t zeros[8];
	int err;

	r.s.hdr.type = LWPROF_REC_SAMPLE;
	r.s.hdr.flags = LWPROF_RS_REGS | sflags;
	r.s.hdr.size = sizeof(r.s) + 8 * LWPROF_NR_REGS + alen + pad;
	r.s.time_ns = t;
	r.s.pid = tf->pid;
	r.s.tid = tf->tid;
	r.s.kind = LWPROF_SK_CLOCK;
	r.s.stack_size = alen;
	r.hdr.size = offsetof(struct exp_rec_trace, s) + r.s.hdr.size;
	tf->records++;
	err = put(tf, &r, sizeof(r));
	if (!err)
		err = put(tf, regs, 8 * LWPROF_NR_REGS);
	if (!err && alen)
		err = put(tf, area, alen);
	return err ? err : put(tf, zeros, pad);
}

static int free16(struct tfile *tf, uint64_t t, uint64_t addr)
{
	struct exp_rec_trace_free f = { .hdr.type = EXP_REC_TRACE_FREE,
					.hdr.size = sizeof(f), .event = EXP_TR_FREE,
					.time_ns = t, .pid = tf->pid, .tid = tf->tid,
					.addr = addr };

	tf->records++;
	return put(tf, &f, sizeof(f));
}

/*
 * Format 1.5: a trace call record; stack: the registers' and stack's
 * words of the image as the record holds them (whole, or a delta's runs
 * and literal words).
 */
static int rec20(struct tfile *tf, uint16_t event, uint64_t t, uint64_t addr,
		 uint64_t bytes, const uint64_t *ms, const struct exp_tstack *st,
		 const void *stack, uint32_t slen, bool delta)
{
	struct exp_rec_tcall r = { .hdr.type = EXP_REC_TCALL, .event = event,
				   .pid = tf->pid, .tid = tf->tid, .fd = -1,
				   .time_ns = t };
	uint64_t f[3];
	int n = 0, err;

	if (tf->wait && event != EXP_TR_FREE) {
		f[n++] = t - tf->wait;
		r.hdr.flags = EXP_TCF_START;
	}
	f[n++] = addr;
	r.hdr.flags |= EXP_TCF_ADDR;
	if (bytes) {
		f[n++] = bytes;
		r.hdr.flags |= EXP_TCF_BYTES;
	}
	r.hdr.flags |= (ms ? EXP_TCF_MS : 0) | (st ? EXP_TCF_STACK : 0) |
		       (delta ? EXP_TCF_DELTA : 0);
	r.hdr.size = sizeof(r) + 8 * n + (ms ? 8 * LWPROF_MS_COUNT : 0) +
		     (st ? sizeof(*st) + slen : 0);
	tf->records++;
	err = put(tf, &r, sizeof(r));
	if (!err)
		err = put(tf, f, 8 * n);
	if (!err && ms)
		err = put(tf, ms, 8 * LWPROF_MS_COUNT);
	if (!err && st)
		err = put(tf, st, sizeof(*st));
	return err || !st || !slen ? err : put(tf, stack, slen);
}

/* Call i's allocation in format 20: its image whole (i = 0) or a delta. */
static int alloc20(struct tfile *tf, uint32_t i, uint64_t t, bool with_ms,
		   const struct lwprof_capture *c, const uint8_t *stack,
		   uint32_t size)
{
	uint64_t ms[LWPROF_MS_COUNT], regs[EXP_TR_NR_REGS], buf[8];
	struct exp_tstack st = { .size = size, .base = 1 };
	struct exp_trun runs[2] = { { EXP_TR_RSP, 1 }, { EXP_TR_NR_REGS, 2 } };
	uint8_t *img;
	int k, err;

	for (k = 0; k < LWPROF_MS_COUNT; k++)
		ms[k] = 1000 * (k + 1) + i;
	for (k = 0; k < EXP_TR_NR_REGS; k++)
		regs[k] = c->regs[dwarf8[k]];
	if (!i) {
		img = malloc(sizeof(regs) + size);
		if (!img)
			return -ENOMEM;
		memcpy(img, regs, sizeof(regs));
		memcpy(img + sizeof(regs), stack, size);
		err = rec20(tf, tf->event, t, 0x100000 + 0x100 * i, 32 + i,
			    with_ms ? ms : NULL, &st, img, sizeof(regs) + size, false);
		free(img);
		return err;
	}
	if (!(i % 2) || size < 16)	/* the base's words, all of them */
		return rec20(tf, tf->event, t, 0x100000 + 0x100 * i, 32 + i,
			     with_ms ? ms : NULL, &st, NULL, 0, true);
	st.nr_runs = 2;
	memcpy(buf, runs, sizeof(runs));	/* 8 bytes: no padding */
	buf[1] = regs[EXP_TR_RSP];
	memcpy(&buf[2], stack, 16);
	return rec20(tf, tf->event, t, 0x100000 + 0x100 * i, 32 + i,
		     with_ms ? ms : NULL, &st, buf, 32, true);
}

/*
 * Format 1.10: the heap tracer's records of the same calls: the capture's
 * pcs (FILE.pcs, libunwind's walk at the capture) as one chain of stack
 * nodes, written whole; one slice from the first call whose counts (an
 * entry per call's allocation, its first call at its time; an entry per
 * even call's free) and the peak in use go deflated (EXP_REC_TZ).
 */
static int heap21(struct gen *g, struct tfile *tf, const char *cap,
		  uint32_t calls, uint64_t t0)
{
	uint8_t rec[sizeof(struct exp_rec_tstack) + sizeof(struct exp_tchain) + 8 * 64];
	struct exp_rec_tstack *st = (void *)rec;
	struct exp_tchain *c = (void *)(st + 1);
	struct exp_rec_theap *h;
	struct exp_rec_tz *z;
	uint64_t pcs[64], prev = 0, use = 0, peak = 0, peak_ns = 0;
	uLongf zlen;
	char path[4200];
	uint32_t i, n, k, raw;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s.pcs", cap);
	f = fopen(path, "r");
	n = f ? fread(pcs, 8, 64, f) : 0;
	if (f)
		fclose(f);
	if (!n)
		return -EINVAL;
	/* the chain from the outermost frame in: each pc less its parent's */
	*st = (struct exp_rec_tstack){ { EXP_REC_TSTACK, 0,
					 sizeof(*st) + sizeof(*c) + 8 * n }, tf->pid, 1 };
	*c = (struct exp_tchain){ tf->tid, 1, 0, n, 0 };
	for (k = 0; k < n; k++) {
		c->pc[k] = pcs[n - 1 - k] - prev;
		prev = pcs[n - 1 - k];
	}
	tf->records++;
	err = put(tf, rec, st->hdr.size);
	raw = sizeof(*h) + sizeof(h->e[0]) * (calls + (calls + 1) / 2);
	h = calloc(1, raw);
	z = calloc(1, sizeof(*z) + compressBound(raw) + 8);
	if (err || !h || !z) {
		free(h);
		free(z);
		return err ? err : -ENOMEM;
	}
	*h = (struct exp_rec_theap){ { EXP_REC_THEAP, 0, raw }, tf->pid, 0, t0,
				     0, 0, 100000000, 0 };
	for (i = 0; i < calls; i++) {
		h->e[h->nent++] = (struct exp_theap_ent){ n, EXP_TR_MALLOC, 0,
			32 + i, 1, 0, 1000 * i, 0 };
		use += 32 + i;
		if (use > peak) {
			peak = use;
			peak_ns = t0 + 1000 * i;
		}
		if (i % 2)
			continue;
		h->e[h->nent++] = (struct exp_theap_ent){ n, EXP_TR_FREE,
			EXP_THE_FREE, 32 + i, 1, 0, 1000 * i + 500, 0 };
		use -= 32 + i;
	}
	h->peak = peak;
	h->peak_ns = peak_ns;
	zlen = compressBound(raw);
	err = compress(z->z, &zlen, (const void *)h, raw) == Z_OK ? 0 : -EIO;
	z->hdr = (struct lwprof_rec){ EXP_REC_TZ, 0, (sizeof(*z) + zlen + 7) & ~7u };
	z->raw = raw;
	z->zbytes = zlen;
	tf->records++;
	if (!err)
		err = put(tf, z, z->hdr.size);
	free(h);
	free(z);
	if (t0 + 1000 * calls > g->tmax)
		g->tmax = t0 + 1000 * calls;
	return err;
}

/* The traced function called name, or 0. */
static uint16_t trace_event(const char *name)
{
	uint16_t ev;

	for (ev = 1; ev < EXP_TR_MAX; ev++)
		if (exp_trace_event(ev) && !strcmp(exp_trace_event(ev)->name, name))
			return ev;
	return 0;
}

int gen_trace(struct gen *g, char **kv, int nkv)
{
	struct exp_file_header fh;
	struct lwprof_capture c;
	struct tfile tf = { .event = EXP_TR_MALLOC };
	uint32_t calls = 8, format = 0, i, size;
	uint64_t t = g->start_ns + 1000000, t0 = t;
	uint8_t *stack = NULL, *area = NULL;
	char path[4200];
	bool ms = false, append = false, delta = false;
	size_t n;
	int err;

	for (i = 1; i < (uint32_t)nkv; i++) {
		if (!strncmp(kv[i], "format=", 7))
			format = atoi(kv[i] + 7);
		else if (!strncmp(kv[i], "calls=", 6))
			calls = atoi(kv[i] + 6);
		else if (!strcmp(kv[i], "ms=1"))
			ms = true;
		else if (!strncmp(kv[i], "event=", 6))
			tf.event = trace_event(kv[i] + 6);
		else if (!strncmp(kv[i], "wait=", 5))
			tf.wait = strtoull(kv[i] + 5, NULL, 0);
		else if (!strcmp(kv[i], "append=1"))
			append = true;
		else if (!strcmp(kv[i], "delta=1"))
			delta = true;
		else
			return -EINVAL;
	}
	if ((format != 16 && format != 20 && format != 21) || !tf.event ||
	    (format != 20 && (tf.event != EXP_TR_MALLOC || tf.wait || append)) ||
	    (delta && (!append || exp_trace_event(tf.event)->cls == EXP_TC_ALLOC)))
		return -EINVAL;
	if (append && g->tmax + 1000 > t)	/* after the file's calls */
		t = t0 = g->tmax + 1000;
	err = gen_capture_read(g, kv[0], &c, &stack);
	if (err)
		return err;
	size = (c.stack_size < LWPROF_STACK_MAX ? c.stack_size : LWPROF_STACK_MAX) & ~7u;
	tf.pid = c.pid;
	tf.tid = c.tid;
	snprintf(path, sizeof(path), "%s/" EXP_TRACE_FMT, g->out, c.pid);
	tf.f = fopen(path, append ? "a" : "w");
	area = malloc(2 * size + 4096);
	err = -ENOMEM;
	if (!tf.f || !area)
		goto out;
	exp_file_header_init(&fh, 0, LWPROF_ABI_MAJOR, LWPROF_ABI_MINOR);
	fh.minor = format == 16 ? EXP_FILE_MINOR_TRACE :
		format == 20 ? EXP_MINOR_TCALL : EXP_MINOR_THEAP;
	err = append ? 0 : put(&tf, &fh, sizeof(fh));
	if (!err && format == 21) {
		err = heap21(g, &tf, kv[0], calls, t);
		calls = 0;
	}
	for (i = 0; !err && i < calls; i++, t += 1000) {
		if (format == 20) {
			/* delta=1: no copy whole, the file's first is the base */
			err = alloc20(&tf, i + delta, t, ms, &c, stack, size);
		} else if (!i) {
			err = rec16(&tf, t, 0x100000 + 0x100 * i, 32 + i, c.regs,
				    LWPROF_RS_SBASE, stack, size);
		} else {
			n = gen_sdelta_encode(area, c.regs[LWPROF_REG_SP], size,
					      stack, stack, t0, i % 2);
			err = n ? rec16(&tf, t, 0x100000 + 0x100 * i, 32 + i, c.regs,
					LWPROF_RS_SDELTA, area, n) : -ENOMEM;
		}
		if (err || i % 2 || exp_trace_event(tf.event)->cls != EXP_TC_ALLOC)
			continue;
		err = format == 20 ?
			rec20(&tf, EXP_TR_FREE, t + 500, 0x100000 + 0x100 * i, 0,
			      NULL, NULL, NULL, 0, false) :
			free16(&tf, t + 500, 0x100000 + 0x100 * i);
	}
	if (t > g->tmax)
		g->tmax = t;
	g->records += tf.records;
out:
	if (tf.f && fclose(tf.f) && !err)
		err = -EIO;
	free(stack);
	free(area);
	return err;
}
