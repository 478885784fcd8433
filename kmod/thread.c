// SPDX-License-Identifier: GPL-2.0
/*
 * The table of accounted threads: a hash keyed by task_struct pointer (no
 * pid reuse or namespace trouble), looked up under RCU by the probes (which
 * run with preemption disabled), changed under lwprof_hash_lock.  An entry
 * leaves the table when its task is freed (sched_process_free) or its
 * session ends, and is freed after an RCU grace period.
 */
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "sample.h"

DEFINE_HASHTABLE(lwprof_threads, LWPROF_HASH_BITS);
static DEFINE_RAW_SPINLOCK(lwprof_hash_lock);
static struct kmem_cache *lwprof_thread_cache;

/* An entry, charged to the caller's memory cgroup (charge.c). */
struct lwprof_thread *lwprof_thread_alloc(gfp_t gfp)
{
	return kmem_cache_zalloc(lwprof_thread_cache,
				 gfp | __GFP_ACCOUNT | __GFP_NOWARN);
}

/* t joins, or leaves, s's list of threads (session lock held). */
void lwprof_thread_listed(struct lwprof_session *s, struct lwprof_thread *t)
{
	list_add_tail(&t->snode, &s->threads);
	s->nthreads++;
}

void lwprof_thread_unlisted(struct lwprof_session *s, struct lwprof_thread *t)
{
	list_del(&t->snode);
	s->nthreads--;
}

/*
 * t's task is freed (sched_process_free, an RCU callback): its buffers
 * go now, only its totals wait for the owner's read.  No hook can use
 * them: they are its own and it is gone.
 */
void lwprof_thread_spares_free(struct lwprof_thread *t)
{
	lwprof_sd_free(t->sd);
	t->sd = NULL;
	lwprof_kb_free(t->kb);
	t->kb = NULL;
}

/*
 * Where a probe may not allocate (!LWPROF_ALLOC_ATOMIC, PREEMPT_RT), the
 * fork probe's entries come from a reserve of zeroed ones, filled when
 * the first session wakes the probes, topped up by a work item whenever
 * it falls to half, and freed when the last session has ended (no
 * memory held without a session).  A fork that finds it empty is counted
 * in its session's lost threads, as a failed allocation is.  The lock is
 * raw: taken with preemption off.
 */
#define LWPROF_RESERVE		256
static struct lwprof_thread *lwprof_reserve[LWPROF_RESERVE];
static unsigned int lwprof_reserve_n;
static DEFINE_RAW_SPINLOCK(lwprof_reserve_lock);

static void lwprof_reserve_fill(struct work_struct *work)
{
	struct lwprof_thread *t;
	unsigned long flags;
	bool full = false;

	while (!full) {
		/* The machine's, not the first session owner's cgroup's. */
		t = kmem_cache_zalloc(lwprof_thread_cache,
				      GFP_KERNEL | __GFP_NOWARN);
		if (!t)
			return;
		raw_spin_lock_irqsave(&lwprof_reserve_lock, flags);
		if (lwprof_reserve_n < LWPROF_RESERVE) {
			lwprof_reserve[lwprof_reserve_n++] = t;
			t = NULL;
		}
		full = lwprof_reserve_n == LWPROF_RESERVE;
		raw_spin_unlock_irqrestore(&lwprof_reserve_lock, flags);
		if (t)
			kmem_cache_free(lwprof_thread_cache, t);
	}
}

static DECLARE_WORK(lwprof_reserve_work, lwprof_reserve_fill);

/* The first session: fill the reserve (process context). */
void lwprof_thread_reserve_fill(void)
{
	if (!LWPROF_ALLOC_ATOMIC)
		lwprof_reserve_fill(NULL);
}

/* The last session has ended and no probe can take an entry: free it. */
void lwprof_thread_reserve_drain(void)
{
	unsigned long flags;
	struct lwprof_thread *t;

	cancel_work_sync(&lwprof_reserve_work);
	for (;;) {
		raw_spin_lock_irqsave(&lwprof_reserve_lock, flags);
		t = lwprof_reserve_n ? lwprof_reserve[--lwprof_reserve_n] : NULL;
		raw_spin_unlock_irqrestore(&lwprof_reserve_lock, flags);
		if (!t)
			break;
		kmem_cache_free(lwprof_thread_cache, t);
	}
}

