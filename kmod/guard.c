// SPDX-License-Identifier: GPL-2.0
/*
 * Whom a session may go on recording (docs/design/security.md has the rules and
 * their tests).
 *
 * The attach checks that its caller may ptrace the process, perf's rule
 * (ptrace_may_access(), PTRACE_MODE_READ_REALCREDS, LSMs included), and
 * holds the process's exec_update_lock until every thread has its entry,
 * so that no exec with new credentials comes in between (session.c).  A
 * thread may change what it is afterwards: exec a set-user-ID or
 * set-group-ID program, one with file capabilities or one the kernel runs
 * in secure mode; call setuid() or capset(); make itself non-dumpable
 * (prctl(PR_SET_DUMPABLE, 0), as ssh-agent and gpg-agent do).  A session
 * whose owner could not ptrace the thread then stops recording it: its
 * entry is closed as at an exit (its totals so far are final, flagged
 * LWPROF_TU_STOPPED with why), it leaves the table, so nothing of it is
 * counted, sampled, copied or named from then on and the threads it
 * creates are not followed, its microstate slot is given up, and its
 * session's rings get its last clock packet (no stack, as at an exit) and
 * a LWPROF_REC_STOP record.
 *
 * The rule after the attach is ptrace's own test of credentials
 * (__ptrace_may_access() and commoncap's cap_ptrace_access_check(), in
 * the REALCREDS mode): the owner's real user and group IDs are all of
 * the thread's and the thread's permitted capabilities are within the
 * owner's, or the owner has CAP_SYS_PTRACE in the thread's user namespace
 * (as the maker of that namespace has); and the thread's memory is
 * dumpable, or the owner has CAP_SYS_PTRACE in its namespace.  It is
 * worked out from the owner's credentials as the attach found them and
 * the thread's as they are: data alone, no lock, no LSM hook (those may
 * sleep or lock, which the scheduler's probes may not).  So what an LSM
 * decides by itself after the attach is seen through the exec it marks
 * secure (bprm->secureexec), not otherwise.
 *
 * When it is asked:
 *  - at every exec (the sched_process_exec probe), where a secure exec
 *    stops the thread whatever its IDs;
 *  - before every packet or record of a thread (the clock's tick, its
 *    return to user mode, its switch-in, a counter's overflow, a signal,
 *    the end of an interrupt, a new executable mapping, a fork): first
 *    whether its credentials and its memory's dumpability are what the
 *    last look found good (a pointer and two bits), the whole rule only
 *    if not.  A counter's NMI only drops the packet: the next hook stops
 *    the thread;
 *  - at READ_USAGE and SAMPLE_START, from the owner's side, which also
 *    covers sessions that take no packets (ptime, top): a thread that
 *    fails is taken out while it runs (lwprof_guard_take()).
 * A session whose owner may trace anything (CAP_PERFMON, CAP_SYS_ADMIN or
 * CAP_SYS_PTRACE at the attach, as perf_check_permission() allows) skips
 * all of this: root records everything.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "mstate.h"
#include "sample.h"

/*
 * Sessions of users without CAP_PERFMON or CAP_SYS_ADMIN, on processes
 * (a machine session needs one of them anyway): 2, on the processes they
 * may ptrace; 1, only while perf_event_open() is open to them too
 * (kernel.perf_event_paranoid below 3, or CAP_SYS_ADMIN, exactly perf's
 * rule); 0, none.
 */
static int user_access = 2;
module_param(user_access, int, 0644);
MODULE_PARM_DESC(user_access,
		 "sessions of users without CAP_PERFMON/CAP_SYS_ADMIN: 2 on the processes they may ptrace, 1 only while kernel.perf_event_paranoid < 3, 0 none");

/* May the caller trace any thread?  (No audit: asking is not using.) */
bool lwprof_guard_caller_priv(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}

/* May the caller open a session on a process at all (user_access)? */
int lwprof_guard_user(void)
{
	int level = READ_ONCE(user_access);

	if (level >= 2 || perfmon_capable())
		return 0;
	if (level == 1 && (lwprof_perf_paranoid() < 3 || capable(CAP_SYS_ADMIN)))
		return 0;
	return -EACCES;
}

/* A new session's owner is its caller, as it is now. */
int lwprof_guard_open(struct lwprof_session *s)
{
	s->owner = get_current_cred();
	s->priv = lwprof_guard_caller_priv();
	return 0;
}

