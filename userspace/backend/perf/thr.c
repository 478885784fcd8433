// SPDX-License-Identifier: GPL-2.0
/*
 * perf records, in time order, into lwprof records (perf.h), and each
 * thread's microstate clock, so that every nanosecond from the thread's
 * first record (its fork, the exec of the command, the start of an
 * attach) to its exit or the end of the recording lands in exactly one
 * packet, as with the module:
 *  - on CPU (from a switch-in to a switch-out): a clock sample takes the
 *    time since the thread's last packet, as User CPU or System CPU by the
 *    mode the sample landed in; what runs between the last sample and a
 *    switch-out goes to that last sample's mode;
 *  - off CPU (switch-out to switch-in): Wait CPU if perf said the thread
 *    was preempted (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: still runnable),
 *    else User Lock when the switch-out sample's kernel chain is in a
 *    futex system call, else Sleep.  The packet goes out at the switch-in
 *    with the stacks of the switch-out sample; without switch-out samples
 *    (no kernel sampling) the time waits for the thread's next packet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

static struct pthr **slot(struct pconv *c, __u32 tid)
{
	struct pthr **t = &c->bucket[tid % PTHR_BUCKETS];

	while (*t && (*t)->tid != tid)
		t = &(*t)->next;
	return t;
}

static struct pthr *find(struct pconv *c, __u32 tid)
{
	return *slot(c, tid);
}

/* A thread first seen at time ns: on CPU unless said otherwise. */
static struct pthr *add(struct pconv *c, __u32 pid, __u32 tid, __u64 ns,
			bool on)
{
	struct pthr **s = slot(c, tid), *t = *s;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->last_ns = ns;
	t->on = on;
	t->off_ms = LWPROF_MS_SLEEP;
	t->last_mode = LWPROF_MS_USER;
	*s = t;
	return t;
}

int pconv_thread(struct pconv *c, __u32 pid, __u32 tid, bool running,
		 const char comm[16])
{
	struct pthr *t = add(c, pid, tid, c->p->start_ns, running);

	if (!t)
		return -ENOMEM;
	memcpy(t->comm, comm, sizeof(t->comm));
	return 0;
}

static void pthr_free(struct pthr *t)
{
	free(t->parked);
	free(t->base);
	free(t);
}

/* Account [last_ns, ns) to the state the thread is in. */
static void advance(struct pthr *t, __u64 ns)
{
	if (ns <= t->last_ns)
		return;
	t->acc[t->on ? t->last_mode : t->off_ms] += ns - t->last_ns;
	t->last_ns = ns;
}

static __u64 take(struct pthr *t, struct lwprof_rec_sample *r)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		r->mstate_ns[i] = t->acc[i];
		sum += t->acc[i];
		t->acc[i] = 0;
	}
	return sum;
}

static bool pending(const struct pthr *t)
{
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (t->acc[i])
			return true;
	return false;
}

/* A stackless packet of what the thread has: charged where its last went. */
static void put_rest(struct pconv *c, struct pthr *t, __u32 cpu, __u64 ns)
{
	struct lwprof_rec_sample r;

	if (!pending(t) || !c->p->o->clock_ns)
		return;
	memset(&r, 0, sizeof(r));
	r.hdr.type = LWPROF_REC_SAMPLE;
	r.hdr.flags = LWPROF_RS_EXIT;
	r.hdr.size = sizeof(r);
	r.time_ns = ns;
	r.pid = t->pid;
	r.tid = t->tid;
	r.cpu = cpu;
	r.kind = LWPROF_SK_CLOCK;
	r.value = take(t, &r);
	prec_put(c, &r, cpu, ns);
}

/* The parked packet will not reach its file: its copy is no base. */
static void unpark(struct pthr *t)
{
	const struct lwprof_rec_sample *r = (void *)t->parked;

	t->parked_on = false;
	if (r->hdr.flags & LWPROF_RS_SBASE)
		pdelta_lost(t);
}

/*
 * The parked switch-out packet goes out with the time off CPU, if there
 * is one.  Its stack copy became t's base when it was parked (no other
 * sample of t goes out in between: pdelta_stack()), with this time.
 */
static void put_parked(struct pconv *c, struct pthr *t, __u64 ns)
{
	struct lwprof_rec_sample *r = (void *)t->parked;

	if (!t->parked_on)
		return;
	if (pending(t)) {
		r->time_ns = ns;
		r->value = take(t, r);
		if (prec_put(c, r, r->cpu, ns)) {
			t->parked_on = false;
			if (r->hdr.flags & LWPROF_RS_SBASE)
				t->base_time = ns;
			return;
		}
	}
	unpark(t);
}

