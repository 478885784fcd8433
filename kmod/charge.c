// SPDX-License-Identifier: GPL-2.0
/*
 * A session's memory, charged to its owner as perf charges its buffers
 * (docs/design/security.md has the limits):
 *  - what the session pins for its life and user space maps (the rings,
 *    the scratch space packets are built in) is locked memory: charged to
 *    the owner's user->locked_vm up to kernel.perf_event_mlock_kb per
 *    online CPU, the budget perf_mmap() charges the same counter against,
 *    then to the process's RLIMIT_MEMLOCK (mm->pinned_vm), as perf_mmap()
 *    does; past both, EDQUOT, unless the caller has CAP_IPC_LOCK,
 *    CAP_PERFMON or CAP_SYS_ADMIN or perf_event_paranoid is -1;
 *  - everything is allocated with __GFP_ACCOUNT, in the owner's memory
 *    cgroup, which memory.max bounds and the OOM killer sees.  What the
 *    probes allocate for a thread (its entry, its stack-delta base, its
 *    saved kernel frames) goes there too (set_active_memcg()), without
 *    reclaim: past the cgroup's limit a probe does without (a thread it
 *    cannot give an entry is counted as lost);
 *  - a user without CAP_PERFMON or CAP_SYS_ADMIN holds at most
 *    user_sessions sessions at once, each with at most user_threads
 *    threads (live, or exited and not read yet); an exited thread's
 *    buffers go with its task (thread.c), only its totals wait.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "internal.h"

static unsigned int user_sessions = 64;
module_param(user_sessions, uint, 0644);
MODULE_PARM_DESC(user_sessions,
		 "sessions a user without CAP_PERFMON/CAP_SYS_ADMIN may hold at once");

static unsigned int user_threads = 32768;
module_param(user_threads, uint, 0644);
MODULE_PARM_DESC(user_threads,
		 "threads (live, or exited and not read) in such a user's session; more are lost");

/* The budget's check and its charge are one step for every session. */
static DEFINE_MUTEX(lwprof_charge_mutex);

int lwprof_charge_open(struct lwprof_session *s)
{
	s->user = get_current_user();
	s->memcg = get_mem_cgroup_from_mm(current->mm);
	s->max_threads = s->priv ? 0 : READ_ONCE(user_threads);
	return 0;
}

void lwprof_charge_close(struct lwprof_session *s)
{
	mem_cgroup_put(s->memcg);
	if (s->user)
		free_uid(s->user);
}

/* How many sessions the caller may hold at once (0: no limit). */
unsigned int lwprof_charge_max_sessions(void)
{
	return perfmon_capable() ? 0 : READ_ONCE(user_sessions);
}

/*
 * Charge pages of locked memory to s's owner (process context, the
 * caller's process pays what the user's budget does not): 0, or -EDQUOT.
 */
int lwprof_charge_lock(struct lwprof_session *s, struct lwprof_locked *l,
		       unsigned long pages)
{
	unsigned long limit, locked, extra = 0;
	struct mm_struct *mm = current->mm;
	int ret = 0;

	limit = ((unsigned long)lwprof_perf_mlock_kb() >> (PAGE_SHIFT - 10)) *
		num_online_cpus();
	mutex_lock(&lwprof_charge_mutex);
	locked = atomic_long_read(&s->user->locked_vm);
	/* perf_event_mlock_kb may have been lowered since. */
	locked = min(locked, limit);
	if (locked + pages > limit)
		extra = locked + pages - limit;
	if (extra) {
		if (!mm) {
			ret = -EDQUOT;
			goto out;
		}
		if (atomic64_read(&mm->pinned_vm) + extra >
		    rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT &&
		    lwprof_perf_paranoid() > -1 && !capable(CAP_IPC_LOCK) &&
		    !perfmon_capable()) {
			ret = -EDQUOT;
			goto out;
		}
		atomic64_add(extra, &mm->pinned_vm);
		mmgrab(mm);
		l->mm = mm;
		l->mm_pages = extra;
	}
	l->user_pages = pages - extra;
	atomic_long_add(l->user_pages, &s->user->locked_vm);
out:
	mutex_unlock(&lwprof_charge_mutex);
	return ret;
}

void lwprof_charge_unlock(struct lwprof_session *s, struct lwprof_locked *l)
{
	atomic_long_sub(l->user_pages, &s->user->locked_vm);
	if (l->mm) {
		atomic64_sub(l->mm_pages, &l->mm->pinned_vm);
		mmdrop(l->mm);
	}
	memset(l, 0, sizeof(*l));
}

/*
 * From a probe: size bytes for one of s's threads, in its owner's memory
 * cgroup (gfp without reclaim).
 */
void *lwprof_charge_alloc(struct lwprof_session *s, size_t size, gfp_t gfp)
{
	struct mem_cgroup *old = set_active_memcg(s->memcg);
	void *p = kmalloc(size, gfp | __GFP_ACCOUNT);

	set_active_memcg(old);
	return p;
}

/*
 * size bytes of zeroed pages (a multiple of PAGE_SIZE) in one kernel
 * mapping that remap_vmalloc_range() can map to user space: what
 * vmalloc_user() gives, charged to the caller's memory cgroup (the BPF
 * ring buffer's way).  *pages gets the pages, for
 * lwprof_charge_vunmap().
 */
void *lwprof_charge_vmap(size_t size, struct page ***pages)
{
	unsigned int i, n = size >> PAGE_SHIFT;
	struct page **p;
	void *mem = NULL;

	p = kvcalloc(n, sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		p[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				  __GFP_NOWARN);
		if (!p[i])
			break;
	}
	if (i == n)
		mem = vmap(p, n, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (mem) {
		*pages = p;
		return mem;
	}
	while (i--)
		__free_page(p[i]);
	kvfree(p);
	return NULL;
}

void lwprof_charge_vunmap(void *mem, size_t size, struct page **pages)
{
	unsigned int i, n = size >> PAGE_SHIFT;

	if (!mem)
		return;
	vunmap(mem);
	for (i = 0; i < n; i++)
		__free_page(pages[i]);	/* user mappings hold their own */
	kvfree(pages);
}