void lwprof_guard_close(struct lwprof_session *s)
{
	if (s->owner)
		put_cred(s->owner);
}

/*
 * Has oc CAP_SYS_PTRACE in ns?  commoncap's cap_capable() without the
 * LSMs: its own namespace's capability, or ns is a namespace below one
 * that it made.
 */
static bool lwprof_owner_cap(const struct cred *oc, struct user_namespace *ns)
{
	for (;;) {
		if (ns == oc->user_ns)
			return cap_raised(oc->cap_effective, CAP_SYS_PTRACE);
		if (ns->level <= oc->user_ns->level)
			return false;
		if (ns->parent == oc->user_ns && uid_eq(ns->owner, oc->euid))
			return true;
		ns = ns->parent;
	}
}

/*
 * The rule: 0 if oc may trace a thread whose credentials are tc and
 * whose memory is mm (NULL: none, a kernel thread or one past exit_mm()),
 * else why not (LWPROF_STOP_*).
 */
static unsigned int lwprof_rule(const struct cred *oc, const struct cred *tc,
				struct mm_struct *mm)
{
	bool ids = uid_eq(oc->uid, tc->euid) && uid_eq(oc->uid, tc->suid) &&
		   uid_eq(oc->uid, tc->uid) && gid_eq(oc->gid, tc->egid) &&
		   gid_eq(oc->gid, tc->sgid) && gid_eq(oc->gid, tc->gid);
	bool caps = oc->user_ns == tc->user_ns &&
		    cap_issubset(tc->cap_permitted, oc->cap_permitted);

	if (!(ids && caps) && !lwprof_owner_cap(oc, tc->user_ns))
		return LWPROF_STOP_CREDS;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !lwprof_owner_cap(oc, mm->user_ns))
		return LWPROF_STOP_DUMPABLE;
	return 0;
}

/*
 * May t go on being recorded: 0, or why not.  Its task is current, or
 * cannot run meanwhile (sched_switch is about to run it, under its
 * runqueue lock); interrupts off, or in an NMI.  The whole rule is worked
 * out only when the credentials or the dumpability changed since the last
 * look that found them good.
 */
unsigned int lwprof_guard_why(struct lwprof_thread *t)
{
	struct task_struct *task = t->task;
	const struct cred *tc;
	struct mm_struct *mm;
	unsigned int why = 0;
	bool dumpable;

	if (t->session->priv)
		return 0;
	if (t->stopped || t->taking)
		return t->stopped ? : t->taking;
	rcu_read_lock();
	tc = rcu_dereference(task->real_cred);
	mm = READ_ONCE(task->mm);
	dumpable = !mm || get_dumpable(mm) == SUID_DUMP_USER;
	if (tc != READ_ONCE(t->cred_ok) || !dumpable) {
		why = lwprof_rule(t->session->owner, tc, mm);
		if (!why && dumpable)
			WRITE_ONCE(t->cred_ok, tc);
		/* Seen inside the exec that brought them (its switch-in). */
		if (why == LWPROF_STOP_CREDS && task->in_execve)
			why = LWPROF_STOP_EXEC;
	}
	rcu_read_unlock();
	return why;
}

/* Session lock held, t quiet: its totals are final from now, as at exit. */
static void lwprof_guard_final(struct lwprof_thread *t, unsigned int why,
			       u64 now)
{
	write_seqcount_begin(&t->seq);
	if (now > t->last_ns) {
		t->acc[t->state] += now - t->last_ns;
		t->last_ns = now;
	}
	t->end_ns = t->last_ns;
	lwprof_thread_final(t, t->task);
	t->stopped = why;
	t->exited = 1;
	write_seqcount_end(&t->seq);
	t->flags |= LWPROF_T_FREED;	/* out of the table: freed once read */
}

/*
 * Stop recording t, for why: on its CPU with interrupts off, its task
 * current or about to run here (not in an NMI).
 */
static void lwprof_guard_stop(struct lwprof_thread *t, unsigned int why)
{
	struct lwprof_session *s = t->session;

	raw_spin_lock(&s->lock);
	if (s->closing || t->exited || t->taking) {
		raw_spin_unlock(&s->lock);
		return;
	}
	lwprof_guard_final(t, why, lwprof_now());
	lwprof_thread_unhash(t);
	raw_spin_unlock(&s->lock);
	lwprof_us_release(t);
	/* This CPU's probes stop finding it; the next switch looks it up. */
	this_cpu_cmpxchg(lwprof_cpu.cur, t, NULL);
	lwprof_smp_stopped(t);
}