/* The switch-out sample s, parked until the thread is back (or gone). */
static void park(struct pconv *c, struct pthr *t, const struct psample *s)
{
	struct lwprof_rec_sample *r = (void *)c->scratch;
	unsigned char *q, *n;

	if (t->parked_on)	/* its switch-in was lost: it has no time */
		unpark(t);
	q = prec_head(c, r, s, LWPROF_SK_CLOCK, 0, 0, 0);
	if (r->nr_kernel)	/* where it left the CPU */
		r->hdr.flags |= LWPROF_RS_KBLOCK;
	pdelta_stack(c, t, r, q, s);
	if (t->parked_cap < r->hdr.size) {
		n = realloc(t->parked, r->hdr.size);
		if (!n) {
			if (r->hdr.flags & LWPROF_RS_SBASE)
				pdelta_lost(t);
			return;
		}
		t->parked = n;
		t->parked_cap = r->hdr.size;
	}
	memcpy(t->parked, r, r->hdr.size);
	t->parked_on = true;
}

static void put_task(struct pconv *c, const struct pthr *t, __u32 ppid,
		     __u32 event, __u32 cpu, __u64 ns);

/*
 * The module's rule (docs/design/security.md): a thread the recording user may
 * no longer trace (an exec of a set-ID or file-capability program, a
 * setuid(), prctl(PR_SET_DUMPABLE, 0)) is recorded no further; perf's own
 * events stop only at an exec that leaves a task non-dumpable.  Asked of
 * the kernel once a pass, at the thread's first record in it (every
 * record of a pass is older than the question): opening
 * /proc/PID/task/TID/auxv is ptrace_may_access() in
 * PTRACE_MODE_READ_FSCREDS, perf_event_open()'s own test, LSMs included.
 * A thread that fails keeps its records up to the last time it passed;
 * then its rest, a STOP record, and nothing more.  One gone before it
 * was asked cannot be (the docs say so).
 */
static bool may_trace(const struct pthr *t)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/auxv", t->pid, t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || (errno != EACCES && errno != EPERM);
}

/* A "Cap...:" line's mask of /proc/PID/status (0: none). */
static unsigned long long cap_line(const char *path, const char *key)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen(path, "re");
	size_t n = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n))
			v = strtoull(line + n, NULL, 16);
	if (f)
		fclose(f);
	return v;
}

/*
 * Why t is not traceable, from its status: a new name is an exec (of a
 * set-ID or file-capability program); IDs other than ours or capabilities
 * beyond ours are changed credentials; else it made itself non-dumpable.
 * A thread with no name yet takes the one there.
 */
static __u8 deny_why(struct pthr *t)
{
	unsigned long id[4] = { 0 };
	char path[64], line[256], name[32] = "";
	bool creds;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/status", t->pid, t->tid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Name: %31s", name);
		sscanf(line, "Uid: %lu %lu %lu %lu", id, id + 1, id + 2, id + 3);
	}
	if (f)
		fclose(f);
	creds = id[0] != getuid() || id[1] != getuid() || id[2] != getuid() ||
		(cap_line(path, "CapPrm:") &
		 ~cap_line("/proc/self/status", "CapPrm:"));
	if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "%s", name);
	else if (name[0] && strncmp(name, t->comm, sizeof(t->comm) - 1))
		return LWPROF_STOP_EXEC;
	if (t->exec_ns > t->ok_ns)
		return LWPROF_STOP_EXEC;
	return creds ? LWPROF_STOP_CREDS : LWPROF_STOP_DUMPABLE;
}

/*
 * May a record of t at ns be converted?  The first time one may not: t's
 * time up to its last good answer goes out, then a STOP record.
 */
