// SPDX-License-Identifier: GPL-2.0
/*
 * Task and map records: who the threads are and what code their processes
 * have mapped, so that the analyzer can name threads and resolve sampled
 * addresses.
 *
 *  - TASK START for every thread of the session when sampling starts, then
 *    FORK (from the fork probe), EXEC, COMM (task_rename) and EXIT (from
 *    the thread's final context switch);
 *  - MMAP for every executable mapping of the session's processes when
 *    sampling starts (walking each mm in the ioctl's process context),
 *    after an EXEC for the new program's mappings (walking the new mm in
 *    the exec probe), and for every new executable mapping (dlopen(),
 *    mprotect(PROT_EXEC), JIT code) through a kprobe on perf_event_mmap(),
 *    which the kernel calls for each one whether perf listens or not.
 *    During an exec that kprobe stays quiet: the EXEC record comes first
 *    and resets the process's maps, then its mappings follow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "sample.h"

void lwprof_rec_task(struct lwprof_smp *smp, struct lwprof_thread *t,
		     u32 event, const char *comm)
{
	struct lwprof_rec_task rec = {
		.hdr.type = LWPROF_REC_TASK,
		.hdr.size = sizeof(rec),
		.time_ns = lwprof_now(),
		.pid = t->pid,
		.tid = t->tid,
		.ppid = t->ppid,
		.event = event,
	};

	strscpy_pad(rec.comm, comm, sizeof(rec.comm));
	preempt_disable();
	lwprof_ring_write(smp, &rec, sizeof(rec));
	preempt_enable();
}

/*
 * The session stopped recording t (guard.c), or, t NULL, ended (revoked):
 * why, at t's end (its final totals) or now.
 */
void lwprof_rec_stop(struct lwprof_smp *smp, struct lwprof_thread *t,
		     u32 reason)
{
	struct lwprof_rec_stop rec = {
		.hdr.type = LWPROF_REC_STOP,
		.hdr.size = sizeof(rec),
		.time_ns = t ? t->end_ns : lwprof_now(),
		.pid = t ? t->pid : 0,
		.tid = t ? t->tid : 0,
		.reason = reason,
	};

	if (t)
		strscpy_pad(rec.comm, t->comm, sizeof(rec.comm));
	preempt_disable();
	lwprof_ring_write(smp, &rec, sizeof(rec));
	preempt_enable();
}

/* Room to build a MMAP record: the record, then d_path()'s buffer. */
size_t lwprof_rec_mmap_max(void)
{
	return sizeof(struct lwprof_rec_mmap) + 2 * PATH_MAX;
}

static u32 lwprof_vm_prot(unsigned long vm_flags)
{
	return (vm_flags & VM_READ ? PROT_READ : 0) |
	       (vm_flags & VM_WRITE ? PROT_WRITE : 0) |
	       (vm_flags & VM_EXEC ? PROT_EXEC : 0);
}

/* Build vma's MMAP record in buf; returns its size. */
static u32 lwprof_rec_mmap_build(struct vm_area_struct *vma, u32 pid, u32 tid,
				 void *buf)
{
	struct lwprof_rec_mmap *rec = buf;
	char *tmp = (char *)buf + sizeof(*rec) + PATH_MAX;
	struct file *file = vma->vm_file;
	const char *name = NULL;
	u32 len, size;

	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = LWPROF_REC_MMAP;
	rec->time_ns = lwprof_now();
	rec->pid = pid;
	rec->tid = tid;
	rec->start = vma->vm_start;
	rec->len = vma->vm_end - vma->vm_start;
	rec->prot = lwprof_vm_prot(vma->vm_flags);
	if (file) {
		struct inode *inode = file_inode(file);

		name = d_path(&file->f_path, tmp, PATH_MAX);
		if (IS_ERR(name))
			name = "//unknown";
		rec->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
		rec->ino = inode->i_ino;
		rec->dev_major = MAJOR(inode->i_sb->s_dev);
		rec->dev_minor = MINOR(inode->i_sb->s_dev);
	} else {
		rec->hdr.flags = LWPROF_MMAP_ANON;
		if (vma->vm_ops && vma->vm_ops->name)
			name = vma->vm_ops->name(vma);	/* "[vdso]" */
		if (!name)
			name = "//anon";
	}
	len = strnlen(name, PATH_MAX - 1);
	size = ALIGN(sizeof(*rec) + len + 1, 8);
	memcpy(rec->path, name, len);
	memset(rec->path + len, 0, size - sizeof(*rec) - len);
	rec->hdr.size = size;
	return size;
}

/* One MMAP record (d_path() does not sleep; interrupts off for scratch). */
static void lwprof_rec_mmap(struct lwprof_smp *smp, struct vm_area_struct *vma,
			    u32 pid, u32 tid)
{
	unsigned long flags;
	void *buf;

	local_irq_save(flags);
	buf = lwprof_scratch(smp);
	lwprof_ring_write(smp, buf, lwprof_rec_mmap_build(vma, pid, tid, buf));
	local_irq_restore(flags);
}

