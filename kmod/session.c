// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: an open /dev/lwprof that attached to a process (and its
 * descendants from then on) or to the whole machine.  The session owns the
 * entries of its threads; it ends when the file is released (close, or its
 * owner's death), which takes every entry out of the table and frees it.
 *
 * Locks, outermost first: the target's exec_update_lock (attach),
 * lwprof_sessions_mutex (attach, release), session->read_mutex (read,
 * revocation), session->lock (the thread list and flags), lwprof_hash_lock
 * (thread.c).  Nothing that may wake a task (call_rcu, kfree) runs under
 * session->lock: the sched_switch probe runs under an rq lock, and may
 * take session->lock (guard.c).
 *
 * A thread belongs to one session.  An attach that needs what another
 * session has (a thread of its process, or, for a machine session, every
 * thread) takes it if that session's owner was unprivileged and the
 * caller is privileged or another user: that session ends, revoked
 * (LWPROF_STOP_REVOKED), its threads' records final and its rings told
 * why.  Otherwise the attach fails with EBUSY: an ordinary user never
 * blocks root or another user, and root's sessions win.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"

static DEFINE_MUTEX(lwprof_sessions_mutex);
static LIST_HEAD(lwprof_sessions);	/* every session; the mutex */

static struct lwprof_session *lwprof_session_new(bool machine)
{
	struct lwprof_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	raw_spin_lock_init(&s->lock);
	mutex_init(&s->read_mutex);
	INIT_LIST_HEAD(&s->threads);
	INIT_LIST_HEAD(&s->link);
	s->machine = machine;
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	atomic64_set(&s->lost, 0);
	lwprof_guard_open(s);
	lwprof_charge_open(s);
	return s;
}

/* What lwprof_session_new() took: a session no probe has seen. */
static void lwprof_session_free(struct lwprof_session *s)
{
	put_pid_ns(s->pid_ns);
	lwprof_charge_close(s);
	lwprof_guard_close(s);
	kfree(s);
}

/*
 * Take every entry out of the table, wait until no probe can hold one,
 * free them.  Caller holds lwprof_sessions_mutex and a probes reference,
 * which this drops.
 */
static void lwprof_session_destroy(struct lwprof_session *s)
{
	struct lwprof_thread *t, *tmp;
	unsigned long flags;

	lwprof_smp_release(s);	/* no more samples or records */
	raw_spin_lock_irqsave(&s->lock, flags);
	s->closing = true;	/* fork and free probes leave us alone now */
	raw_spin_unlock_irqrestore(&s->lock, flags);

	list_for_each_entry(t, &s->threads, snode)
		lwprof_thread_unhash(t);
	if (s->machine)
		RCU_INIT_POINTER(lwprof_machine, NULL);
	/* No lookup finds them now; probes that found one have returned. */
	synchronize_rcu();
	lwprof_ms_cpu_forget(s);
	lwprof_probes_put();
	/* Probes that read a per-CPU pointer before it was cleared are done. */
	synchronize_rcu();

	list_for_each_entry_safe(t, tmp, &s->threads, snode) {
		list_del(&t->snode);
		lwprof_thread_free(t);
	}
	lwprof_smp_free(s);
	lwprof_session_free(s);
}

/* Threads of one process (leader) or of the machine (leader NULL). */
static unsigned int lwprof_count_threads(struct task_struct *leader)
{
	struct task_struct *p, *t;
	unsigned int n = 0;

	rcu_read_lock();
	if (leader) {
		for_each_thread(leader, t)
			n++;
	} else {
		for_each_process_thread(p, t)
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * Give one thread found by the attach an entry from the pool.  Returns
 * false when the pool is empty; -EBUSY in *err when another session has it.
 */
static bool lwprof_adopt(struct lwprof_session *s, struct task_struct *task,
			 struct list_head *pool, u64 now, int *err)
{
	struct lwprof_thread *t, *old;
	unsigned long flags;

	if (task->exit_state || task->tgid == s->exclude_tgid)
		return true;	/* past exit_notify(), or left out */
	old = lwprof_thread_find(task);
	if (old) {
		if (old->session != s)
			*err = -EBUSY;
		return true;
	}
	/* One whose credentials differ from its process's, say. */
	if (!lwprof_guard_task(s, task))
		return true;
	t = list_first_entry_or_null(pool, struct lwprof_thread, snode);
	if (!t)
		return false;
	list_del_init(&t->snode);
	lwprof_thread_init(t, task, s, now);
	t->ppid = task_tgid_nr_ns(rcu_dereference(task->real_parent), s->pid_ns);
	t->flags = LWPROF_T_ATTACHED;
	t->pre_exec = s->attach_exec;
	lwprof_ms_initial(t, task);

	raw_spin_lock_irqsave(&s->lock, flags);
	if (lwprof_thread_hash(t)) {
		/* A fork probe was quicker: it has the thread already. */
		raw_spin_unlock_irqrestore(&s->lock, flags);
		memset(t, 0, sizeof(*t));
		list_add(&t->snode, pool);
		return true;
	}
	lwprof_thread_listed(s, t);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return true;
}

/*
 * Give every existing thread of leader (or of the machine) an entry.  The
 * probes are live already, so threads created meanwhile get theirs from
 * the fork probe; the hash keeps each thread's entry unique.  Entries are
 * allocated beforehand (we walk under RCU); if threads appeared faster
 * than we allocated, walk again.
 */
static int lwprof_session_populate(struct lwprof_session *s,
				   struct task_struct *leader)
{
	struct lwprof_thread *t, *tmp;
	struct task_struct *p, *task;
	unsigned int i, n;
	bool short_pool;
	LIST_HEAD(pool);
	int err = 0;
	u64 now;

	do {
		n = lwprof_count_threads(leader) + 16;
		for (i = 0; i < n; i++) {
			t = lwprof_thread_alloc(GFP_KERNEL);	/* the owner's */
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			list_add(&t->snode, &pool);
		}
		short_pool = false;
		now = lwprof_now();
		rcu_read_lock();
		if (leader) {
			for_each_thread(leader, task)
				short_pool |= !lwprof_adopt(s, task, &pool,
							    now, &err);
		} else {
			for_each_process_thread(p, task)
				short_pool |= !lwprof_adopt(s, task, &pool,
							    now, &err);
		}
		rcu_read_unlock();
	} while (short_pool && !err);
out:
	list_for_each_entry_safe(t, tmp, &pool, snode)
		lwprof_thread_free(t);
	return err;
}

static struct task_struct *lwprof_find_process(pid_t nr)
{
	struct task_struct *task;
	struct pid *pid;

	pid = find_get_pid(nr);
	if (!pid)
		return NULL;
	task = get_pid_task(pid, PIDTYPE_TGID);
	put_pid(pid);
	return task;
}

/* May the caller take x's threads (the comment at the top)? */
static bool lwprof_may_revoke(const struct lwprof_session *x, bool priv)
{
	return !x->priv && (priv || !uid_eq(x->owner->uid, current_uid()));
}

/*
 * End x, whose threads another attach takes: sampling stops (its rings
 * say why), no thread joins it, its threads' records are final; the file
 * stays until its owner closes it.  The sessions mutex is held.
 */
static void lwprof_session_revoke(struct lwprof_session *x)
{
	unsigned long flags;

	mutex_lock(&x->read_mutex);
	/*
	 * Under the lock: the fork probe, which tests it there, adds no
	 * thread from now on.  The free probe goes on ending the entries of
	 * the threads that go meanwhile (closing would have it leave them,
	 * hashed, to a teardown that never looks at their tasks): the take
	 * holds a reference to every task whose entry it finds.
	 */
	raw_spin_lock_irqsave(&x->lock, flags);
	WRITE_ONCE(x->stopped, LWPROF_STOP_REVOKED);
	raw_spin_unlock_irqrestore(&x->lock, flags);
	lwprof_smp_revoke(x);
	lwprof_guard_take(x, LWPROF_STOP_REVOKED);
	mutex_unlock(&x->read_mutex);
}

/*
 * Before an attach (sessions mutex held): within the caller's number of
 * sessions, and nothing it needs held by a session it may not take: the
 * sessions it may take are revoked.  0, -EUSERS or -EBUSY.
 */
static int lwprof_make_room(bool machine, struct task_struct *leader)
{
	unsigned int max = lwprof_charge_max_sessions(), mine = 0;
	bool priv = lwprof_guard_caller_priv();
	struct lwprof_session *x, *m;
	struct lwprof_thread *t;
	struct task_struct *task;
	int ret = 0;

	list_for_each_entry(x, &lwprof_sessions, link)
		mine += x->user == current_user();
	if (max && mine >= max)
		return -EUSERS;
	if (machine) {
		list_for_each_entry(x, &lwprof_sessions, link)
			x->revoke = !x->stopped;
	} else {
		m = rcu_dereference_protected(lwprof_machine,
					      lockdep_is_held(&lwprof_sessions_mutex));
		if (m)
			m->revoke = true;
		rcu_read_lock();
		for_each_thread(leader, task) {
			t = lwprof_thread_find(task);
			if (t && !t->session->stopped)
				t->session->revoke = true;
		}
		rcu_read_unlock();
	}
	list_for_each_entry(x, &lwprof_sessions, link)
		if (x->revoke && !lwprof_may_revoke(x, priv))
			ret = -EBUSY;
	list_for_each_entry(x, &lwprof_sessions, link) {
		if (x->revoke && !ret)
			lwprof_session_revoke(x);
		x->revoke = false;
	}
	return ret;
}

int lwprof_session_attach(struct file *file, u32 flags, s32 pid)
{
	bool machine = flags & LWPROF_ATTACH_MACHINE;
	struct task_struct *leader = NULL;
	struct lwprof_session *s;
	int ret;

	if (flags & ~(LWPROF_ATTACH_MACHINE | LWPROF_ATTACH_EXCLUDE_SELF |
		      LWPROF_ATTACH_EXEC))
		return -EINVAL;
	if ((flags & LWPROF_ATTACH_EXCLUDE_SELF) && !machine)
		return -EINVAL;
	if ((flags & LWPROF_ATTACH_EXEC) && machine)
		return -EINVAL;
	if (machine ? pid != 0 : pid <= 0)
		return -EINVAL;
	if (machine && !perfmon_capable())
		return -EPERM;
	if (!machine) {
		ret = lwprof_guard_user();
		if (ret)
			return ret;
		leader = lwprof_find_process(pid);
		if (!leader)
			return -ESRCH;
		/*
		 * Until every thread has its entry: no exec with new
		 * credentials between the check and the adoption (as
		 * perf_event_open() holds it across its own).
		 */
		ret = down_read_killable(&leader->signal->exec_update_lock);
		if (ret)
			goto out_task;
		if (!lwprof_may_trace(leader)) {
			ret = -EPERM;
			goto out_exec;
		}
	}

	mutex_lock(&lwprof_sessions_mutex);
	ret = -EBUSY;
	if (file->private_data)
		goto out_unlock;
	ret = lwprof_make_room(machine, leader);
	if (ret)
		goto out_unlock;
	ret = -ENOMEM;
	s = lwprof_session_new(machine);
	if (!s)
		goto out_unlock;
	if (flags & LWPROF_ATTACH_EXCLUDE_SELF)
		s->exclude_tgid = current->tgid;
	s->attach_exec = flags & LWPROF_ATTACH_EXEC;
	ret = lwprof_probes_get();
	if (ret) {	/* attaching the probes failed */
		lwprof_session_free(s);
		goto out_unlock;
	}
	if (machine)
		rcu_assign_pointer(lwprof_machine, s);
	/* Until every CPU has adopted its running thread (below). */
	atomic_inc(&lwprof_adopting);
	ret = lwprof_session_populate(s, leader);
	if (!ret && list_empty(&s->threads))
		ret = -ESRCH;	/* a zombie: nothing left to account */
	if (ret) {
		atomic_dec(&lwprof_adopting);
		lwprof_session_destroy(s);
		goto out_unlock;
	}
	/* Threads running right now: settle their state, cache their entry. */
	on_each_cpu(lwprof_ms_cpu_adopt, NULL, 1);
	atomic_dec(&lwprof_adopting);
	file->private_data = s;
	list_add(&s->link, &lwprof_sessions);
out_unlock:
	mutex_unlock(&lwprof_sessions_mutex);
out_exec:
	if (leader)
		up_read(&leader->signal->exec_update_lock);
out_task:
	if (leader)
		put_task_struct(leader);
	return ret;
}

void lwprof_session_release(struct file *file)
{
	struct lwprof_session *s = file->private_data;

	if (!s)
		return;
	mutex_lock(&lwprof_sessions_mutex);
	list_del(&s->link);
	lwprof_session_destroy(s);
	mutex_unlock(&lwprof_sessions_mutex);
}

/*
 * Copy out the session's threads.  Exited threads' final records are
 * marked read only once the copy to user space succeeded, so a bad buffer
 * loses nothing; entries marked read whose task is gone are freed.
 */
long lwprof_session_read(struct file *file, struct lwprof_usage_read *req)
{
	struct lwprof_session *s = file->private_data;
	struct lwprof_thread_usage *ubuf = u64_to_user_ptr(req->buf);
	struct lwprof_thread_usage *recs = NULL;
	struct lwprof_thread **done = NULL;
	struct lwprof_thread *t, *tmp;
	unsigned int n, i = 0, ndone = 0, total = 0, live = 0;
	unsigned long flags;
	LIST_HEAD(gone);
	long ret = 0;
	u64 now;

	if (!s)
		return -EINVAL;
	mutex_lock(&s->read_mutex);	/* each final record goes out once */
	lwprof_guard_sweep(s);		/* what may not be read stops first */
	n = min_t(u32, req->count, LWPROF_READ_MAX);
	if (n) {
		recs = kvmalloc_array(n, sizeof(*recs), GFP_KERNEL);
		done = kvmalloc_array(n, sizeof(*done), GFP_KERNEL);
		if (!recs || !done) {
			ret = -ENOMEM;
			goto out;
		}
	}

	now = lwprof_now();
	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(t, &s->threads, snode) {
		bool exited = READ_ONCE(t->exited);

		if (t->flags & LWPROF_T_REPORTED)
			continue;	/* zombie: reported, not freed yet */
		total++;
		live += !exited;
		/*
		 * Forked, not yet woken: nothing counted, and its start is
		 * set at its wakeup (wake_up_new_task(), 16 ms later once
		 * under memory pressure); a record now would be another
		 * thread to the reader, whose key has the start time.
		 */
		if (i == n || READ_ONCE(t->newborn))
			continue;
		lwprof_thread_snapshot(t, now, &recs[i]);
		if (recs[i].flags & LWPROF_TU_EXITED)
			done[ndone++] = t;
		i++;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);

	if (i && copy_to_user(ubuf, recs, i * sizeof(*recs))) {
		ret = -EFAULT;
		goto out;
	}

	raw_spin_lock_irqsave(&s->lock, flags);
	while (ndone--) {
		t = done[ndone];
		t->flags |= LWPROF_T_REPORTED;
		if (t->flags & LWPROF_T_FREED) {
			lwprof_thread_unlisted(s, t);
			list_add(&t->snode, &gone);
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(t, tmp, &gone, snode) {
		list_del(&t->snode);
		lwprof_thread_free(t);
	}

	req->count = i;
	req->total = total;
	req->live = live;
	req->lost = atomic64_read(&s->lost);
	req->now_ns = now;
	req->stopped = READ_ONCE(s->stopped);
out:
	mutex_unlock(&s->read_mutex);
	kvfree(recs);
	kvfree(done);
	return ret;
}
