// SPDX-License-Identifier: GPL-2.0
/*
 * Thread usage from /proc and taskstats, for ptime and top without the
 * module: which threads are the session's (a process tree, or the
 * machine), their readings (backend/proc.c) and, as they exit, their exact
 * final totals from taskstats exit records (cpu_run_virtual_total,
 * cpu_delay_total, ac_etime, ...); without those a thread keeps its last
 * reading.  SLEEP is the rest of a thread's life: all time neither
 * running nor runnable, lock waits, fault sleeps and stops included.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

/* Exit records not (yet) known to be the session's, kept at most. */
#define PROC_PENDING_MAX	4096
/* A pending exit record's flag: unclaimed at a read already. */
#define PROC_TU_OLD		(1u << 30)

/* A process of the session: start 0 matches any (known from an exit). */
struct proc_member {
	__u32 pid;
	__u64 start;		/* starttime in ticks */
};

/* A thread by identity, with where its last record ended. */
struct proc_key {
	__u32 tid;
	__u64 start_ns, end_ns;
	__u64 tick_ns;		/* start by /proc's starttime */
};

struct proc_vec {
	void *v;
	size_t n, cap, size;
};

struct lwprof_proc {
	int pid;		/* the target; 0: the machine */
	int adopt;		/* our pid when the target is our child */
	__u64 attach_tick;	/* processes started since join the tree */
	__u64 tick_ns;
	struct lwprof_ts *ts;
	int ts_err;		/* why there is no ts */
	__u64 ts_lost;
	struct lwprof_pcnt *pc;	/* syscall and signal counters, or NULL */
	int pc_err;		/* why there are none */
	struct proc_vec members;	/* struct proc_member */
	struct proc_vec live;		/* struct proc_key, last scan, by tid */
	struct proc_vec done;		/* struct proc_key: final given */
	struct proc_vec pending;	/* struct lwprof_thread_usage */
};

/* One pass over /proc's processes (tree sessions). */
struct proc_ps {
	__u32 pid, ppid;
	__u64 start;
	bool in;
};

static void vec_init(struct proc_vec *v, size_t size)
{
	memset(v, 0, sizeof(*v));
	v->size = size;
}

static void *vec_push(struct proc_vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		void *p = realloc(v->v, cap * v->size);

		if (!p)
			return NULL;
		v->v = p;
		v->cap = cap;
	}
	return (char *)v->v + v->size * v->n++;
}

int lwprof_proc_open(struct lwprof_proc **out)
{
	struct lwprof_proc *p = calloc(1, sizeof(*p));
	long hz = sysconf(_SC_CLK_TCK);

	if (!p)
		return -ENOMEM;
	p->tick_ns = 1000000000ULL / (hz > 0 ? hz : 100);
	vec_init(&p->members, sizeof(struct proc_member));
	vec_init(&p->live, sizeof(struct proc_key));
	vec_init(&p->done, sizeof(struct proc_key));
	vec_init(&p->pending, sizeof(struct lwprof_thread_usage));
	p->ts_err = -ENOTCONN;
	*out = p;
	return 0;
}

