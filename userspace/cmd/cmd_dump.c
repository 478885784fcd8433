// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof dump: every record of an experiment in readable form, for tests
 * and bug reports.  Damaged input (a cut-short file, a bad size, a wrong
 * magic or version) gives a message naming the file and the offset; the
 * records before it are still shown, and the exit status is 1.
 *
 *   lwprof dump [-s] EXPERIMENT.er | FILE.rec...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libexp/exp.h"
#include "libexp/format.h"
#include "libexp/java.h"
#include "libexp/mpi.h"
#include "libexp/mstate_names.h"
#include "libexp/nearest.h"
#include "libexp/omp.h"
#include "libexp/reader.h"
#include "libexp/stack.h"
#include "libexp/trace.h"
#include "userspace/cmd/cmds.h"

#define DUMP "lwprof dump"

static const char *const task_event[] = {
	"?", "start", "fork", "exec", "exit", "comm",
};

struct counts {
	unsigned long long rec, type[EXP_REC_JTHREAD + 1], other, lost, gs;
	unsigned long long mpi, mpi_req;
};

static int show_stack;
static const char *exp_path = ".";	/* for messages */

static void put_time(__u64 ns)
{
	printf("t=%llu.%09llu", (unsigned long long)(ns / 1000000000),
	       (unsigned long long)(ns % 1000000000));
}