/* An entry from the reserve for a probe (preemption off), or NULL. */
static struct lwprof_thread *lwprof_thread_alloc_atomic(void)
{
	struct lwprof_thread *t = NULL;
	unsigned long flags;
	bool low;

	raw_spin_lock_irqsave(&lwprof_reserve_lock, flags);
	if (lwprof_reserve_n)
		t = lwprof_reserve[--lwprof_reserve_n];
	low = lwprof_reserve_n < LWPROF_RESERVE / 2;
	raw_spin_unlock_irqrestore(&lwprof_reserve_lock, flags);
	if (low)
		schedule_work(&lwprof_reserve_work);	/* raw locks only */
	return t;
}

/*
 * From the fork probe: an entry for a new thread of s, or NULL past its
 * owner's limit of threads or its memory cgroup's limit (an unprivileged
 * owner's entries do not reach into the kernel's reserves).  Charged to
 * that cgroup; where probes may not allocate, the entry comes from the
 * reserve above, which no user's cgroup pays for: user_threads and
 * user_sessions bound what one user takes of it.
 */
struct lwprof_thread *lwprof_thread_new(struct lwprof_session *s)
{
	struct mem_cgroup *old;
	struct lwprof_thread *t;

	if (s->max_threads && READ_ONCE(s->nthreads) >= s->max_threads)
		return NULL;
	if (!LWPROF_ALLOC_ATOMIC)
		return lwprof_thread_alloc_atomic();
	old = set_active_memcg(s->memcg);
	t = lwprof_thread_alloc(s->priv ? GFP_ATOMIC : GFP_NOWAIT);
	set_active_memcg(old);
	return t;
}

/*
 * A thread's buffer that the sampling hooks can do without (a stack-delta
 * base, saved off-CPU frames), from a hook: without reclaim, and not at
 * all while the machine's available memory would drop below
 * LWPROF_SPARE_FLOOR_SHIFT's share of RAM.  Such buffers only save ring
 * bytes or add frames to a packet; under memory pressure they would take
 * what the workload's own allocations and the kernel's reclaim need: with
 * -S 65536 each is 128 KiB of unreclaimable memory, and 2000 threads
 * asked for 28 MiB of them in the test guest (docs/design/reliability.md).
 * NULL then, and the caller does without.  Charged to the memory cgroup
 * of s's owner (charge.c); freed with the thread's task.
 */
void *lwprof_spare_alloc(struct lwprof_session *s, size_t size)
{
	unsigned long pages = DIV_ROUND_UP(size, PAGE_SIZE);

	if (!LWPROF_ALLOC_ATOMIC)
		return NULL;
	if (si_mem_available() < (long)(pages +
	    (totalram_pages() >> LWPROF_SPARE_FLOOR_SHIFT)))
		return NULL;
	return lwprof_charge_alloc(s, size, LWPROF_NORECLAIM_GFP);
}

static void lwprof_thread_free_rcu(struct rcu_head *head)
{
	struct lwprof_thread *t = container_of(head, struct lwprof_thread, rcu);

	lwprof_sd_free(t->sd);
	lwprof_kb_free(t->kb);
	lwprof_us_drop(t);
	kmem_cache_free(lwprof_thread_cache, t);
}

/* Free after a grace period: probes may still hold a pointer from a lookup. */
void lwprof_thread_free(struct lwprof_thread *t)
{
	call_rcu(&t->rcu, lwprof_thread_free_rcu);
}

/*
 * t's accounting begins at now: at its entry's creation, or again at its
 * exec under ATTACH_EXEC (then with the thread's seqcount held).
 */
void lwprof_thread_begin(struct lwprof_thread *t, struct task_struct *task,
			 u64 now)
{
	t->start_ns = now;
	t->last_ns = now;
	t->minflt0 = READ_ONCE(task->min_flt);
	t->majflt0 = READ_ONCE(task->maj_flt);
}

