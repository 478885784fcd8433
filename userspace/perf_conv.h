/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf source's converter inside: perf_conv.c reads and orders perf's
 * records, perf_thr.c turns them into lwprof records and keeps each
 * thread's microstate clock, perf_rec.c builds lwprof sample records.
 */
#ifndef LWPROF_PERF_CONV_H
#define LWPROF_PERF_CONV_H

#include "source_perf.h"

/* The user registers perf copies: AX..IP (bits 0-8) and R8..R15 (16-23). */
#define PERF_UREGS_MASK	0xff01ffULL
#define PERF_NR_UREGS	17

/* A PERF_RECORD_SAMPLE of the source's sample_type, parsed. */
struct psample {
	__u16 misc;
	__u64 id, ip, time, period;
	__u32 pid, tid, cpu;
	__u64 nr;		/* callchain entries, context markers included */
	const __u64 *chain;
	__u64 abi;		/* PERF_SAMPLE_REGS_ABI_*; NONE: no regs */
	const __u64 *regs;	/* PERF_NR_UREGS, in perf's bit order */
	const unsigned char *stack;
	__u64 dyn;		/* bytes of stack[] that are the copy */
};

/* The sample_id_all trailer of the other records. */
struct ptrail {
	__u32 pid, tid, cpu;
	__u64 time, id;
};

/* A record not yet converted, where it lies in perf's ring (or wrap). */
struct pend {
	__u64 time, seq;
	__u64 pos;		/* its position in the CPU's ring */
	__u32 cpu;
	const unsigned char *rec;
};

/* One thread's clock: the time since its last packet, by microstate. */
struct pthr {
	struct pthr *next;
	__u32 pid, tid;
	__u64 last_ns;		/* accounted up to here */
	__u64 out_ns;		/* its switch-out sample's time, or 0 */
	__u64 acc[LWPROF_MS_COUNT];
	bool on;		/* on a CPU */
	bool lock_out;		/* the last switch-out was in a futex wait */
	bool parked_on;		/* parked holds the switch-out packet */
	__u8 off_ms;		/* the microstate off CPU */
	__u8 last_mode;		/* USER or SYSTEM: where the last sample was */
	char comm[16];
	/* The switch-out packet, waiting for its time (perf_thr.c): */
	unsigned char *parked;
	__u32 parked_cap;
	/*
	 * The last stack copy it sent, the base of its next delta
	 * (perf_delta.c): base_size bytes at base_sp, in a window of the
	 * stack from base_org; base_size 0: none.
	 */
	__u32 base_size, base_ring;
	unsigned char *base;
	__u64 base_org, base_sp, base_time;
	/* perf_thr.c's guard: traceable up to ok_ns, as of pass */
	__u64 ok_ns, exec_ns;
	unsigned int pass;
	__u8 deny;		/* LWPROF_STOP_*: found untraceable */
	bool stopped;		/* its STOP record is out: nothing more */
};

#define PTHR_BUCKETS	1024

struct pconv {
	struct psrc *p;
	struct pend *pend;
	size_t nr_pend, cap_pend;
	__u64 seq;
	struct pthr *bucket[PTHR_BUCKETS];
	unsigned char *scratch;	/* a sample being built */
	size_t scratch_len;	/* the largest sample */
	__u64 written;		/* records put into our rings */
	__u64 samples, switches, perf_lost, throttled;
	__u64 wakeups;		/* sched_wakeup ends of blocked states */
	unsigned int pass;	/* pconv_pass()es begun */
	bool guard;		/* the recorder is not root: perf_thr.c's guard */
};

int pconv_trailer(const struct perf_event_header *h, struct ptrail *t);
int pconv_sample(const struct psrc *p, const struct perf_event_header *h,
		 struct psample *s);

/* perf_thr.c */
void pconv_record(struct pconv *c, const struct perf_event_header *h,
		  __u32 ring);
void pthr_close_all(struct pconv *c, __u64 end_ns);
void pthr_free_all(struct pconv *c);

/*
 * perf_rec.c.  A sample record is begun where it will be built
 * (prec_begin(): in its ring, or c->scratch), given its fixed part,
 * registers and frames (prec_head(): kind, counter, value, the flags
 * beyond what s says; with kstack the kernel frames too; returns where
 * the stack copy goes), its stack copy (pdelta_stack()) and ended
 * (prec_end(): false if it was dropped, the ring full).
 */
struct lwprof_rec_sample *prec_begin(struct pconv *c, __u32 cpu);
unsigned char *prec_head(struct pconv *c, struct lwprof_rec_sample *r,
			 const struct psample *s, __u16 kind, __u16 counter,
			 __u64 value, __u16 flags);
bool prec_end(struct pconv *c, struct lwprof_rec_sample *r);
/* Did s's kernel chain pass through a futex wait? */
bool prec_futex(const struct psrc *p, const struct psample *s);
/* An executable mapping, for prec_mmap(). */
struct pmap {
	__u32 pid, tid, maj, min, prot;
	__u64 time, start, len, pgoff, ino;
	const char *path;	/* a file, "[vdso]", or anything else: anon */
	size_t path_len;
};

union prec_mmap_buf {
	struct lwprof_rec_mmap r;
	unsigned char b[sizeof(struct lwprof_rec_mmap) + 4096 + 8];
};

/* The MMAP record of m in *u ("//anon" for what is not a file); returns it. */
struct lwprof_rec_mmap *prec_mmap(union prec_mmap_buf *u, const struct pmap *m);
/* The ring of CPU cpu (clamped to the rings there are). */
__u32 prec_ring(const struct pconv *c, __u32 cpu);
/* Put rec into the ring of CPU cpu; false if it was dropped. */
bool prec_put(struct pconv *c, const void *rec, __u32 cpu, __u64 time_ns);

/*
 * perf_delta.c: s's stack copy at q, the end of r's frames, as a delta
 * against t's previous copy in the same ring where that is smaller, else
 * whole; r's size and flags follow, and the copy is t's next base.  If r
 * then does not reach its file, pdelta_lost(t): it is no base.
 */
void pdelta_stack(struct pconv *c, struct pthr *t, struct lwprof_rec_sample *r,
		  unsigned char *q, const struct psample *s);
void pdelta_lost(struct pthr *t);

#endif