/* lwprof_guard() found t changed: stop it unless in an NMI.  False. */
bool __lwprof_guard(struct lwprof_thread *t)
{
	unsigned int why = lwprof_guard_why(t);
	unsigned long flags;

	if (likely(!why))
		return true;
	if (!in_nmi()) {
		local_irq_save(flags);
		lwprof_guard_stop(t, why);
		local_irq_restore(flags);
	}
	return false;
}

/*
 * The exec probe: t's task, current, has exec'd, its new credentials
 * committed.  Its microstate slot goes whatever they are: the new program
 * cannot see the area, and the processes that still map it must not see
 * this one.  False if t is no longer recorded.
 */
bool lwprof_guard_exec(struct lwprof_thread *t, struct linux_binprm *bprm)
{
	unsigned long flags;
	unsigned int why = 0;

	local_irq_save(flags);
	lwprof_us_release(t);
	if (!t->session->priv) {
		why = bprm->secureexec ? LWPROF_STOP_EXEC : lwprof_guard_why(t);
		if (why == LWPROF_STOP_CREDS)
			why = LWPROF_STOP_EXEC;	/* they came with the program */
		if (why)
			lwprof_guard_stop(t, why);
	}
	local_irq_restore(flags);
	return !why;
}

/*
 * The fork probe (the parent current, the child not yet run): may child
 * join the session of its parent's entry pt (NULL: the machine session's
 * threads, all of them)?  A parent found changed stops here.
 */
bool lwprof_guard_fork(struct lwprof_thread *pt, struct task_struct *child)
{
	unsigned int why;

	if (!pt || pt->session->priv)
		return true;
	if (!lwprof_guard(pt))
		return false;
	rcu_read_lock();
	why = lwprof_rule(pt->session->owner, rcu_dereference(child->real_cred),
			  child->mm);
	rcu_read_unlock();
	return !why;
}

/* Process context: why s may not record task now (0: it may). */
static unsigned int lwprof_guard_task_why(struct lwprof_session *s,
					  struct task_struct *task)
{
	unsigned int why;

	if (s->priv)
		return 0;
	task_lock(task);	/* its mm: it may be exiting */
	rcu_read_lock();
	why = lwprof_rule(s->owner, rcu_dereference(task->real_cred), task->mm);
	rcu_read_unlock();
	task_unlock(task);
	return why;
}

/* The attach, and the owner's ioctls: may s record task? */
bool lwprof_guard_task(struct lwprof_session *s, struct task_struct *task)
{
	return !lwprof_guard_task_why(s, task);
}

/*
 * Take threads out of s while they may be running (process context; the
 * caller holds s->read_mutex, so no read frees an entry meanwhile): the
 * entries marked with ->taking (the reason), and with why, every entry
 * still in the table.  Out of the table, then out of every CPU's cache,
 * a grace period after each; then nothing else touches them and their
 * totals are made final here.
 */
