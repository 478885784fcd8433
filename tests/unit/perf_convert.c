// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend's converter (userspace/backend/perf/: conv.c, thr.c,
 * rec.c, delta.c, out.c) on perf rings this test writes
 * itself, with no kernel: so it knows the truth of every record.  Three
 * threads of a simulated process run, are preempted, block, migrate
 * between two CPUs and exit, with clock samples and context-switch
 * samples whose stack copies change a little (near sp), a lot (a whole
 * rewrite), or move (sp jumps out of the base window), wake-ups
 * (sched:sched_wakeup) of blocked threads, and of others, and, for half
 * the switches, the scheduler's own switch (sched:sched_switch) a few
 * microseconds before perf's switch records; the records are
 * converted in passes, some wrap around the end of perf's ring, and the
 * converted records are read back as the analyzer reads them:
 *  - every stack copy, full or delta, rebuilt from its base (the
 *    previous SBASE record of the thread in the same file, at base_time)
 *    equals the bytes perf copied, at the same sp; and every sample and
 *    switch-out packet that should go out did, once;
 *  - every nanosecond from each thread's fork to its exit in exactly one
 *    microstate: on CPU (User + System) = switch-in to switch-out (the
 *    scheduler's switch where there is one, else perf's records), Wait
 *    CPU = fork to first run, every preemption and every wake-up to the
 *    switch-in, Sleep = every block to its wake-up (or switch-in);
 *  - records younger than the hold stay in perf's ring (its data_tail at
 *    the first of them) until the last pass;
 *  - with our rings left full (records dropped, a LOST record in their
 *    place), every delta still finds its base: a copy that never reached
 *    its file is no base;
 *  - every sample goes out as a compact sample, whose stack pointer
 *    (kept) places its copy where perf's was.
 */
#include <stdint.h>
#include <unistd.h>

#include "test.h"
#include "userspace/backend/perf/perf.h"
#include "libexp/sample.h"
#include "libexp/stack.h"

#define NCPU	2
#define PRING	(32 * 1024)	/* perf's data bytes per CPU */
#define ORING	(32 * 1024)	/* ours */
#define STACK	1024		/* -S */
#define MEM	8192		/* a thread's stack memory, below TOP */
#define TOP	0x7fff00000000ULL
#define NTHR	3
#define MAXS	8192		/* samples remembered */
#define ID_CLOCK	11
#define ID_SWITCH	12
#define ID_WAKE		13
#define WAKE_PID	24	/* the woken pid in sched_wakeup's raw data */
#define ID_SCHED	14
#define SW_PREV		24	/* sched_switch's prev_pid, next_pid */
#define SW_NEXT		56
#define PID	4000

struct thr {
	__u32 tid;
	int cpu;		/* running there, or -1 */
	bool alive;
	unsigned char mem[MEM];	/* [TOP - MEM, TOP) */
	unsigned char old[MEM];	/* mem two samples ago */
	unsigned char prev[MEM];	/* ... and one */
	__u64 sp;
	__u64 born, gone, last;	/* fork, exit, last state change */
	__u64 sampled;		/* its last sample */
	__u64 on_ns, wait_ns, sleep_ns;
	bool preempted;
	bool woken;		/* blocked, and woken since */
	int parked;		/* truth[] of its switch-out sample, or -1 */
};

/* A stack copy perf made: what the converted record must rebuild to. */
struct truth {
	__u32 tid;
	__u64 time;		/* of the packet (switch-out: the switch-in) */
	__u64 sp;
	__u32 dyn;
	bool out;		/* expected in the output */
	bool seen;
	unsigned char b[STACK];
};

struct file {
	unsigned char *b;
	size_t n, cap;
};

static struct perf_event_mmap_page *mp[NCPU];
static struct truth truth[MAXS];
static unsigned int nr_truth, wrapped;
static struct thr thr[NTHR];
static struct file out[NCPU];
static __u64 now_t;
static unsigned int seed = 12345;