void lwprof_proc_close(struct lwprof_proc *p)
{
	if (!p)
		return;
	lwprof_ts_close(p->ts);
	lwprof_pcnt_close(p->pc);
	free(p->members.v);
	free(p->live.v);
	free(p->done.v);
	free(p->pending.v);
	free(p);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct proc_key *key_find(const struct proc_vec *v, __u32 tid)
{
	struct proc_key k = { .tid = tid };

	return v->n ? bsearch(&k, v->v, v->n, v->size, cmp_tid) : NULL;
}

static bool member(const struct proc_vec *m, __u32 pid, __u64 start)
{
	const struct proc_member *e = m->v;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (e[i].pid == pid && (!e[i].start || !start ||
					e[i].start == start))
			return true;
	return false;
}

static int add_member(struct proc_vec *m, __u32 pid, __u64 start)
{
	struct proc_member *e;

	if (member(m, pid, start))
		return 0;
	e = vec_push(m);
	if (!e)
		return -ENOMEM;
	e->pid = pid;
	e->start = start;
	return 0;
}

static bool ps_in(const struct proc_ps *e, size_t n, __u32 pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (e[i].pid == pid)
			return e[i].in;
	return false;
}

/*
 * The tree's processes now: the target and the old members still there,
 * and the processes started since the attach whose parent is one (or us,
 * for orphans of our child); into mem.
 */
static int scan_tree(struct lwprof_proc *p, struct proc_vec *mem)
{
	struct proc_vec ps;
	struct proc_thr t;
	struct proc_ps *e;
	struct dirent *d;
	char path[300], buf[2048];
	bool more = true;
	size_t i;
	DIR *dir;
	int err = 0;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	vec_init(&ps, sizeof(struct proc_ps));
	while ((d = readdir(dir))) {
		__u64 start;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		if (proc_read_at(AT_FDCWD, path, buf, sizeof(buf)) ||
		    proc_parse_stat(buf, &t, &start))
			continue;
		e = vec_push(&ps);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		e->pid = atoi(d->d_name);
		e->ppid = t.ppid;
		e->start = start;
		e->in = member(&p->members, e->pid, start);
	}
	closedir(dir);
	e = ps.v;
	while (!err && more) {
		more = false;
		for (i = 0; i < ps.n; i++) {
			if (e[i].in || e[i].start < p->attach_tick)
				continue;
			if ((p->adopt && (int)e[i].ppid == p->adopt) ||
			    ps_in(e, ps.n, e[i].ppid))
				e[i].in = more = true;
		}
	}
	for (i = 0; !err && i < ps.n; i++)
		if (e[i].in)
			err = add_member(mem, e[i].pid, e[i].start);
	free(ps.v);
	return err;
}

/* Every process of the machine, into mem. */
static int scan_machine(struct proc_vec *mem)
{
	struct dirent *d;
	DIR *dir;
	int err = 0;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]))
			err = add_member(mem, atoi(d->d_name), 0);
	closedir(dir);
	return err;
}

/*
 * A thread's start to the microsecond: as found before, or its age by
 * taskstats; /proc's starttime has only clock ticks.  The kernel reads its
 * clock for the age somewhere between our two reads around the query, so a
 * preemption there would move the start (and so the end an exit record
 * gives it) by as long as it lasted: retry while that window is wide, and
 * keep the start within its starttime tick, which holds it too.
 */
#define START_WINDOW_NS	100000	/* a query not preempted */
#define START_TRIES	4

static void exact_start(const struct lwprof_proc *p, struct proc_thr *t)
{
	const struct proc_key *k = key_find(&p->live, t->tid);
	__u64 lo = 0, hi = 0, best = UINT64_MAX, start;
	struct taskstats ts;
	size_t i;

	if (k && k->tick_ns == t->tick_ns) {
		t->start_ns = k->start_ns;
		return;
	}
	for (i = 0, k = p->done.v; i < p->done.n; i++) {
		if (k[i].tid == t->tid && k[i].tick_ns == t->tick_ns) {
			t->start_ns = k[i].start_ns;
			return;
		}
	}
	for (i = 0; p->ts && i < START_TRIES && best > START_WINDOW_NS; i++) {
		__u64 before = proc_boot_ns(), after, age;

		if (lwprof_ts_query(p->ts, t->tid, &ts))
			break;
		after = proc_boot_ns();
		/* ac_etime is in whole microseconds: up to 1 us more. */
		age = ts.ac_etime * 1000;
		if (age + 1000 > before)
			break;
		if (after - before < best) {
			best = after - before;
			lo = before - age - 1000;
			hi = after - age;
		}
	}
	if (best == UINT64_MAX)
		return;		/* starttime's tick it stays */
	start = lo + (hi - lo) / 2;
	if (start < t->tick_ns)
		start = t->tick_ns;
	if (start >= t->tick_ns + p->tick_ns)
		start = t->tick_ns + p->tick_ns - 1;
	t->start_ns = start;
}

/* The threads of process pid, read now, appended to out. */
static int scan_threads(const struct lwprof_proc *p, __u32 pid,
			struct proc_vec *out)
{
	struct proc_thr *t;
	struct dirent *d;
	char path[64];
	int tdir, fd, dfd, err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	tdir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tdir < 0)
		return 0;	/* gone */
	dfd = dup(tdir);
	dir = dfd < 0 ? NULL : fdopendir(dfd);
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		close(tdir);
		return -errno;
	}
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		fd = openat(tdir, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		t = vec_push(out);
		if (!t) {
			close(fd);
			err = -ENOMEM;
			break;
		}
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->tid = atoi(d->d_name);
		if (proc_read_thread(fd, p->tick_ns, t))
			out->n--;	/* it went while we read it */
		else
			exact_start(p, t);
		close(fd);
	}
	closedir(dir);
	close(tdir);
	return err;
}