void lwprof_guard_take(struct lwprof_session *s, unsigned int why)
{
	struct lwprof_thread *t;
	struct { struct lwprof_thread *t; struct task_struct *task; } *v = NULL;
	unsigned int n = 0, max = 0, i;
	unsigned long flags;
	int cpu;
	u64 now;

	/*
	 * Count under the lock, and take only once the array holds them all:
	 * nothing is taken in a pass that must be redone.  A taken entry is
	 * marked TAKEN, so that the free probe, which may run for its task
	 * meanwhile, leaves the entry to us; we keep the task we hold a
	 * reference to beside it, and put that one back.
	 */
	for (;;) {
		raw_spin_lock_irqsave(&s->lock, flags);
		n = 0;
		list_for_each_entry(t, &s->threads, snode) {
			if (why && !(t->flags & LWPROF_T_FREED) && !t->taking)
				t->taking = why;
			if (t->taking && !(t->flags & LWPROF_T_FREED))
				n++;
		}
		if (n <= max)
			break;		/* the lock still held */
		raw_spin_unlock_irqrestore(&s->lock, flags);
		kvfree(v);
		max = n + 16;
		v = kvmalloc_array(max, sizeof(*v), GFP_KERNEL_ACCOUNT);
		if (!v)
			return;	/* they stay marked: no packets; next time */
	}
	n = 0;
	list_for_each_entry(t, &s->threads, snode) {
		if (!t->taking || (t->flags & LWPROF_T_FREED))
			continue;
		/*
		 * Not FREED, so the free probe has not ended the entry: the
		 * task's last reference, which the kernel drops after that
		 * probe has run (delayed_put_task_struct()), is still held,
		 * however far its exit has gone.  s is not closing here: a
		 * closing session's free probe leaves its entries alone.
		 */
		get_task_struct(t->task);
		lwprof_thread_unhash(t);
		t->flags |= LWPROF_T_TAKEN;
		v[n].t = t;
		v[n].task = t->task;
		n++;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (!n)
		goto out;
	synchronize_rcu();	/* no probe holds one from a lookup */
	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct lwprof_cpu *c = per_cpu_ptr(&lwprof_cpu, cpu);

		t = READ_ONCE(c->cur);
		if (t && t->session == s && t->taking)
			cmpxchg(&c->cur, t, NULL);
	}
	rcu_read_unlock();
	synchronize_rcu();	/* nor from a CPU's cache: they are ours now */

	now = lwprof_now();
	raw_spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < n; i++) {
		t = v[i].t;
		if (t->exited)
			t->flags |= LWPROF_T_FREED;	/* its exit stands */
		else
			lwprof_guard_final(t, t->taking, now);
		lwprof_us_release(t);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	for (i = 0; i < n; i++) {
		if (v[i].t->stopped)
			lwprof_smp_stopped(v[i].t);
		put_task_struct(v[i].task);
	}
out:
	kvfree(v);
}

/*
 * READ_USAGE and SAMPLE_START (the caller holds s->read_mutex): threads
 * that changed since the last look stop, also in sessions that take no
 * packets.
 */
void lwprof_guard_sweep(struct lwprof_session *s)
{
	struct lwprof_task_ref *refs;
	struct lwprof_thread *t;
	unsigned long flags;
	unsigned int why;
	bool any = false;
	int n, i;

	if (s->priv)
		return;
	n = lwprof_smp_tasks(s, &refs);
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		why = lwprof_guard_task_why(s, refs[i].task);
		if (!why)
			continue;
		raw_spin_lock_irqsave(&s->lock, flags);
		rcu_read_lock();
		t = lwprof_thread_find(refs[i].task);
		if (t && t->session == s && !t->exited && !t->taking) {
			t->taking = why;
			any = true;
		}
		rcu_read_unlock();
		raw_spin_unlock_irqrestore(&s->lock, flags);
	}
	lwprof_smp_tasks_put(refs, n);
	if (any)
		lwprof_guard_take(s, 0);
}

/*
 * perf_event_open()'s own rules for counters, which
 * perf_event_create_kernel_counter() skips: at perf_event_paranoid 3 and
 * above (Debian's "no perf for users") only CAP_SYS_ADMIN; the LSM hook
 * for the open, for an event that counts in the kernel, and for a CPU's
 * events.
 */
int lwprof_guard_counter(struct perf_event_attr *attr, bool cpu)
{
	int ret;

	if (lwprof_perf_paranoid() > 2 && !capable(CAP_SYS_ADMIN))
		return -EACCES;
	ret = lwprof_perf_lsm(attr, PERF_SECURITY_OPEN);
	if (!ret && !attr->exclude_kernel)
		ret = lwprof_perf_lsm(attr, PERF_SECURITY_KERNEL);
	if (!ret && cpu) {
		if (lwprof_perf_paranoid() > 0 && !perfmon_capable())
			return -EACCES;
		ret = lwprof_perf_lsm(attr, PERF_SECURITY_CPU);
	}
	return ret;
}

/*
 * Kernel stacks (-K) are kernel data as perf's kernel callchains are:
 * perf_allow_kernel(), CAP_PERFMON or perf_event_paranoid at most 1, and
 * the LSM hook for the kernel.  0, or the errno.
 */
int lwprof_guard_kernel(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
	};

	if (lwprof_perf_paranoid() > 1 && !perfmon_capable())
		return -EPERM;
	return lwprof_perf_lsm(&attr, PERF_SECURITY_KERNEL);
}