static unsigned int rnd(unsigned int n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

static void emit(int cpu, const void *rec, __u32 len)
{
	unsigned char *data = (unsigned char *)mp[cpu] + mp[cpu]->data_offset;
	__u64 head = mp[cpu]->data_head, off = head % PRING;

	if (head + len - mp[cpu]->data_tail > PRING) {
		printf("FAIL: the test overfilled perf ring %d\n", cpu);
		exit(1);
	}
	if (off + len <= PRING) {
		memcpy(data + off, rec, len);
	} else {
		memcpy(data + off, rec, PRING - off);
		memcpy(data, (const unsigned char *)rec + PRING - off,
		       len - (PRING - off));
		wrapped++;
	}
	__atomic_store_n(&mp[cpu]->data_head, head + len, __ATOMIC_RELEASE);
}

static void put_switch(int cpu, const struct thr *t, __u16 misc)
{
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		__u64 time;
		__u32 cpu, res;
		__u64 id;
	} r = { { PERF_RECORD_SWITCH, misc, sizeof(r) }, PID, t->tid, now_t,
		cpu, 0, ID_CLOCK };

	emit(cpu, &r, sizeof(r));
}

static void put_task(int cpu, const struct thr *t, __u32 type)
{
	struct {
		struct perf_event_header h;
		__u32 pid, ppid, tid, ptid;
		__u64 time;
		__u32 spid, stid;
		__u64 stime;
		__u32 cpu, res;
		__u64 id;
	} r = { { type, 0, sizeof(r) }, PID, 1, t->tid, PID, now_t, PID,
		t->tid, now_t, cpu, 0, ID_CLOCK };

	emit(cpu, &r, sizeof(r));
}

/* A tracepoint's sample on CPU cpu at time t: n bytes of raw data. */
static void put_tp(int cpu, __u64 id, __u32 pid, __u64 t, const void *raw,
		   __u32 n)
{
	struct {
		struct perf_event_header h;
		__u64 id, ip;
		__u32 pid, tid;
		__u64 time;
		__u32 cpu, res;
		__u64 period;
		__u32 size;
		unsigned char raw[68];
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 },
		id, 0xffffffff81002000ULL, pid, pid, t, cpu, 0, 1, n, { 0 } };

	memcpy(r.raw, raw, n);
	r.h.size = offsetof(typeof(r), raw) + n;	/* 36, 68: 8-aligned */
	emit(cpu, &r, r.h.size);
}

/* A sched_wakeup of tid on CPU cpu (by whichever task). */
static void put_wake(int cpu, __u32 tid)
{
	unsigned char raw[36] = { 0 };	/* common, comm, pid, prio, cpu */

	memcpy(raw + WAKE_PID, &tid, 4);
	put_tp(cpu, ID_WAKE, 1, now_t, raw, sizeof(raw));
}

/* A sched_switch on CPU cpu at time t from prev to next. */
static void put_sched_switch(int cpu, __u32 prev, __u32 next, __u64 t)
{
	unsigned char raw[68] = { 0 };	/* common, comms, pids, prios, state */

	memcpy(raw + SW_PREV, &prev, 4);
	memcpy(raw + SW_NEXT, &next, 4);
	put_tp(cpu, ID_SCHED, prev, t, raw, sizeof(raw));
}

/*
 * Half the time, how long before now the scheduler switched: after the
 * thread's last state change and its last sample.
 */
static __u64 sched_lead(const struct thr *t)
{
	__u64 after = t->last > t->sampled ? t->last : t->sampled;
	__u64 room = now_t - after - 1;

	if (rnd(2))
		return 0;
	return 1 + rnd(room < 20000 ? room : 20000);
}