/* taskstats record -> pending (every exit the kernel reports). */
static void on_exit_record(void *arg, const struct taskstats *ts)
{
	struct lwprof_proc *p = arg;
	struct lwprof_thread_usage *tu;
	struct proc_thr t;

	if (p->pending.n >= PROC_PENDING_MAX) {
		p->ts_lost++;	/* a busy machine: said in the log */
		return;
	}
	memset(&t, 0, sizeof(t));
	t.pid = ts->ac_tgid ? ts->ac_tgid : ts->ac_pid;
	t.tid = ts->ac_pid;
	t.ppid = ts->ac_ppid;
	memcpy(t.comm, ts->ac_comm,
	       sizeof(t.comm) < sizeof(ts->ac_comm) ? sizeof(t.comm) :
	       sizeof(ts->ac_comm));
	t.comm[sizeof(t.comm) - 1] = 0;
	t.life_ns = ts->ac_etime * 1000;
	t.run_ns = ts->cpu_run_virtual_total;
	t.delay_ns = ts->cpu_delay_total;
	t.utime = ts->ac_utime;
	t.stime = ts->ac_stime;
	t.vcsw = ts->nvcsw;
	t.ivcsw = ts->nivcsw;
	t.minflt = ts->ac_minflt;
	t.majflt = ts->ac_majflt;
	tu = vec_push(&p->pending);
	if (tu)		/* start 0, end: its life; key_exit() places it */
		proc_to_usage(&t, t.life_ns, LWPROF_TU_EXITED, tu);
}

static bool is_final(const struct proc_vec *done, __u32 tid, __u64 start)
{
	const struct proc_key *k = done->v;
	size_t i;

	for (i = 0; i < done->n; i++)
		if (k[i].tid == tid && k[i].start_ns == start)
			return true;
	return false;
}

/*
 * The exit records that are the session's: of one of its processes (then
 * or now), or of a new process whose parent is one; the rest stay pending
 * (their parent may show later) or, for the machine, all are.
 */
static int take_exits(struct lwprof_proc *p, struct proc_vec *mem,
		      struct proc_vec *exits)
{
	struct lwprof_thread_usage *e, *out;
	__u64 now = proc_boot_ns(), since = p->attach_tick * p->tick_ns;
	bool more = true;
	size_t i, n;
	int err;

	if (p->ts) {
		err = lwprof_ts_drain(p->ts, on_exit_record, p);
		if (err < 0)
			return err;
		p->ts_lost += err;
	}
	while (more) {
		more = false;
		e = p->pending.v;
		for (i = 0, n = 0; i < p->pending.n; i++) {
			bool ours = !p->pid || member(mem, e[i].pid, 0) ||
				member(&p->members, e[i].pid, 0);

			/* A process never read: its parent's and new (end: life). */
			if (!ours && now - e[i].end_ns >= since &&
			    ((p->adopt && (int)e[i].ppid == p->adopt) ||
			     member(mem, e[i].ppid, 0))) {
				ours = true;
				if (add_member(mem, e[i].pid, 0))
					return -ENOMEM;
				more = true;
			}
			if (!ours) {
				e[n++] = e[i];
				continue;
			}
			out = vec_push(exits);
			if (!out)
				return -ENOMEM;
			*out = e[i];
			out->flags &= ~PROC_TU_OLD;
		}
		p->pending.n = n;
	}
	/*
	 * What stays unclaimed for a second read is not ours (its parent
	 * would have been read by now): drop it, or a busy machine's exits
	 * would fill the list.
	 */
	e = p->pending.v;
	for (i = 0, n = 0; i < p->pending.n; i++) {
		if (e[i].flags & PROC_TU_OLD)
			continue;
		e[i].flags |= PROC_TU_OLD;
		e[n++] = e[i];
	}
	p->pending.n = n;
	return 0;
}

/*
 * Key an exit record (pid, tid, life) as the thread's readings were keyed
 * (its start in ticks), and end it at start + life, after its last
 * reading; a thread never read starts life before now.
 */
static void key_exit(const struct lwprof_proc *p, const struct proc_vec *now,
		     struct lwprof_thread_usage *tu, __u64 t_ns)
{
	const struct proc_thr *t = now->v;
	const struct proc_key *k = key_find(&p->live, tu->tid);
	__u64 last_end = 0, life = tu->end_ns;
	size_t i;