void lwprof_thread_init(struct lwprof_thread *t, struct task_struct *task,
			struct lwprof_session *s, u64 now)
{
	seqcount_init(&t->seq);
	INIT_HLIST_NODE(&t->hnode);
	INIT_LIST_HEAD(&t->snode);
	t->task = task;
	t->session = s;
	t->guarded = !s->priv;
	lwprof_thread_begin(t, task, now);
	t->pid = task_tgid_nr_ns(task, s->pid_ns);
	t->tid = task_pid_nr_ns(task, s->pid_ns);
	memcpy(t->comm, task->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
}

/* Put t in the table unless its task has an entry already (-EBUSY). */
int lwprof_thread_hash(struct lwprof_thread *t)
{
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&lwprof_hash_lock, flags);
	if (lwprof_thread_find(t->task))
		ret = -EBUSY;
	else
		hash_add_rcu(lwprof_threads, &t->hnode, (unsigned long)t->task);
	raw_spin_unlock_irqrestore(&lwprof_hash_lock, flags);
	return ret;
}

void lwprof_thread_unhash(struct lwprof_thread *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&lwprof_hash_lock, flags);
	if (!hlist_unhashed(&t->hnode))
		hash_del_rcu(&t->hnode);
	raw_spin_unlock_irqrestore(&lwprof_hash_lock, flags);
}

/*
 * The final totals of an exiting thread, at its last context switch: the
 * task struct is still whole, its pids may already be gone.
 */
void lwprof_thread_final(struct lwprof_thread *t, struct task_struct *task)
{
	t->minflt = READ_ONCE(task->min_flt) - t->minflt0;
	t->majflt = READ_ONCE(task->maj_flt) - t->majflt0;
	memcpy(t->comm, task->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
}

/*
 * A consistent copy of t for user space.  Caller holds the session lock,
 * so t->task is valid unless FREED.  A live thread's current state is
 * charged up to now.
 */
void lwprof_thread_snapshot(struct lwprof_thread *t, u64 now,
			    struct lwprof_thread_usage *u)
{
	unsigned int seq, state;
	u64 last, sys_in;
	bool exited;

	memset(u, 0, sizeof(*u));
	do {
		seq = read_seqcount_begin(&t->seq);
		memcpy(u->mstate_ns, t->acc, sizeof(u->mstate_ns));
		state = t->state;
		last = t->last_ns;
		sys_in = lwprof_ms_pending(t);
		u->start_ns = t->start_ns;
		u->end_ns = t->end_ns;
		u->vcsw = t->vcsw;
		u->ivcsw = t->ivcsw;
		u->syscalls = t->syscalls;
		u->signals = t->signals;
		u->pid = t->pid;
		u->tid = t->tid;
		exited = t->exited;
	} while (read_seqcount_retry(&t->seq, seq));

	u->ppid = t->ppid;
	if (t->flags & LWPROF_T_ATTACHED)
		u->flags |= LWPROF_TU_ATTACHED;
	if (exited && t->stopped)	/* final since: guard.c */
		u->flags |= LWPROF_TU_STOPPED |
			    (u32)t->stopped << LWPROF_TU_WHY_SHIFT;
	if (exited) {
		u->flags |= LWPROF_TU_EXITED;
		u->minflt = t->minflt;
		u->majflt = t->majflt;
		memcpy(u->comm, t->comm, sizeof(u->comm));
		return;
	}
	if (sys_in) {	/* in a system call not charged yet (mstate_sys.c) */
		if (sys_in > last) {
			u->mstate_ns[state] += sys_in - last;
			last = sys_in;
		}
		state = LWPROF_MS_SYSTEM;
	}
	if (now > last)
		u->mstate_ns[state] += now - last;
	u->end_ns = max(now, last);
	u->minflt = READ_ONCE(t->task->min_flt) - t->minflt0;
	u->majflt = READ_ONCE(t->task->maj_flt) - t->majflt0;
	memcpy(u->comm, t->task->comm, sizeof(u->comm));
	u->comm[sizeof(u->comm) - 1] = '\0';
}

int lwprof_threads_init(void)
{
	lwprof_thread_cache = KMEM_CACHE(lwprof_thread, 0);
	return lwprof_thread_cache ? 0 : -ENOMEM;
}

/* All sessions are gone: wait for the last call_rcu() frees. */
void lwprof_threads_exit(void)
{
	lwprof_thread_reserve_drain();
	rcu_barrier();
	kmem_cache_destroy(lwprof_thread_cache);
}