/* The stack changes between two samples: a little, a lot, or it moves. */
static void mutate(struct thr *t)
{
	unsigned int i, n, k = rnd(100);
	__u64 v, lo;

	if (k < 8) {		/* a jump, most likely out of the window */
		t->sp = TOP - STACK - 8 * rnd((MEM - STACK) / 8 + 1);
	} else if (k < 40) {	/* a call or a return */
		t->sp += rnd(2) ? 8 * rnd(32) : -8ULL * rnd(32);
		if (t->sp < TOP - MEM)
			t->sp = TOP - MEM;
		if (t->sp > TOP - STACK)
			t->sp = TOP - STACK;
	}
	/* A frame as it was two samples ago (a call made again). */
	if (rnd(4) == 0) {
		lo = (t->sp - (TOP - MEM) + 64 * rnd(STACK / 64)) & ~63ULL;
		memcpy(t->mem + lo, t->old + lo, 64);
	}
	memcpy(t->old, t->prev, MEM);
	memcpy(t->prev, t->mem, MEM);
	n = k < 50 ? 3 : k < 55 ? 40 : 1;	/* 40 words: a rewrite */
	for (i = 0; i < n; i++) {
		lo = k < 55 ? t->sp + 8 * rnd(STACK / 8) :	/* anywhere */
		     t->sp + 8 * rnd(16);			/* its frame */
		v = ((__u64)rnd(1 << 30) << 30) | rnd(1 << 30);
		memcpy(t->mem + (lo - (TOP - MEM)), &v, 8);
	}
}

/* A sample of t on its CPU (a switch-out sample with id ID_SWITCH). */
static int put_sample(struct thr *t, __u64 id)
{
	static __u64 w[64 + STACK / 8];
	__u64 *q = w + 1, ip = 0x400000 + rnd(4096), chain_k[] = {
		(__u64)PERF_CONTEXT_KERNEL, 0xffffffff81001000ULL,
		(__u64)PERF_CONTEXT_USER, ip, 0x400100 };
	struct perf_event_header *h = (void *)w;
	struct truth *tr = &truth[nr_truth];
	bool kernel = id == ID_SWITCH;
	unsigned int i, nch = kernel ? 5 : 3;
	__u32 dyn = rnd(10) ? STACK : STACK - 8 * rnd(60);

	t->sampled = now_t;
	if (nr_truth == MAXS) {
		printf("FAIL: more samples than the test remembers\n");
		exit(1);
	}
	mutate(t);
	*q++ = id;
	*q++ = ip;
	*q++ = PID | (__u64)t->tid << 32;
	*q++ = now_t;
	*q++ = t->cpu;
	*q++ = 1000000;
	*q++ = nch;
	memcpy(q, kernel ? chain_k : chain_k + 2, 8 * nch);
	q += nch;
	*q++ = PERF_SAMPLE_REGS_ABI_64;
	for (i = 0; i < PERF_NR_UREGS; i++)	/* perf's order: SP 7, IP 8 */
		*q++ = i == 7 ? t->sp : i == 8 ? ip : 1000 + i;
	*q++ = STACK;
	memset(q, 0, STACK);
	memcpy(q, t->mem + (t->sp - (TOP - MEM)), dyn);
	q += STACK / 8;
	*q++ = dyn;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	h->size = 8 * (q - w);
	emit(t->cpu, w, h->size);
	*tr = (struct truth){ t->tid, now_t, t->sp, dyn, !kernel, false, {0} };
	memcpy(tr->b, t->mem + (t->sp - (TOP - MEM)), dyn);
	return nr_truth++;
}

static void fork_thr(struct thr *t, __u32 tid)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->alive = true;
	t->cpu = -1;
	t->parked = -1;
	t->sp = TOP - STACK - 512;
	t->born = t->last = now_t;
	t->preempted = true;	/* a new thread waits for a CPU */
	put_task(rnd(NCPU), t, PERF_RECORD_FORK);
}