static bool guard(struct pconv *c, struct pthr *t, __u32 cpu, __u64 ns)
{
	struct lwprof_rec_stop r;
	__u64 at;

	if (t->stopped)
		return false;
	if (!c->guard)
		return true;
	if (t->pass != c->pass) {
		t->pass = c->pass;
		if (may_trace(t))
			t->ok_ns = perf_now_ns();
		else if (!t->deny)
			t->deny = deny_why(t);
	}
	if (!t->deny || ns <= t->ok_ns)
		return true;
	at = t->ok_ns > t->last_ns ? t->ok_ns : t->last_ns;
	advance(t, at);
	if (!t->on)
		put_parked(c, t, at);
	else if (t->parked_on)
		unpark(t);
	put_rest(c, t, cpu, at);
	memset(&r, 0, sizeof(r));
	r.hdr.type = LWPROF_REC_STOP;
	r.hdr.size = sizeof(r);
	r.time_ns = at;
	r.pid = t->pid;
	r.tid = t->tid;
	r.reason = t->deny;
	memcpy(r.comm, t->comm, sizeof(r.comm));
	prec_put(c, &r, cpu, at);
	t->stopped = true;
	return false;
}

static void put_task(struct pconv *c, const struct pthr *t, __u32 ppid,
		     __u32 event, __u32 cpu, __u64 ns)
{
	struct lwprof_rec_task r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = LWPROF_REC_TASK;
	r.hdr.size = sizeof(r);
	r.time_ns = ns;
	r.pid = t->pid;
	r.tid = t->tid;
	r.ppid = ppid;
	r.event = event;
	memcpy(r.comm, t->comm, sizeof(r.comm));
	prec_put(c, &r, cpu, ns);
}

/*
 * sched:sched_wakeup (wake.c): a thread blocked since its switch-out
 * is back on a run queue; from here to its switch-in it waits for a CPU.
 * Wake-ups of threads not ours, running or runnable already are passed
 * over.
 */
/* The thread of ours a wake-up sample names (NULL: none), and its time. */
static struct pthr *woken(struct pconv *c, const struct perf_event_header *h,
			  bool new_task, __u64 *ns)
{
	__u32 tid;

	if (pwake_sample(c->p, h, new_task, ns, &tid) || !tid)
		return NULL;
	return find(c, tid);
}

static void on_wakeup(struct pconv *c, const struct perf_event_header *h)
{
	__u64 ns;
	struct pthr *t = woken(c, h, false, &ns);

	if (!t || t->on || t->off_ms == LWPROF_MS_WAIT_CPU ||
	    !guard(c, t, 0, ns))
		return;
	advance(t, ns);
	t->off_ms = LWPROF_MS_WAIT_CPU;
	t->blocked = false;
	c->wakeups++;
}

/*
 * sched:sched_wakeup_new (wake.c): a new thread is on a run queue for the
 * first time, and its accounting begins, in Wait CPU, as the module's
 * does: from its creation to here it was on none, and its creator may
 * have been delayed in between.  Without the sample (the tracepoint
 * absent, or none written) it waits for a CPU from its creation.
 */
static void on_wakeup_new(struct pconv *c, const struct perf_event_header *h)
{
	__u64 ns;
	struct pthr *t = woken(c, h, true, &ns);

	if (!t || !t->unborn || t->on)
		return;
	t->unborn = false;
	if (ns > t->last_ns) {
		memset(t->acc, 0, sizeof(t->acc));	/* nothing before it */
		t->last_ns = ns;
	}
}

/*
 * t takes a CPU at ns.  If it was blocked and no wake-up of it came, the
 * kernel wrote no sched:sched_wakeup sample for it (on this project's
 * virtual host it writes no tracepoint sample at all while certain
 * threads are current, a wake-up from an interrupt there included): its
 * wait for a CPU stays in the blocked state, and log.txt says how many.
 */
static void take_cpu(struct pconv *c, struct pthr *t, __u64 ns)
{
	advance(t, ns);
	if (t->blocked && c->p->wake)
		c->wake_unseen++;
	t->blocked = false;
	t->unborn = false;
	t->on = true;
	put_parked(c, t, ns);
}

/*
 * sched:sched_switch (wake.c): the scheduler's own instant of a switch,
 * before the switch and perf's work at it (the switch-out sample, the
 * events' schedule-out and -in), which the kernel charges to the thread
 * that takes the CPU: that thread is on CPU from here, and the one that
 * leaves it off from here.  The switch records that follow find it so:
 * the switch-out takes this time, the switch-in has no time off left.
 */
static void on_sched_switch(struct pconv *c, const struct perf_event_header *h)
{
	struct pthr *t;
	__u32 prev, next;
	__u64 ns;

	if (psw_sample(c->p, h, &ns, &prev, &next))
		return;
	t = prev ? find(c, prev) : NULL;
	if (t && t->on)
		t->sw_out_ns = ns;
	t = next ? find(c, next) : NULL;
	if (!t || t->on)
		return;
	take_cpu(c, t, ns);
}