static void put_comm(const char *c, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n && c[i]; i++) {
		unsigned char ch = c[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/*
 * A delta stack copy (checked by exp_reader_next): the full copy's extent,
 * the base's time, how many blocks are literal and how many reused; with
 * -s the literal blocks, each at its address.
 */
static void dump_sdelta(const struct lwprof_rec_sample *s,
			const unsigned char *area)
{
	const __u64 bs = LWPROF_SDELTA_BLOCK;
	const unsigned char *lit;
	__u64 a, lo, hi, end;
	struct sdelta d;
	__u32 at, i;

	if (sdelta_parse(area, s->stack_size, &d, &at))
		return;
	printf("  sdelta sp=0x%llx size=%u base=", (unsigned long long)d.sp,
	       d.size);
	put_time(d.base_time_ns);
	printf(" blocks=%u literal=%u (%u bytes) reused=%u\n", d.nr_blocks,
	       d.nr_literal, d.lit_bytes, d.nr_blocks - d.nr_literal);
	lit = d.lit;
	end = d.sp + d.size;
	for (i = 0; show_stack && i < d.nr_blocks; i++) {
		if (!sdelta_literal(&d, i))
			continue;
		lo = (d.sp & ~(bs - 1)) + i * bs;
		hi = lo + bs < end ? lo + bs : end;
		lo = lo < d.sp ? d.sp : lo;
		printf("  literal 0x%llx", (unsigned long long)lo);
		for (a = lo; a < hi; a++)
			printf(" %02x", *lit++);
		putchar('\n');
	}
}

/*
 * A sample as the reader hands it out; cs: its stored form when that was
 * a compact sample (its stored microstates and registers counted, and
 * only those registers shown).
 */
static void dump_sample(const struct lwprof_rec_sample *s,
			const struct exp_regs *regs,
			const struct exp_rec_csample *cs)
{
	static const char *const fl[] = {
		"REGS", "TRUNC", "KMODE", "EXIT", "DEFERRED", "KTRUNC",
		"SDELTA", "SBASE", "KBLOCK", "SIGNAL", "IDLE", "HARDIRQ",
		"SOFTIRQ",
	};
	const __u64 *rv = exp_sample_regs(s), *ips, *kips;
	const unsigned char *stack;
	const char *sep = "", *rn;
	unsigned int i;

	if (s->kind == LWPROF_SK_CLOCK)
		printf("SAMPLE clock ");
	else
		printf("SAMPLE counter=%u ", s->counter);
	put_time(s->time_ns);
	printf(" pid=%u tid=%u cpu=%u value=%llu flags=", s->pid, s->tid,
	       s->cpu, (unsigned long long)s->value);
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (s->hdr.flags & (1U << i)) {
			printf("%s%s", sep, fl[i]);
			sep = "|";
		}
	if (!*sep)
		putchar('-');
	if (s->kind == LWPROF_SK_CLOCK)
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			printf(" %s=%llu", exp_mstate_names[i].name,
			       (unsigned long long)s->mstate_ns[i]);
	printf(" frames=%u kframes=%u stack=%u", s->nr_user, s->nr_kernel,
	       s->stack_size);
	if (cs)
		printf(" compact mstates=%d regs=%d",
		       __builtin_popcount(cs->ms_mask),
		       __builtin_popcount(cs->reg_mask));
	putchar('\n');
	ips = exp_sample_ips(s, regs->nr);
	kips = exp_sample_kips(s, regs->nr);
	stack = exp_sample_stack(s, regs->nr);
	if (rv) {
		printf("  regs");
		for (i = 0; i < regs->nr; i++) {
			if (cs && (i >= 32 || !(cs->reg_mask >> i & 1)))
				continue;	/* not stored */
			rn = exp_regs_name(regs, i);
			if (rn)
				printf(" %s=0x%llx", rn, (unsigned long long)rv[i]);
			else
				printf(" r%u=0x%llx", i, (unsigned long long)rv[i]);
		}
		putchar('\n');
	}
	for (i = 0; i < s->nr_user; i++)
		printf("  ip[%u] 0x%llx\n", i, (unsigned long long)ips[i]);
	for (i = 0; i < s->nr_kernel; i++)
		printf("  kip[%u] 0x%llx\n", i, (unsigned long long)kips[i]);
	if (s->hdr.flags & LWPROF_RS_SDELTA) {
		dump_sdelta(s, stack);
		return;
	}
	for (i = 0; show_stack && i < s->stack_size; i++)
		printf("%s%02x%s", i % 32 ? " " : "  stack ", stack[i],
		       i % 32 == 31 || i + 1 == s->stack_size ? "\n" : "");
}

static void dump_task(const struct lwprof_rec_task *t)
{
	printf("TASK %s ", t->event < sizeof(task_event) / sizeof(task_event[0]) ?
	       task_event[t->event] : "?");
	put_time(t->time_ns);
	printf(" pid=%u tid=%u ppid=%u comm=", t->pid, t->tid, t->ppid);
	put_comm(t->comm, sizeof(t->comm));
	if (t->event >= sizeof(task_event) / sizeof(task_event[0]) || !t->event)
		printf(" event=%u", t->event);
	putchar('\n');
}

static void dump_stop(const struct lwprof_rec_stop *s)
{
	printf("STOP ");
	put_time(s->time_ns);
	printf(" pid=%u tid=%u reason=%u comm=", s->pid, s->tid, s->reason);
	put_comm(s->comm, sizeof(s->comm));
	printf(" (%s)\n", exp_stop_why(s->reason));
}

static void dump_mmap(const struct lwprof_rec_mmap *m)
{
	printf("MMAP ");
	put_time(m->time_ns);
	printf(" pid=%u tid=%u start=0x%llx len=0x%llx pgoff=0x%llx dev=%u:%u ino=%llu prot=%c%c%c%s path=%s\n",
	       m->pid, m->tid, (unsigned long long)m->start,
	       (unsigned long long)m->len, (unsigned long long)m->pgoff,
	       m->dev_major, m->dev_minor, (unsigned long long)m->ino,
	       m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-',
	       m->prot & 4 ? 'x' : '-',
	       m->hdr.flags & LWPROF_MMAP_ANON ? " anon" : "", m->path);
}

static const char *const gs_kind[] = {
	"?", "start", "periodic", "signal", "api", "pause", "resume", "end",
};

/* A global sample packet (format 1.4, samples.rec). */
static void dump_gsample(const struct exp_rec_gsample *g)
{
	printf("PACKET %s ", g->kind <= EXP_GS_KIND_MAX ? gs_kind[g->kind] : "?");
	put_time(g->time_ns);
	printf(" pid=%u%s paused=%llu", g->pid,
	       g->hdr.flags & EXP_GS_STATS ? "" : " (no statistics)",
	       (unsigned long long)g->paused_ns);
	if (g->name_len) {
		printf(" name=");
		put_comm(g->name, g->name_len);
	}
	printf(" minflt=%llu majflt=%llu rchar=%llu wchar=%llu read_bytes=%llu write_bytes=%llu nvcsw=%llu nivcsw=%llu rss=%llu swap=%llu utime=%llu stime=%llu\n",
	       (unsigned long long)g->minflt, (unsigned long long)g->majflt,
	       (unsigned long long)g->rchar, (unsigned long long)g->wchar,
	       (unsigned long long)g->read_bytes,
	       (unsigned long long)g->write_bytes,
	       (unsigned long long)g->nvcsw, (unsigned long long)g->nivcsw,
	       (unsigned long long)g->rss_bytes,
	       (unsigned long long)g->swap_bytes,
	       (unsigned long long)g->utime_ns, (unsigned long long)g->stime_ns);
}

/* A traced call (libexp/trace.h), then its sample. */
static void dump_trace(const struct exp_rec_trace *t, const struct exp_regs *regs)
{
	printf("TRACE %s ", exp_trace_event(t->event)->name);
	put_time(t->s.time_ns);
	printf(" start=");
	put_time(t->start_ns);
	printf(" pid=%u tid=%u fd=%d addr=0x%llx addr2=0x%llx bytes=%llu ret=%lld\n  ",
	       t->s.pid, t->s.tid, t->fd, (unsigned long long)t->addr,
	       (unsigned long long)t->addr2, (unsigned long long)t->bytes,
	       (long long)t->ret);
	dump_sample(&t->s, regs, NULL);
}

static void dump_trace_free(const struct exp_rec_trace_free *f)
{
	printf("TRACE %s ", exp_trace_event(f->event)->name);
	put_time(f->time_ns);
	printf(" pid=%u tid=%u addr=0x%llx bytes=%llu\n", f->pid, f->tid,
	       (unsigned long long)f->addr, (unsigned long long)f->bytes);
}

/* The registers of a traced call's image (libexp/trace.h), by name. */
static const char *const tr_reg[EXP_TR_NR_REGS] = {
	"rbx", "rbp", "rsp", "r12", "r13", "r14", "r15", "rip",
};

/*
 * A traced call's stack (format 1.5): whole, its registers (and with -s
 * its bytes); a delta, its runs of literal words (-s: each word, a
 * register by name, a stack word at its offset from rsp).
 */
static void dump_tstack(const struct exp_tcall *v)
{
	const __u64 *w = v->words;
	unsigned int i, k, pos, lit = 0;

	for (i = 0; i < v->st->nr_runs; i++)
		lit += v->runs[i].len;
	if (v->delta)
		printf("  tstack delta size=%u base=%u runs=%u literal=%u\n",
		       v->st->size, v->st->base, v->st->nr_runs, lit);
	else
		printf("  tstack whole size=%u base=%u\n  regs", v->st->size,
		       v->st->base);
	for (i = 0; !v->delta && i < EXP_TR_NR_REGS; i++)
		printf(" %s=0x%llx%s", tr_reg[i], (unsigned long long)w[i],
		       i + 1 == EXP_TR_NR_REGS ? "\n" : "");
	for (i = 0; show_stack && !v->delta && i < v->st->size; i++)
		printf("%s%02x%s", i % 32 ? " " : "  stack ",
		       ((const unsigned char *)(w + EXP_TR_NR_REGS))[i],
		       i % 32 == 31 || i + 1 == v->st->size ? "\n" : "");
	for (i = 0; show_stack && v->delta && i < v->st->nr_runs; i++)
		for (k = 0; k < v->runs[i].len; k++) {
			pos = v->runs[i].pos + k;
			if (pos < EXP_TR_NR_REGS)
				printf("  literal %s=0x%llx\n", tr_reg[pos],
				       (unsigned long long)*w++);
			else
				printf("  literal rsp+%u 0x%016llx\n",
				       8 * (pos - EXP_TR_NR_REGS),
				       (unsigned long long)*w++);
		}
}

/* A traced call (format 1.5): its fields, microstates and stack. */
static void dump_tcall(const struct lwprof_rec *r)
{
	struct exp_tcall v;
	unsigned int i;

	exp_tcall_view(r, &v);
	printf("TRACE %s ", exp_trace_event(v.event)->name);
	put_time(v.time_ns);
	printf(" start=");
	put_time(v.start_ns);
	printf(" pid=%u tid=%u cpu=%u fd=%d addr=0x%llx addr2=0x%llx bytes=%llu ret=%lld size=%u\n",
	       v.pid, v.tid, v.cpu, v.fd, (unsigned long long)v.addr,
	       (unsigned long long)v.addr2, (unsigned long long)v.bytes,
	       (long long)v.ret, r->size);
	if (v.ms) {
		printf(" ");
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			printf(" %s=%llu", exp_mstate_names[i].name,
			       (unsigned long long)v.ms[i]);
		putchar('\n');
	}
	if (v.st)
		dump_tstack(&v);
}

/* A slice's heap counts (format 1.10): an entry a line. */
static void dump_theap(const struct exp_rec_theap *h)
{
	const struct exp_theap_ent *e;
	unsigned int i;

	printf("HEAP ");
	put_time(h->time_ns);
	printf(" pid=%u slice=%u entries=%u peak=%llu peak_at=", h->pid,
	       h->slice_ns, h->nent, (unsigned long long)h->peak);
	put_time(h->peak_ns);
	putchar('\n');
	for (i = 0; i < h->nent; i++) {
		e = &h->e[i];
		printf("  %s %s stack=%u bytes=%llu count=%u first=+%u",
		       e->flags & EXP_THE_FREE ? "freed" : "made",
		       exp_trace_event(e->event)->name, e->stack,
		       (unsigned long long)e->bytes, e->count, e->first_ns);
		if (e->flags & EXP_THE_FREE)
			printf(" age=%u", e->age);
		putchar('\n');
	}
}

/* Nodes of the heap calls' stacks (format 1.10): chains of ids, pcs. */
static void dump_tstack_rec(const struct exp_rec_tstack *s)
{
	const uint8_t *p = (const uint8_t *)(s + 1);
	const struct exp_tchain *c;
	unsigned int i, k;

	printf("STACK pid=%u chains=%u\n", s->pid, s->nchain);
	for (k = 0; k < s->nchain; k++, p += sizeof(*c) + 8 * c->nr) {
		c = (const void *)p;
		printf("  nodes %u-%u tid=%u parent=%u%s, pcs less their parent's:\n", c->id,
		       c->id + c->nr - 1, c->tid, c->parent,
		       c->flags & EXP_TSK_TRUNC ? " truncated" : "");
		for (i = 0; i < c->nr; i++)
			printf("%s%+lld%s", i % 6 ? " " : "    ",
			       (long long)c->pc[i],
			       i + 1 == c->nr || i % 6 == 5 ? "\n" : "");
	}
}

/* Deflated heap records (format 1.10): each, inflated. */
static void dump_tz(const struct exp_rec_tz *z, struct counts *c)
{
	static uint8_t buf[EXP_TZ_MAX];
	const struct lwprof_rec *r;
	const char *why;
	long n, off;

	printf("DEFLATED raw=%u zbytes=%u\n", z->raw, z->zbytes);
	n = exp_tz_inflate(z, buf, &why);
	if (n < 0) {
		printf("  (%s)\n", why);
		return;
	}
	for (off = 0; off < n; off += r->size) {
		r = (const void *)(buf + off);
		printf("  +%ld: ", off);
		if (r->type == EXP_REC_TSTACK)
			dump_tstack_rec((const void *)r);
		else
			dump_theap((const void *)r);
		c->type[r->type]++;
	}
}

/* An MPI call: its MPI fields, then its call part as a trace call's. */
static void dump_mpi(const struct exp_rec_mpi *m)
{
	printf("MPI %s rank=%d comm=0x%08x root=%d dst=%d stag=%d sbytes=%llu src=%d rtag=%d rposted=%llu rbytes=%llu req=%llu nsend=%u nrecv=%u\n  ",
	       exp_mpi_func(m->func)->name, m->rank, m->comm, m->root, m->dst,
	       m->stag, (unsigned long long)m->sbytes, m->src, m->rtag,
	       (unsigned long long)m->rposted, (unsigned long long)m->rbytes,
	       (unsigned long long)m->req, m->nsend, m->nrecv);
	dump_tcall(&m->call.hdr);
}

static void dump_mpi_req(const struct exp_rec_mpi_req *q)
{
	printf("MPI_REQ pid=%u tid=%u req=%llu kind=%s cancelled=%u peer=%d tag=%d bytes=%llu\n",
	       q->pid, q->tid, (unsigned long long)q->req,
	       exp_mpi_func(q->kind)->name, q->cancelled, q->peer, q->tag,
	       (unsigned long long)q->bytes);
}

static void dump_trace_file(const struct exp_rec_trace_file *f)
{
	printf("FILE ");
	put_time(f->time_ns);
	printf(" pid=%u fd=%d path=%s\n", f->pid, f->fd, f->path);
}

static void dump_untraced(const struct exp_rec_trace_untraced *u)
{
	printf("UNTRACED ");
	put_time(u->time_ns);
	printf(" pid=%u ppid=%u reason=%u path=%s (%s)\n", u->pid, u->ppid,
	       u->reason, u->path, exp_untraced_why(u->reason));
}

static void put_jframes(const struct exp_jframe *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("  #%u method=0x%llx bci=%d\n", i,
		       (unsigned long long)f[i].method, f[i].bci);
}

/* The JVMTI agent's records (libexp/java.h); frames with -s. */
static void dump_java(const struct lwprof_rec *r)
{
	const struct exp_rec_jmethod *m = (const void *)r;
	const struct exp_rec_jcode *c = (const void *)r;
	const struct exp_rec_junload *u = (const void *)r;
	const struct exp_rec_jstack *s = (const void *)r;
	const struct exp_rec_jthread *t = (const void *)r;
	struct exp_jmethod_strs ms;
	const struct exp_jline *l;
	const struct exp_jpc *pc;
	unsigned int i;

	switch (r->type) {
	case EXP_REC_JMETHOD:
		exp_jmethod_strs(m, &ms);
		printf("JMETHOD ");
		put_time(m->time_ns);
		printf(" pid=%u id=0x%llx class=%s name=%s sig=%s file=%s lines=%u%s\n",
		       m->pid, (unsigned long long)m->id, ms.cls, ms.name,
		       ms.sig, ms.file, m->nlines,
		       r->flags & EXP_JM_NATIVE ? " native" : "");
		l = exp_jmethod_lines(m);
		for (i = 0; show_stack && i < m->nlines; i++)
			printf("  bci=%u line=%u\n", l[i].bci, l[i].line);
		break;
	case EXP_REC_JCODE:
		printf("JCODE ");
		put_time(c->time_ns);
		printf(" pid=%u %s method=0x%llx addr=0x%llx size=%u pcs=%u%s name=\"%s\"\n",
		       c->pid, r->flags & EXP_JC_STUB ? "stub" : "compiled",
		       (unsigned long long)c->method,
		       (unsigned long long)c->addr, c->size, c->npcs,
		       r->flags & EXP_JC_CUT ? " cut" : "", exp_jcode_name(c));
		pc = (const void *)(c + 1);
		for (i = 0; i < c->npcs; i++) {
			if (show_stack) {
				printf(" pc=0x%llx\n", (unsigned long long)pc->pc);
				put_jframes((const void *)(pc + 1), pc->nframes);
			}
			pc = (const void *)((const char *)(pc + 1) +
					    pc->nframes * sizeof(struct exp_jframe));
		}
		break;
	case EXP_REC_JUNLOAD:
		printf("JUNLOAD ");
		put_time(u->time_ns);
		printf(" pid=%u method=0x%llx addr=0x%llx\n", u->pid,
		       (unsigned long long)u->method, (unsigned long long)u->addr);
		break;
	case EXP_REC_JSTACK:
		printf("JSTACK ");
		put_time(s->time_ns);
		printf(" pid=%u tid=%u %s%s frames=%u err=%d\n", s->pid, s->tid,
		       exp_jwhat_name(s->what), r->flags & EXP_JS_END ? " end" : "",
		       s->nframes, s->err);
		if (show_stack)
			put_jframes(exp_jstack_frames(s), s->nframes);
		break;
	case EXP_REC_JTHREAD:
		printf("JTHREAD ");
		put_time(t->time_ns);
		printf(" pid=%u tid=%u name=", t->pid, t->tid);
		put_comm(t->name, strlen(t->name));
		printf("%s\n", r->flags & EXP_JT_DAEMON ? " daemon" : "");
		break;
	}
}

static const char *const omp_event[EXP_OMP_EVENT_MAX] = {
	"?", "region", "itask", "idle", "implicit_barrier", "explicit_barrier",
	"lock", "critical", "ordered", "atomic", "reduction", "taskwait", "task",
};

/* The OMPT tool's records (libexp/omp.h); a stack's frames with -s. */
static void dump_omp(const struct lwprof_rec *r)
{
	const struct exp_rec_omp_runtime *rt = (const void *)r;
	const struct exp_rec_omp_stack *st = (const void *)r;
	const struct exp_rec_omp_event *e = (const void *)r;
	const struct exp_rec_omp_fold *f = (const void *)r;
	struct exp_rec_omp_event ev[4];
	unsigned int i, n;

	switch (r->type) {
	case EXP_REC_OMP_RUNTIME:
		printf("OMP_RUNTIME ");
		put_time(rt->time_ns);
		printf(" pid=%u openmp=%u version=", rt->pid, rt->omp_version);
		put_comm(rt->version, strlen(rt->version));
		printf("\n");
		break;
	case EXP_REC_OMP_STACK:
		printf("OMP_STACK pid=%u id=%u nr=%u\n", st->pid, st->id, st->nr);
		for (i = 0; show_stack && i < st->nr; i++)
			printf("  #%u 0x%llx\n", i, (unsigned long long)st->ips[i]);
		break;
	case EXP_REC_OMP_EVENT:
		printf("OMP_EVENT ");
		put_time(e->start_ns);
		printf(" dur=%llu %s pid=%u tid=%u cpu=%u region=%llu stack=%u obj=0x%llx codeptr=0x%llx\n",
		       (unsigned long long)(e->end_ns - e->start_ns),
		       e->event < EXP_OMP_EVENT_MAX ? omp_event[e->event] : "?",
		       e->pid, e->tid, e->cpu, (unsigned long long)e->region,
		       e->stack, (unsigned long long)e->obj,
		       (unsigned long long)e->codeptr);
		for (i = 0; (r->flags & EXP_OMPF_MS) && i < LWPROF_MS_COUNT; i++)
			printf("%s%s=%llu%s", i ? " " : "  ms ",
			       exp_mstate_names[i].name,
			       (unsigned long long)e->ms[i],
			       i + 1 == LWPROF_MS_COUNT ? "\n" : "");
		break;
	case EXP_REC_OMP_FOLD:
		/* its events, as the tool would have written them */
		n = exp_omp_unfold(f, ev);
		printf("OMP_FOLD pid=%u tid=%u region=%llu events=%u\n", f->pid,
		       f->tid, (unsigned long long)f->region, n);
		for (i = 0; i < n; i++) {
			printf("  ");
			dump_omp(&ev[i].hdr);
		}
		break;
	}
}

/* "NAME: N OMP_RUNTIME, N OMP_STACK, N OMP_EVENT, N OMP_FOLD" of a file or the total. */
static void put_omp_counts(const char *name, const struct counts *c)
{
	if (!c->type[EXP_REC_OMP_RUNTIME] && !c->type[EXP_REC_OMP_EVENT])
		return;
	printf("%s: %llu OMP_RUNTIME, %llu OMP_STACK, %llu OMP_EVENT, %llu OMP_FOLD\n",
	       name, c->type[EXP_REC_OMP_RUNTIME], c->type[EXP_REC_OMP_STACK],
	       c->type[EXP_REC_OMP_EVENT], c->type[EXP_REC_OMP_FOLD]);
}

/* "NAME: N JMETHOD, N JCODE, ..." of a file or the total, if any. */
static void put_java_counts(const char *name, const struct counts *c)
{
	if (!c->type[EXP_REC_JMETHOD] && !c->type[EXP_REC_JSTACK])
		return;
	printf("%s: %llu JMETHOD, %llu JCODE, %llu JUNLOAD, %llu JSTACK, %llu JTHREAD\n",
	       name, c->type[EXP_REC_JMETHOD], c->type[EXP_REC_JCODE],
	       c->type[EXP_REC_JUNLOAD], c->type[EXP_REC_JSTACK],
	       c->type[EXP_REC_JTHREAD]);
}

/* The reader's warnings (a newer minor's records): on stderr. */
static void dump_warn(void *arg, const char *msg)
{
	fprintf(stderr, DUMP ": warning: %s\n", msg);
}

/* "NAME: N TRACE, N FILE[, N UNTRACED][, N STACK]" of a file or the total, if any. */
static void put_trace_counts(const char *name, const struct counts *c)
{
	if (!c->type[EXP_REC_TRACE] && !c->type[EXP_REC_TRACE_FREE] &&
	    !c->type[EXP_REC_TCALL] && !c->type[EXP_REC_TRACE_FILE] &&
	    !c->type[EXP_REC_TRACE_UNTRACED] && !c->type[EXP_REC_THEAP] &&
	    !c->mpi && !c->mpi_req)
		return;
	printf("%s: %llu TRACE, %llu FILE", name,
	       c->type[EXP_REC_TRACE] + c->type[EXP_REC_TRACE_FREE] +
	       c->type[EXP_REC_TCALL] + c->type[EXP_REC_THEAP],
	       c->type[EXP_REC_TRACE_FILE]);
	if (c->type[EXP_REC_TRACE_UNTRACED])
		printf(", %llu UNTRACED", c->type[EXP_REC_TRACE_UNTRACED]);
	if (c->type[EXP_REC_TSTACK])
		printf(", %llu STACK", c->type[EXP_REC_TSTACK]);
	if (c->mpi || c->mpi_req)
		printf(", %llu MPI, %llu MPI_REQ", c->mpi, c->mpi_req);
	printf("\n");
}

/* Dump one .rec file; 0, or 1 when it is damaged. */
static int dump_file(const char *name, struct counts *tot)
{
	struct counts c = { 0 };
	const struct lwprof_rec *r;
	struct exp_reader f;
	size_t i;
	int ret;

	ret = exp_reader_open(&f, AT_FDCWD, name, dump_warn, NULL);
	if (ret) {
		fprintf(stderr, DUMP ": %s\n", f.msg);
		exp_reader_close(&f);
		return 1;
	}
	printf("== %s: format %u.%u, cpu %u, abi %u.%u ==\n", name,
	       f.hdr.major, f.hdr.minor, f.hdr.cpu, f.hdr.abi_major,
	       f.hdr.abi_minor);
	while ((ret = exp_reader_next(&f, &r)) > 0) {
		printf("%s+%llu: ", name, (unsigned long long)f.off);
		if (r->type == EXP_REC_GSAMPLE &&
		    f.hdr.minor >= EXP_MINOR_GSAMPLE) {
			/* the recorder's, not the module's records */
			dump_gsample((const void *)r);
			c.gs++;
			continue;
		}
		c.rec++;
		switch (r->type) {
		case LWPROF_REC_SAMPLE:
			dump_sample((const void *)r, &f.regs, f.stored);
			break;
		case LWPROF_REC_TASK:
			dump_task((const void *)r);
			break;
		case LWPROF_REC_MMAP:
			dump_mmap((const void *)r);
			break;
		case EXP_REC_TRACE:
			dump_trace((const void *)r, &f.regs);
			break;
		case EXP_REC_TRACE_FILE:
			dump_trace_file((const void *)r);
			break;
		case EXP_REC_TRACE_FREE:
			dump_trace_free((const void *)r);
			break;
		case EXP_REC_TRACE_UNTRACED:
			if (f.hdr.minor < EXP_MINOR_UNTRACED)
				goto unknown;
			dump_untraced((const void *)r);
			break;
		case EXP_REC_TCALL:
			if (f.hdr.minor < EXP_MINOR_TCALL)
				goto unknown;	/* not this format's type */
			dump_tcall(r);
			break;
		case LWPROF_REC_STOP:
			if (f.hdr.minor < EXP_MINOR_STOP)
				goto unknown;	/* not this format's type */
			dump_stop((const void *)r);
			break;
		case EXP_REC_TZ:
			if (f.hdr.minor < EXP_MINOR_THEAP)
				goto unknown;
			dump_tz((const void *)r, &c);
			break;
		case EXP_REC_TSTACK:
			if (f.hdr.minor < EXP_MINOR_THEAP)
				goto unknown;
			dump_tstack_rec((const void *)r);
			break;
		case EXP_REC_THEAP:
			if (f.hdr.minor < EXP_MINOR_THEAP)
				goto unknown;
			dump_theap((const void *)r);
			break;
		case EXP_REC_JMETHOD:
		case EXP_REC_JCODE:
		case EXP_REC_JUNLOAD:
		case EXP_REC_JSTACK:
		case EXP_REC_JTHREAD:
			if (f.hdr.minor < EXP_MINOR_JAVA)
				goto unknown;	/* not this format's type */
			dump_java(r);
			break;
		case EXP_REC_OMP_RUNTIME:
		case EXP_REC_OMP_STACK:
		case EXP_REC_OMP_EVENT:
			if (f.hdr.minor < EXP_MINOR_OMP)
				goto unknown;	/* not this format's type */
			dump_omp(r);
			break;
		case EXP_REC_OMP_FOLD:
			if (f.hdr.minor < EXP_MINOR_OMP_FOLD)
				goto unknown;	/* not this format's type */
			dump_omp(r);
			break;
		case EXP_REC_MPI:
			if (f.hdr.minor < EXP_MINOR_MPI)
				goto unknown;	/* not this format's type */
			dump_mpi((const void *)r);
			c.mpi++;
			continue;
		case EXP_REC_MPI_REQ:
			if (f.hdr.minor < EXP_MINOR_MPI)
				goto unknown;	/* not this format's type */
			dump_mpi_req((const void *)r);
			c.mpi_req++;
			continue;
		case LWPROF_REC_LOST: {
			const struct lwprof_rec_lost *l = (const void *)r;

			printf("LOST ");
			put_time(l->time_ns);
			printf(" cpu=%u lost=%llu\n", l->cpu,
			       (unsigned long long)l->lost);
			c.lost += l->lost;
			break;
		}
		default:
unknown:
			printf("type=%u size=%u (unknown type, skipped)\n",
			       r->type, r->size);
			c.other++;
			continue;
		}
		c.type[r->type]++;
	}
	printf("%s: %llu records: %llu SAMPLE, %llu TASK, %llu MMAP, %llu LOST (%llu lost), %llu other",
	       name, c.rec, c.type[LWPROF_REC_SAMPLE], c.type[LWPROF_REC_TASK],
	       c.type[LWPROF_REC_MMAP], c.type[LWPROF_REC_LOST], c.lost,
	       c.other);
	if (c.gs)
		printf(", %llu PACKET", c.gs);
	printf("%s\n", ret < 0 ? "; DAMAGED" : "");
	put_trace_counts(name, &c);
	put_java_counts(name, &c);
	put_omp_counts(name, &c);
	if (ret < 0)
		fprintf(stderr, DUMP ": %s\n", f.msg);
	exp_reader_close(&f);
	tot->rec += c.rec;
	tot->other += c.other;
	tot->lost += c.lost;
	tot->gs += c.gs;
	tot->mpi += c.mpi;
	tot->mpi_req += c.mpi_req;
	for (i = 0; i < sizeof(c.type) / sizeof(c.type[0]); i++)
		tot->type[i] += c.type[i];
	return ret < 0;
}

/* Print a text file of the experiment as it is; 1 if it is missing. */
static int cat(int dirfd, const char *name, int required)
{
	char buf[8192];
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		if (required || errno != ENOENT)
			fprintf(stderr, DUMP ": %s/%s: %s\n", exp_path, name,
				strerror(errno));
		return required || errno != ENOENT;
	}
	printf("== %s ==\n", name);
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
	return 0;
}

/* Where an unfinished recording's file ends. */
static void cut_at(const char *name)
{
	struct stat st;

	if (!stat(name, &st))
		fprintf(stderr, DUMP ": %s: offset %lld: the recording was cut here\n",
			name, (long long)st.st_size);
}

/* cpu.N.rec by N, then trace.PID[.G].rec by PID and G, then java.PID.rec */
static int file_cmp(const void *a, const void *b)
{
	const struct exp_file *const *p = a, *const *q = b;
	unsigned int x[3] = { 0 }, y[3] = { 0 }, i;

	x[0] = ((*p)->id >= EXP_FILE_TRACE) + ((*p)->id >= EXP_FILE_JAVA);
	y[0] = ((*q)->id >= EXP_FILE_TRACE) + ((*q)->id >= EXP_FILE_JAVA);
	sscanf(strchr((*p)->name, '.') + 1, "%u.%u", &x[1], &x[2]);
	sscanf(strchr((*q)->name, '.') + 1, "%u.%u", &y[1], &y[2]);
	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* What libexp found damaged in the text files: said, and the exit status 1. */
static void text_damage(void *arg, const char *msg)
{
	fprintf(stderr, DUMP ": %s\n", msg);
	*(int *)arg = 1;
}

static int dump_dir(const char *path)
{
	const struct exp_file *files, **order;
	const struct exp_info *log;
	struct counts tot = { 0 };
	int dirfd, bad = 0, finished, err;
	struct exp *x;
	size_t n, i;

	err = exp_open(&x, path, EXP_OPEN_DAMAGED, text_damage, &bad);
	if (err) {
		fprintf(stderr, DUMP ": %s\n", x ? exp_msg(x) : "out of memory");
		exp_close(x);
		return 1;
	}
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		fprintf(stderr, DUMP ": %s: %s\n", path, strerror(errno));
		exp_close(x);
		return 1;
	}
	exp_path = path;
	log = exp_info(x);
	/* without a log (said) it is not known: as if finished */
	finished = log->end_ns || faccessat(dirfd, EXP_LOG, F_OK, 0);
	if (!finished) {
		fprintf(stderr, DUMP ": %s/" EXP_LOG ": the recording did not finish (no end_ns): the records end at the recorder's last flush\n",
			exp_path);
		bad = 1;
	}
	bad |= cat(dirfd, EXP_LOG, 0);
	exp_files(x, &files, &n);
	if (!n) {
		fprintf(stderr, DUMP ": %s: no cpu.N.rec or trace.PID.rec files\n",
			path);
		bad = 1;
	}
	order = calloc(n + 1, sizeof(*order));
	for (i = 0; order && i < n; i++)
		order[i] = &files[i];
	if (order && n)
		qsort(order, n, sizeof(*order), file_cmp);
	for (i = 0; order && i < n; i++) {
		bad |= dump_file(order[i]->path, &tot);
		if (!finished)
			cut_at(order[i]->path);
	}
	if (!order) {
		fprintf(stderr, DUMP ": out of memory\n");
		bad = 1;
	}
	free(order);
	if (exp_has_samples(x)) {
		bad |= dump_file(exp_file_path(x, EXP_FILE_SAMPLES), &tot);
		if (!finished)
			cut_at(exp_file_path(x, EXP_FILE_SAMPLES));
	}
	bad |= cat(dirfd, EXP_USAGE, finished && exp_usage_expected(log));
	bad |= cat(dirfd, EXP_INDEX, 0);
	printf("total: %llu records: %llu SAMPLE, %llu TASK, %llu MMAP, %llu LOST (%llu lost), %llu other",
	       tot.rec, tot.type[LWPROF_REC_SAMPLE], tot.type[LWPROF_REC_TASK],
	       tot.type[LWPROF_REC_MMAP], tot.type[LWPROF_REC_LOST], tot.lost,
	       tot.other);
	if (tot.gs)
		printf(", %llu PACKET", tot.gs);
	printf("\n");
	put_trace_counts("total", &tot);
	put_java_counts("total", &tot);
	put_omp_counts("total", &tot);
	close(dirfd);
	exp_close(x);
	return bad;
}

static int rank_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * collect -M's founder (docs/guide/mpi.md): its mpi.txt, then each rank's
 * experiment, M_rN.er, in rank order.
 */
static int dump_founder(const char *path)
{
	char sub[PATH_MAX + 32], name[32];
	int dirfd, bad, *ranks = NULL, r;
	size_t n = 0, cap = 0, i;
	struct dirent *d;
	DIR *dp;

	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dp = dirfd < 0 ? NULL : fdopendir(dirfd);
	if (!dp) {
		fprintf(stderr, DUMP ": %s: %s\n", path, strerror(errno));
		if (dirfd >= 0)
			close(dirfd);
		return 1;
	}
	exp_path = path;
	bad = cat(dirfd, "mpi.txt", 1);
	while ((d = readdir(dp))) {
		if (sscanf(d->d_name, "M_r%d.er", &r) != 1 || r < 0)
			continue;
		snprintf(name, sizeof(name), "M_r%d.er", r);
		if (strcmp(name, d->d_name))
			continue;
		if (n == cap) {
			int *v = realloc(ranks, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!v)
				break;
			ranks = v;
		}
		ranks[n++] = r;
	}
	closedir(dp);
	if (ranks)
		qsort(ranks, n, sizeof(*ranks), rank_cmp);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/M_r%d.er", path, ranks[i]);
		printf("==== rank %d: %s ====\n", ranks[i], sub);
		bad |= dump_dir(sub);
	}
	free(ranks);
	return bad;
}

/* Is path an MPI run's founder: mpi.txt and no log of its own? */
static bool founder(const char *path)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/mpi.txt", path);
	if (access(p, F_OK))
		return false;
	snprintf(p, sizeof(p), "%s/" EXP_LOG, path);
	return access(p, F_OK) != 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lwprof dump [-s] EXPERIMENT.er | FILE.rec...\n"
		"  -s      add each sample's copied user stack, in hexadecimal\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "+:sh";
	struct counts tot = { 0 };
	struct stat st;
	int c, i, bad = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			show_stack = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return exp_option_error(DUMP, argv, c, shortopts, lopts);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, DUMP ": %s: %s\n", argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode) && founder(argv[i])) {
			bad |= dump_founder(argv[i]);
		} else if (S_ISDIR(st.st_mode)) {
			bad |= dump_dir(argv[i]);
		} else {
			bad |= dump_file(argv[i], &tot);
		}
	}
	fflush(stdout);
	return bad;
}