/* One step of thread t: sample, leave the CPU, come back (or exit). */
static void step(struct thr *t, bool may_exit)
{
	unsigned int k = rnd(100);

	/*
	 * A wake-up of a thread not blocked, or not ours: passed over (a
	 * little before this step: not at the instant it blocks).
	 */
	if (rnd(8) == 0) {
		now_t -= 500;
		put_wake(rnd(NCPU), t->cpu >= 0 || t->preempted || t->woken ?
			 t->tid : 77);
		now_t += 500;
	}
	if (t->cpu < 0 && !t->preempted && !t->woken && rnd(2)) {
		t->sleep_ns += now_t - t->last;	/* woken: it waits */
		t->last = now_t;
		t->woken = true;
		put_wake(rnd(NCPU), t->tid);
	} else if (t->cpu < 0) {		/* back on a CPU */
		__u64 in = now_t - sched_lead(t);

		t->cpu = rnd(NCPU);
		if (in != now_t)	/* on CPU from the scheduler's switch */
			put_sched_switch(t->cpu, 77, t->tid, in);
		*(t->preempted || t->woken ? &t->wait_ns : &t->sleep_ns) +=
			in - t->last;
		t->woken = false;
		if (t->parked >= 0 && in > t->last) {
			truth[t->parked].time = in;
			truth[t->parked].out = true;
		}
		t->parked = -1;
		t->last = in;
		put_switch(t->cpu, t, 0);
	} else if (k < 65 && !may_exit) {
		put_sample(t, ID_CLOCK);
	} else if (!may_exit) {			/* off: preempted or blocked */
		__u64 out = now_t - sched_lead(t);

		if (out != now_t)	/* off CPU from the scheduler's switch */
			put_sched_switch(t->cpu, t->tid, 77, out);
		t->on_ns += out - t->last;
		t->last = out;
		t->preempted = rnd(2);
		t->parked = put_sample(t, ID_SWITCH);
		put_switch(t->cpu, t, PERF_RECORD_MISC_SWITCH_OUT |
			   (t->preempted ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0));
		t->cpu = -1;
	} else {
		t->on_ns += now_t - t->last;
		t->gone = now_t;
		t->alive = false;
		put_task(t->cpu, t, PERF_RECORD_EXIT);
	}
}

/* Thread t exits (back on a CPU first). */
static void end_thr(struct thr *t)
{
	while (t->alive) {
		now_t += 1000 + rnd(300000);
		step(t, true);
	}
}

/* What the drain does: our rings' records into their files. */
static void drain(struct psrc *p)
{
	unsigned int i;

	for (i = 0; i < NCPU; i++) {
		struct pout *r = &p->cpu[i].out;
		__u64 n = r->head - r->tail, off = r->tail & (r->size - 1);
		struct file *f = &out[i];

		if (f->n + n > f->cap) {
			f->cap = 2 * (f->n + n);
			f->b = realloc(f->b, f->cap);
			if (!f->b)
				t_fatal("realloc");
		}
		if (off + n <= r->size) {
			memcpy(f->b + f->n, r->data + off, n);
		} else {
			memcpy(f->b + f->n, r->data + off, r->size - off);
			memcpy(f->b + f->n + r->size - off, r->data,
			       n - (r->size - off));
		}
		f->n += n;
		__atomic_store_n(&r->tail, r->head, __ATOMIC_RELEASE);
	}
}

/*
 * passes passes of 1-12 steps of random threads, each drained (starve:
 * 20 of every 50, the rest left to fill our rings).
 */
static void run(struct pconv *c, struct psrc *p, unsigned int passes,
		bool starve)
{
	unsigned int pass, n;

	for (pass = 0; pass < passes; pass++) {
		for (n = 1 + rnd(12); n; n--) {
			now_t += 1000 + rnd(300000);
			step(&thr[rnd(NTHR)], false);
		}
		pconv_pass(c, false, 0);
		if (!starve || pass % 50 < 20)
			drain(p);
	}
}

static struct truth *find(__u32 tid, __u64 time)
{
	unsigned int i;