static void on_sample(struct pconv *c, const struct perf_event_header *h)
{
	const struct psrc *p = c->p;
	struct lwprof_rec_sample *r;
	const struct pev_id *id;
	struct psample s;
	struct pthr *t;
	unsigned char *q;
	__u8 mode;

	/* Every event's samples begin with its id (PERF_SAMPLE_IDENTIFIER). */
	id = h->size >= sizeof(*h) + 8 ? psrc_id(p, *(const __u64 *)(h + 1)) :
	     NULL;
	if (id && id->role == ROLE_WAKEUP) {
		on_wakeup(c, h);
		return;
	}
	if (id && id->role == ROLE_WAKEUP_NEW) {
		on_wakeup_new(c, h);
		return;
	}
	if (id && id->role == ROLE_SCHED_SWITCH) {
		on_sched_switch(c, h);
		return;
	}
	/* The idle task (-a): not a thread of ours, as in on_switch(). */
	if (pconv_sample(p, h, &s) || !s.tid)
		return;
	c->samples++;
	t = add(c, s.pid, s.tid, s.time, true);
	if (!id || !t || !guard(c, t, s.cpu, s.time))
		return;
	mode = (s.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		PERF_RECORD_MISC_KERNEL ? LWPROF_MS_SYSTEM : LWPROF_MS_USER;
	switch (id->role) {
	case ROLE_CLOCK:
		if (!t->on)	/* its switch-in was lost */
			take_cpu(c, t, s.time);
		t->last_mode = mode;
		advance(t, s.time);
		r = prec_begin(c, s.cpu);
		q = prec_head(c, r, &s, LWPROF_SK_CLOCK, 0, 0, 0);
		r->value = take(t, r);
		pdelta_stack(c, t, r, q, &s);
		if (!prec_end(c, r))
			pdelta_lost(t);
		break;
	case ROLE_SWITCH:
		park(c, t, &s);
		t->lock_out = prec_futex(p, &s);
		t->out_ns = s.time;
		break;
	case ROLE_COUNTER:
		r = prec_begin(c, s.cpu);
		q = prec_head(c, r, &s, LWPROF_SK_COUNTER, id->counter,
			      s.period, 0);
		pdelta_stack(c, t, r, q, &s);
		if (!prec_end(c, r))
			pdelta_lost(t);
		break;
	}
}

static void on_switch(struct pconv *c, const struct perf_event_header *h)
{
	struct ptrail tr;
	struct pthr *t;
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;

	if (pconv_trailer(h, &tr) || !tr.tid)
		return;
	c->switches++;
	t = add(c, tr.pid, tr.tid, tr.time, out);
	if (!t || !guard(c, t, tr.cpu, tr.time))
		return;
	/*
	 * A switch-out ends the time on CPU at the scheduler's switch
	 * (sched_switch), else at its context-switch sample, read at the
	 * same switch before the sample copies the stack: the record comes
	 * after that copy, the profiler's own work (in a TCG guest under
	 * host load a vCPU stall there made 4.9 ms of a sleep System CPU).
	 */
	advance(t, !out ? tr.time : t->sw_out_ns ? t->sw_out_ns :
		   t->out_ns ? t->out_ns : tr.time);
	t->out_ns = t->sw_out_ns = 0;
	if (out) {
		t->on = false;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			t->off_ms = LWPROF_MS_WAIT_CPU;
		else
			t->off_ms = t->lock_out ? LWPROF_MS_USER_LOCK :
				    LWPROF_MS_SLEEP;
		t->blocked = t->off_ms != LWPROF_MS_WAIT_CPU;
		t->lock_out = false;
		return;
	}
	take_cpu(c, t, tr.time);
}

static void on_task(struct pconv *c, const struct perf_event_header *h,
		    __u32 ring)
{
	const struct perf_record_fork {
		__u32 pid, ppid, tid, ptid;
		__u64 time;
	} *f = (const void *)(h + 1);
	struct pthr **s, *t, *parent;
	struct ptrail tr;

	if (pconv_trailer(h, &tr) || h->size < sizeof(*h) + sizeof(*f) + 32)
		return;
	if (h->type == PERF_RECORD_FORK) {
		/* A new task waits for a CPU until it first runs. */
		t = add(c, f->pid, f->tid, tr.time, false);
		if (!t)
			return;
		t->off_ms = LWPROF_MS_WAIT_CPU;
		t->unborn = c->p->wake_new;
		parent = find(c, f->ptid);
		if (parent)
			memcpy(t->comm, parent->comm, sizeof(t->comm));
		put_task(c, t, f->ppid, LWPROF_TASK_FORK, tr.cpu, tr.time);
		return;
	}
	s = slot(c, f->tid);
	t = *s;
	if (!t)
		return;
	if (!guard(c, t, tr.cpu, tr.time))
		goto gone;	/* said: its STOP record stands for its exit */
	advance(t, tr.time);
	put_parked(c, t, tr.time);
	put_rest(c, t, tr.cpu, tr.time);
	put_task(c, t, f->ppid, LWPROF_TASK_EXIT, tr.cpu, tr.time);
gone:
	*s = t->next;
	pthr_free(t);
	(void)ring;
}

static void on_comm(struct pconv *c, const struct perf_event_header *h)
{
	const struct { __u32 pid, tid; char comm[16]; } *m = (const void *)(h + 1);
	struct ptrail tr;
	struct pthr *t;
	size_t n;

	if (pconv_trailer(h, &tr) || h->size < sizeof(*h) + 8 + 32)
		return;
	t = add(c, m->pid, m->tid, tr.time, true);
	if (!t)
		return;
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
		t->exec_ns = tr.time;
	if (!guard(c, t, tr.cpu, tr.time))
		return;
	n = h->size - sizeof(*h) - 8 - 32;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, m->comm, n < sizeof(t->comm) - 1 ? n : sizeof(t->comm) - 1);
	put_task(c, t, 0, h->misc & PERF_RECORD_MISC_COMM_EXEC ?
		 LWPROF_TASK_EXEC : LWPROF_TASK_COMM, tr.cpu, tr.time);
}