/* Every executable mapping of mm; the caller holds its mmap lock. */
static void lwprof_rec_maps(struct lwprof_smp *smp, struct mm_struct *mm,
			    u32 pid, u32 tid)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma)
		if (vma->vm_flags & VM_EXEC)
			lwprof_rec_mmap(smp, vma, pid, tid);
}

/*
 * SAMPLE_START (sampling is active already, so threads and mappings made
 * meanwhile get their own records; a few may come twice): a START record
 * for every thread, then the mappings of every process.
 */
void lwprof_rec_initial(struct lwprof_smp *smp)
{
	struct lwprof_session *s = smp->session;
	struct mm_struct **seen, *mm;
	struct lwprof_task_ref *refs;
	struct lwprof_thread *t;
	unsigned long flags;
	int n, i, k, nseen = 0;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(t, &s->threads, snode)
		if (!t->exited)
			lwprof_rec_task(smp, t, LWPROF_TASK_START,
					t->task->comm);
	raw_spin_unlock_irqrestore(&s->lock, flags);

	n = lwprof_smp_tasks(s, &refs);
	if (n <= 0)
		return;
	seen = kvcalloc(n, sizeof(*seen), GFP_KERNEL);
	for (i = 0; seen && i < n; i++) {
		/* Maps are what ptrace keeps from those who may not trace. */
		if (!lwprof_user_task(refs[i].task) ||
		    !lwprof_guard_task(s, refs[i].task))
			continue;
		mm = get_task_mm(refs[i].task);
		if (!mm)
			continue;
		for (k = 0; k < nseen && seen[k] != mm; k++)
			;
		if (k == nseen && !mmap_read_lock_killable(mm)) {
			seen[nseen++] = mm;	/* compared, never used */
			lwprof_rec_maps(smp, mm, refs[i].pid, refs[i].tid);
			mmap_read_unlock(mm);
		}
		mmput(mm);
	}
	kvfree(seen);
	lwprof_smp_tasks_put(refs, n);
}

/* Hook: t ran exec (in its own context, preemption off). */
void lwprof_smp_exec(struct lwprof_thread *t, struct task_struct *p)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);
	struct mm_struct *mm = p->mm;

	if (!smp)
		return;
	lwprof_rec_task(smp, t, LWPROF_TASK_EXEC, p->comm);
	/* The new mm is this task's alone yet: the trylock succeeds. */
	if (mm && mmap_read_trylock(mm)) {
		lwprof_rec_maps(smp, mm, t->pid, t->tid);
		mmap_read_unlock(mm);
	}
}

/* Hook: t starts a new thread or process (child's entry is t). */
void lwprof_smp_fork(struct lwprof_thread *t, struct task_struct *child)
{
	struct lwprof_smp *smp = lwprof_smp_of(t);

	if (smp)
		lwprof_rec_task(smp, t, LWPROF_TASK_FORK, child->comm);
}

/* Probe on task_rename: the name is about to change to comm. */
void lwprof_smp_tp_rename(void *data, struct task_struct *task,
			  const char *comm)
{
	struct lwprof_thread *t;
	struct lwprof_smp *smp;

	if (lwprof_probes_dormant())
		return;
	t = lwprof_thread_find(task);
	smp = t ? lwprof_smp_of(t) : NULL;
	if (smp)
		lwprof_rec_task(smp, t, LWPROF_TASK_COMM, comm);
}

/*
 * perf_event_mmap(vma): a mapping was made or became executable, with the
 * mmap lock held for writing, in the process that maps it.
 */
static int lwprof_mmap_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	struct lwprof_thread *t;
	struct lwprof_smp *smp;

	if (lwprof_probes_dormant() || !(vma->vm_flags & VM_EXEC) ||
	    current->in_execve || vma->vm_mm != current->mm)
		return 0;
	rcu_read_lock();
	t = lwprof_thread_find(current);
	smp = t ? lwprof_smp_of(t) : NULL;
	if (smp && lwprof_guard(t))
		lwprof_rec_mmap(smp, vma, t->pid, t->tid);
	rcu_read_unlock();
	return 0;
}

static struct kprobe lwprof_mmap_kp;

/* With the other probes (probes.c); registering fills the kprobe in. */
int lwprof_mmap_hook_init(void)
{
	int ret;

	lwprof_mmap_kp = (struct kprobe) {
		.symbol_name = "perf_event_mmap",
		.pre_handler = lwprof_mmap_pre,
	};
	ret = register_kprobe(&lwprof_mmap_kp);

	if (ret)
		pr_err("cannot probe perf_event_mmap: %d\n", ret);
	return ret;
}

/* unregister_kprobe() waits until no handler runs. */
void lwprof_mmap_hook_exit(void)
{
	unregister_kprobe(&lwprof_mmap_kp);
}