	for (i = 0; i < nr_truth; i++)
		if (truth[i].tid == tid && truth[i].time == time &&
		    truth[i].out && !truth[i].seen)
			return &truth[i];
	return NULL;
}

/* Is there a sample of tid at time in the files? */
static bool in_files(__u32 tid, __u64 time)
{
	unsigned int i;
	size_t off;

	for (i = 0; i < NCPU; i++) {
		for (off = 0; off + 8 <= out[i].n;) {
			const struct lwprof_rec_sample *r = (void *)(out[i].b + off);

			off += r->hdr.size;
			/* a compact sample has tid and time_ns where a sample has */
			if ((r->hdr.type == LWPROF_REC_SAMPLE ||
			     r->hdr.type == EXP_REC_CSAMPLE) && r->tid == tid &&
			    r->time_ns == time)
				return true;
		}
	}
	return false;
}

struct tally {
	unsigned int copies, deltas, wrong, unbased, unknown, lost_recs;
	unsigned int samples, compact;
	__u64 ms[PID + 64][LWPROF_MS_COUNT];
};

/* Read the files as the analyzer does; check every copy against truth. */
static void check_files(struct tally *y)
{
	static unsigned char full[STACK];
	static __u64 whole[(sizeof(struct lwprof_rec_sample) + 8 * LWPROF_NR_REGS +
			    16 * 300 + STACK + 8) / 8];
	struct base {
		bool ok;
		__u64 time, sp;
		__u32 size;
		unsigned char b[STACK];
	} *base = calloc(PID + 64, sizeof(*base));
	unsigned int i, j;
	size_t off;

	for (i = 0; i < NCPU; i++) {
		memset(base, 0, (PID + 64) * sizeof(*base));
		for (off = 0; off + 8 <= out[i].n;) {
			const struct lwprof_rec *h = (void *)(out[i].b + off);
			const struct lwprof_rec_sample *r = (void *)h;
			const unsigned char *st;
			struct base *b;
			struct sdelta d;
			struct truth *tr;
			__u32 size, at;
			__u64 sp;

			off += h->size;
			if (h->type == LWPROF_REC_LOST)
				y->lost_recs++;
			if (h->type == EXP_REC_CSAMPLE) {
				const struct exp_rec_csample *c = (const void *)h;

				/* as the reader hands it out */
				if (exp_csample_full(c, LWPROF_NR_REGS) > sizeof(whole) ||
				    exp_csample_known(c) != h->size) {
					y->wrong++;
					continue;
				}
				exp_csample_expand((void *)whole, c, LWPROF_NR_REGS);
				r = (const void *)whole;
				y->compact++;
			}
			if (r->hdr.type == LWPROF_REC_SAMPLE)
				y->samples++;
			if (r->hdr.type != LWPROF_REC_SAMPLE || r->tid < PID ||
			    r->tid >= PID + 64)
				continue;
			if (r->kind == LWPROF_SK_CLOCK)
				for (j = 0; j < LWPROF_MS_COUNT; j++)
					y->ms[r->tid][j] += r->mstate_ns[j];
			if (!r->stack_size)
				continue;
			b = &base[r->tid];
			sp = exp_sample_regs(r)[LWPROF_REG_SP];
			st = exp_sample_stack(r, LWPROF_NR_REGS);
			size = r->stack_size;
			if (r->hdr.flags & LWPROF_RS_SDELTA) {
				y->deltas++;
				if (sdelta_parse(st, r->stack_size, &d, &at) ||
				    !b->ok || b->time != d.base_time_ns ||
				    !sdelta_apply(&d, b->b, b->sp, b->size, full)) {
					y->unbased++;
					b->ok = false;
					continue;
				}
				size = d.size;
				st = full;
			}
			tr = find(r->tid, r->time_ns);
			if (!tr) {
				y->unknown++;
			} else {
				tr->seen = true;
				y->copies++;
				if (tr->sp != sp || tr->dyn != size ||
				    memcmp(tr->b, st, size))
					y->wrong++;
			}
			if (r->hdr.flags & LWPROF_RS_SBASE) {
				*b = (struct base){ true, r->time_ns, sp, size,
						    {0} };
				memcpy(b->b, st, size);
			}
		}
	}
	free(base);
}