static void on_mmap(struct pconv *c, const struct perf_event_header *h)
{
	const struct {
		__u32 pid, tid;
		__u64 addr, len, pgoff;
		__u32 maj, min;
		__u64 ino, ino_generation;
		__u32 prot, flags;
		char filename[];
	} *m = (const void *)(h + 1);
	union prec_mmap_buf u;
	struct ptrail tr;
	struct pthr *t;
	size_t max;

	if (pconv_trailer(h, &tr) || h->size < sizeof(*h) + sizeof(*m) + 32 ||
	    (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
	    !(m->prot & 4 /* PROT_EXEC */))
		return;
	t = find(c, m->tid);
	if (t && !guard(c, t, tr.cpu, tr.time))
		return;	/* maps are what ptrace keeps from others */
	max = h->size - sizeof(*h) - sizeof(*m) - 32;
	prec_put(c, prec_mmap(&u, &(struct pmap){
			.pid = m->pid, .tid = m->tid, .maj = m->maj,
			.min = m->min, .prot = m->prot, .time = tr.time,
			.start = m->addr, .len = m->len, .pgoff = m->pgoff,
			.ino = m->ino, .path = m->filename,
			.path_len = strnlen(m->filename, max) }),
		 tr.cpu, tr.time);
}

void pconv_record(struct pconv *c, const struct perf_event_header *h,
		  __u32 ring)
{
	const struct { __u64 id, lost; } *l = (const void *)(h + 1);
	struct ptrail tr;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(c, h);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		on_switch(c, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_task(c, h, ring);
		break;
	case PERF_RECORD_COMM:
		on_comm(c, h);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap(c, h);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + sizeof(*l)) {
			c->perf_lost += l->lost;
			if (!pconv_trailer(h, &tr) && tr.cpu < c->p->nr_cpus) {
				c->p->cpu[tr.cpu].perf_lost += l->lost;
				c->p->cpu[tr.cpu].out.lost_pending += l->lost;
			}
		}
		break;
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		break;
	}
}

/* The end of the recording: what each live thread has goes out. */
void pthr_close_all(struct pconv *c, __u64 end_ns)
{
	struct pthr *t;
	unsigned int i;

	for (i = 0; i < PTHR_BUCKETS; i++) {
		for (t = c->bucket[i]; t; t = t->next) {
			advance(t, end_ns);
			if (!t->on)
				put_parked(c, t, end_ns);
			put_rest(c, t, 0, end_ns);
		}
	}
}

void pthr_free_all(struct pconv *c)
{
	struct pthr *t, *n;
	unsigned int i;

	for (i = 0; i < PTHR_BUCKETS; i++) {
		for (t = c->bucket[i]; t; t = n) {
			n = t->next;
			pthr_free(t);
		}
		c->bucket[i] = NULL;
	}
}