	tu->start_ns = t_ns > life ? t_ns - life : 0;
	if (k) {
		tu->start_ns = k->start_ns;
		last_end = k->end_ns;
	}
	for (i = 0; i < now->n; i++) {
		if (t[i].tid == tu->tid) {
			tu->start_ns = t[i].start_ns;
			break;
		}
	}
	tu->end_ns = tu->start_ns + life;
	if (tu->end_ns < last_end)
		tu->end_ns = last_end;
}

/*
 * The syscall and signal counts of the records, from their threads'
 * counters (opened now for a thread read the first time; final for one
 * that exited); then close those of the threads gone.
 */
static void count(struct lwprof_proc *p, struct proc_vec *recs)
{
	struct lwprof_thread_usage *tu = recs->v;
	size_t i;

	if (!p->pc)
		return;
	for (i = 0; i < recs->n; i++)
		if (lwprof_pcnt_read(p->pc, tu[i].tid, &tu[i].syscalls,
				     &tu[i].signals))
			tu[i].flags |= LWPROF_TU_NOCOUNT;
	lwprof_pcnt_sweep(p->pc);
}

int lwprof_proc_read(struct lwprof_proc *p, struct lwprof_usage_set *set)
{
	struct proc_vec mem, thr, exits, recs, live, done;
	struct proc_member *m;
	struct proc_thr *t;
	struct lwprof_thread_usage *tu;
	__u64 now;
	size_t i, j;
	__u32 nlive = 0;
	int err;

	vec_init(&mem, sizeof(struct proc_member));
	vec_init(&thr, sizeof(struct proc_thr));
	vec_init(&exits, sizeof(struct lwprof_thread_usage));
	vec_init(&recs, sizeof(struct lwprof_thread_usage));
	vec_init(&live, sizeof(struct proc_key));
	vec_init(&done, sizeof(struct proc_key));

	err = p->pid ? scan_tree(p, &mem) : scan_machine(&mem);
	m = mem.v;
	for (i = 0; !err && i < mem.n; i++)
		err = scan_threads(p, m[i].pid, &thr);
	if (!err)
		err = take_exits(p, &mem, &exits);
	now = proc_boot_ns();
	if (err)
		goto out;

	/* Exit records first: they replace any reading of their thread. */
	for (i = 0; i < exits.n && !err; i++) {
		struct proc_key *k;

		tu = (struct lwprof_thread_usage *)exits.v + i;
		key_exit(p, &thr, tu, now);
		if (is_final(&p->done, tu->tid, tu->start_ns))
			continue;
		k = vec_push(&done);
		if (!k || !vec_push(&recs)) {
			err = -ENOMEM;
			break;
		}
		*k = (struct proc_key){ tu->tid, tu->start_ns, tu->end_ns, 0 };
		((struct lwprof_thread_usage *)recs.v)[recs.n - 1] = *tu;
	}
	t = thr.v;
	for (i = 0; i < thr.n && !err; i++) {
		bool zombie = t[i].state == 'Z' || t[i].state == 'X';
		struct proc_key *k;

		if (is_final(&p->done, t[i].tid, t[i].start_ns) ||
		    is_final(&done, t[i].tid, t[i].start_ns)) {
			/* Still final and shown: keep it so. */
			k = vec_push(&done);
			if (!k) {
				err = -ENOMEM;
				break;
			}
			*k = (struct proc_key){ t[i].tid, t[i].start_ns,
						t[i].read_ns, t[i].tick_ns };
			continue;
		}
		tu = vec_push(&recs);
		k = vec_push(zombie ? &done : &live);
		if (!tu || !k) {
			err = -ENOMEM;
			break;
		}
		proc_to_usage(&t[i], t[i].read_ns, zombie ? LWPROF_TU_EXITED : 0, tu);
		*k = (struct proc_key){ t[i].tid, t[i].start_ns, t[i].read_ns,
					t[i].tick_ns };
		if (!zombie)
			nlive++;
		else if (p->adopt && (int)t[i].ppid == p->adopt &&
			 (int)t[i].pid != p->pid && t[i].tid == t[i].pid)
			waitpid(t[i].pid, NULL, WNOHANG);	/* an orphan */
	}
	if (!err) {
		count(p, &recs);
		err = lwprof_usage_merge(set, recs.v, recs.n);
	}
	if (err)
		goto out;
	/* Duplicates in done are harmless; sort live for key_find(). */
	qsort(live.v, live.n, live.size, cmp_tid);
	for (i = 0, j = 0; i < mem.n; i++)
		if (m[i].start)	/* exit-only members have no process now */
			m[j++] = m[i];
	mem.n = j;
	free(p->members.v);
	free(p->live.v);
	free(p->done.v);
	p->members = mem;
	p->live = live;
	p->done = done;
	mem.v = live.v = done.v = NULL;
	set->live = nlive;
	set->lost = 0;
	set->now_ns = now;
	set->have = LWPROF_PROC_HAVE | (p->pc ? LWPROF_HAVE_SYSCALLS |
					LWPROF_HAVE_SIGNALS : 0);
out:
	free(mem.v);
	free(thr.v);
	free(exits.v);
	free(recs.v);
	free(live.v);
	free(done.v);
	return err;
}