int main(void)
{
	struct rec_opts o = { .mode = MODE_COMMAND, .clock_ns = 1000000,
				  .stack_bytes = STACK, .depth = 64 };
	struct pev_id ids[] = { { ID_CLOCK, ROLE_CLOCK, 0 },
				{ ID_SWITCH, ROLE_SWITCH, 0 },
				{ ID_WAKE, ROLE_WAKEUP, 0 },
				{ ID_SCHED, ROLE_SCHED_SWITCH, 0 } };
	struct psrc *p = calloc(1, sizeof(*p));
	struct tally *y = calloc(1, sizeof(*y));
	unsigned int i, expect = 0, held_pos;
	struct pconv *c;
	__u64 t0, end, lost = 0;

	if (!p || !y)
		t_fatal("calloc");
	p->o = &o;
	p->nr_cpus = NCPU;
	p->cpu = calloc(NCPU, sizeof(*p->cpu));
	p->stack_bytes = STACK;
	p->depth = 64;
	p->kernel = p->switch_stacks = true;
	p->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	p->ids = ids;
	p->nr_ids = 4;
	p->wake = true;
	p->wake_pid_off = WAKE_PID;
	p->sched_switch = true;
	p->sw_prev_off = SW_PREV;
	p->sw_next_off = SW_NEXT;
	for (i = 0; i < NCPU; i++) {
		mp[i] = aligned_alloc(4096, 4096 + PRING);
		if (!mp[i] || pout_init(&p->cpu[i].out, ORING))
			t_fatal("memory");
		memset(mp[i], 0, 4096);
		mp[i]->data_offset = 4096;
		mp[i]->data_size = PRING;
		p->cpu[i].mp = mp[i];
		p->cpu[i].fd = -1;
		p->cpu[i].out.kick_fd = -1;
	}
	/* Everything 100 s ago, well before the hold; in 1-300 us steps. */
	t0 = now_t = perf_now_ns() - 100000000000ULL;
	p->start_ns = t0;
	if (pconv_create(p, &c))
		t_fatal("pconv_create");
	for (i = 0; i < NTHR; i++)
		fork_thr(&thr[i], PID + i);
	/* Phase 1: 300 passes, all drained; the threads live on. */
	run(c, p, 300, false);
	/* A record in the future stays in perf's ring, and what follows. */
	for (i = 0; i < NTHR && thr[i].cpu < 0; i++)
		;
	if (i == NTHR) {
		now_t += 1000;
		step(&thr[0], false);	/* thread 0 back on a CPU */
		i = 0;
	}
	held_pos = mp[thr[i].cpu]->data_head;
	now_t = perf_now_ns() + 5000000000ULL;
	put_sample(&thr[i], ID_CLOCK);
	pconv_pass(c, false, 0);
	drain(p);
	t_check(mp[thr[i].cpu]->data_tail == held_pos,
		"a sample 5 s ahead stays in perf's ring: data_tail %llu, the sample at %u",
		(unsigned long long)mp[thr[i].cpu]->data_tail, held_pos);
	t_check(!in_files(thr[i].tid, now_t), "... and is not converted");
	/* Every thread exits; then the last pass. */
	for (i = 0; i < NTHR; i++)
		end_thr(&thr[i]);
	end = now_t + 1000;
	pconv_pass(c, true, end);
	drain(p);
	t_check(mp[0]->data_tail == mp[0]->data_head &&
		mp[1]->data_tail == mp[1]->data_head,
		"the last pass frees perf's rings");
	check_files(y);
	for (i = 0; i < nr_truth; i++)
		expect += truth[i].out;
	printf("# %u stack copies made, %u expected out, %u read back (%u deltas); %u records wrapped in perf's rings\n",
	       nr_truth, expect, y->copies, y->deltas, wrapped);
	t_check(!y->wrong && !y->unbased && !y->unknown,
		"every copy rebuilt equals perf's (wrong %u, base missing %u, unknown %u)",
		y->wrong, y->unbased, y->unknown);
	t_check(y->copies == expect, "every sample and switch-out packet went out once (%u of %u)",
		y->copies, expect);
	t_check(y->deltas > expect / 2, "most copies are deltas (%u of %u)",
		y->deltas, y->copies);
	t_check(y->samples && y->compact == y->samples,
		"every sample went out compact (%u of %u)", y->compact, y->samples);
	t_check(wrapped > 0, "records wrapped around perf's ring end (%u)",
		wrapped);
	for (i = 0; i < NTHR; i++) {
		const __u64 *m = y->ms[thr[i].tid];
		__u64 sum = 0;
		unsigned int j;
		bool ok;

		for (j = 0; j < LWPROF_MS_COUNT; j++)
			sum += m[j];
		ok = sum == thr[i].gone - thr[i].born &&
		     m[LWPROF_MS_USER] + m[LWPROF_MS_SYSTEM] == thr[i].on_ns &&
		     m[LWPROF_MS_WAIT_CPU] == thr[i].wait_ns &&
		     m[LWPROF_MS_SLEEP] == thr[i].sleep_ns;
		t_check(ok, "thread %u: %llu ns of life = on CPU %llu + Wait CPU %llu + Sleep %llu (got %llu = %llu + %llu + %llu)",
			thr[i].tid, (unsigned long long)(thr[i].gone - thr[i].born),
			(unsigned long long)thr[i].on_ns,
			(unsigned long long)thr[i].wait_ns,
			(unsigned long long)thr[i].sleep_ns,
			(unsigned long long)sum,
			(unsigned long long)(m[LWPROF_MS_USER] + m[LWPROF_MS_SYSTEM]),
			(unsigned long long)m[LWPROF_MS_WAIT_CPU],
			(unsigned long long)m[LWPROF_MS_SLEEP]);
	}

	/* Phase 2: new threads, our rings left full for some passes. */
	pconv_destroy(c);
	for (i = 0; i < NCPU; i++) {
		pout_free(&p->cpu[i].out);
		if (pout_init(&p->cpu[i].out, ORING))
			t_fatal("memory");
		out[i].n = 0;
	}
	memset(y, 0, sizeof(*y));
	nr_truth = 0;
	now_t = perf_now_ns() - 100000000000ULL;
	p->start_ns = now_t;
	for (i = 0; i < NCPU; i++)	/* perf's rings as new too */
		mp[i]->data_head = mp[i]->data_tail = p->cpu[i].rd = 0;
	if (pconv_create(p, &c))
		t_fatal("pconv_create");
	for (i = 0; i < NTHR; i++)
		fork_thr(&thr[i], PID + 10 + i);
	run(c, p, 200, true);
	for (i = 0; i < NTHR; i++)
		end_thr(&thr[i]);
	pconv_pass(c, true, now_t + 1000);
	drain(p);
	check_files(y);
	for (i = 0; i < NCPU; i++)
		lost += p->cpu[i].out.lost;
	printf("# full rings: %llu records dropped, %u LOST records, %u copies read back (%u deltas)\n",
	       (unsigned long long)lost, y->lost_recs, y->copies, y->deltas);
	t_check(lost > 0 && y->lost_recs > 0,
		"records were dropped with our rings full (%llu), LOST records in their place (%u)",
		(unsigned long long)lost, y->lost_recs);
	t_check(!y->wrong && !y->unbased && !y->unknown && y->deltas > 0,
		"with drops, every delta finds its base and rebuilds exactly (wrong %u, base missing %u, unknown %u, deltas %u)",
		y->wrong, y->unbased, y->unknown, y->deltas);
	pconv_destroy(c);
	return t_done();
}