int lwprof_proc_attach(struct lwprof_proc *p, __u32 flags, int pid)
{
	char path[64], buf[2048];
	struct proc_thr t;
	__u64 start;
	int err;

	if (flags & LWPROF_ATTACH_MACHINE) {
		if (!proc_has_cap(CAP_PERFMON) && !proc_has_cap(CAP_SYS_ADMIN))
			return -EPERM;
		p->pid = 0;
	} else {
		err = proc_may_trace(pid);
		if (err)
			return err;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (proc_read_at(AT_FDCWD, path, buf, sizeof(buf)) ||
		    proc_parse_stat(buf, &t, &start))
			return -ESRCH;
		p->pid = pid;
		p->adopt = (int)t.ppid == getpid() ? getpid() : 0;
		err = add_member(&p->members, pid, start);
		if (err)
			return err;
	}
	p->attach_tick = proc_boot_ns() / p->tick_ns;
	p->ts_err = lwprof_ts_open(&p->ts);
	p->pc_err = lwprof_pcnt_open(&p->pc);
	return 0;
}

const char *lwprof_proc_note(const struct lwprof_proc *p, char *buf,
			     size_t len)
{
	const char *how, *cnt;

	switch (p->ts_err) {
	case 0:
		how = "exact (taskstats exit records)";
		break;
	case -EPERM:
	case -EACCES:
		how = "their last /proc reading (taskstats exit records need CAP_NET_ADMIN)";
		break;
	default:
		how = "their last /proc reading (no taskstats in this kernel)";
		break;
	}
	switch (p->pc_err) {
	case 0:
		cnt = "syscalls and signals: perf counters, from each thread's first reading";
		break;
	case -ENOENT:
		cnt = "no syscall or signal counts (no tracefs mounted for perf's tracepoints)";
		break;
	default:
		cnt = "no syscall or signal counts (perf's tracepoints need CAP_PERFMON, or kernel.perf_event_paranoid <= 1 and a tracefs we may read)";
		break;
	}
	snprintf(buf, len, "exited threads: %s%s; %s", how,
		 p->ts_lost ? "; some exit records were lost" : "", cnt);
	return buf;
}

/* ---- the usage part of backend_perf (perf.c) ---- */

static int pu_open(void **sp)
{
	return lwprof_proc_open((struct lwprof_proc **)sp);
}

static const char *pu_open_strerror(int err)
{
	return strerror(-err);
}

static int pu_attach(void *s, __u32 flags, int pid)
{
	return lwprof_proc_attach(s, flags, pid);
}

static const char *pu_attach_strerror(int err, __u32 flags, int pid,
				      char *buf, size_t len)
{
	if (err == -ESRCH) {
		snprintf(buf, len, "no such process: PID %d", pid);
		return buf;
	}
	return strerror(-err);
}

static int pu_read(void *s, struct lwprof_usage_set *set)
{
	return lwprof_proc_read(s, set);
}

static const char *pu_note(void *s, char *buf, size_t len)
{
	char note[400];

	snprintf(buf, len, "from /proc (trap, fault, lock and stop times are absent: -; slp is all sleep); %s",
		 lwprof_proc_note(s, note, sizeof(note)));
	return buf;
}

static void pu_close(void *s)
{
	lwprof_proc_close(s);
}

const struct usage_ops perf_usage_ops = {
	.polled = true,
	.open = pu_open,
	.open_strerror = pu_open_strerror,
	.attach = pu_attach,
	.attach_strerror = pu_attach_strerror,
	.read = pu_read,
	.note = pu_note,
	.close = pu_close,
};
