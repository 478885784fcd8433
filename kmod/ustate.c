// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's own microstates, read without a system call (ABI 1.5,
 * uapi/lwprof.h's LWPROF_IOC_USTATE_*): the tracing library reads them at
 * the start and end of each traced call, so that a 300 ms mutex wait is
 * recorded as its User Lock, Wait CPU and the rest, exactly.
 *
 * An area is an anonymous file of LWPROF_USTATE_SLOTS slots whose pages
 * are allocated as slots are claimed, or read, and mapped read-only into
 * user space by its fault handler.  A thread claims a slot by the address of a
 * mapping of the area (through /dev/lwprof: the area's descriptor is not
 * needed after the mmap, so a program that closes every descriptor does
 * not take it away).  A thread that claims a slot has it written at
 * every return to user mode (lwprof_us_publish(), from the user-return
 * notifier): the only moments its user code can look.
 *
 * Lifetimes: the area holds its pages; the file and every thread entry
 * with a slot in it hold a reference to the area; a user mapping holds the
 * file and, per page it faulted in, the page.  A slot is given up when its
 * thread exits (its last switch), claims another, or its entry is freed
 * (after its session ends): then its tid is 0 before its bit is free.
 *
 * Who writes a slot: its owner's own CPU (claim, publish, release at the
 * last switch), or the entry's RCU callback once no probe can find the
 * entry; a claim takes a slot only after the release that freed it
 * (bit lock and unlock), so two writers never meet.  Readers may be any
 * thread of a process that maps the area: seq is odd while a slot is
 * written, and changes with every write.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "internal.h"

#define LWPROF_US_PER_PAGE	(PAGE_SIZE / sizeof(struct lwprof_ustate))
#define LWPROF_US_PAGES		(LWPROF_USTATE_SLOTS / LWPROF_US_PER_PAGE)

static_assert(sizeof(struct lwprof_ustate) == 128);
static_assert(LWPROF_USTATE_SLOTS % LWPROF_US_PER_PAGE == 0);

struct lwprof_us_area {
	struct kref ref;
	struct page *pages[LWPROF_US_PAGES];	/* set once, by cmpxchg */
	unsigned long used[BITS_TO_LONGS(LWPROF_USTATE_SLOTS)];
};

static void lwprof_us_area_free(struct kref *ref)
{
	struct lwprof_us_area *a = container_of(ref, struct lwprof_us_area, ref);
	unsigned int i;

	for (i = 0; i < LWPROF_US_PAGES; i++)
		if (a->pages[i])
			__free_page(a->pages[i]);	/* mappings hold their own */
	kfree(a);
}

static struct lwprof_ustate *lwprof_us_slot(struct lwprof_us_area *a,
					    unsigned int slot)
{
	struct lwprof_ustate *p = page_address(a->pages[slot / LWPROF_US_PER_PAGE]);

	return p + slot % LWPROF_US_PER_PAGE;
}

/* Give up t's slot: no owner (tid 0) before another may claim it. */
void lwprof_us_release(struct lwprof_thread *t)
{
	struct lwprof_ustate *us = t->us;

	if (!us)
		return;
	t->us = NULL;
	t->us_on = 0;
	lwprof_us_store(us, NULL, 0);
	/* Release: the slot's last write before its next owner's first. */
	clear_bit_unlock(t->us_slot, t->us_area->used);
}

/* t's entry is being freed (an RCU callback): its slot and reference go. */
void lwprof_us_drop(struct lwprof_thread *t)
{
	lwprof_us_release(t);
	if (t->us_area)
		kref_put(&t->us_area->ref, lwprof_us_area_free);
}

/* Page pg of a, allocated on first use (a claim, or a read of it). */
static struct page *lwprof_us_page(struct lwprof_us_area *a, unsigned int pg)
{
	/* Pairs with the cmpxchg below: a page seen is zeroed. */
	struct page *page = smp_load_acquire(&a->pages[pg]), *old;

	if (page)
		return page;
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page)
		return NULL;
	/* A full barrier: the zeroed page before the pointer. */
	old = cmpxchg(&a->pages[pg], NULL, page);
	if (old) {
		__free_page(page);
		page = old;
	}
	return page;
}

/* A free slot of a, its page allocated: its index, or -errno. */
static int lwprof_us_slot_get(struct lwprof_us_area *a)
{
	unsigned int slot;

	do {
		slot = find_first_zero_bit(a->used, LWPROF_USTATE_SLOTS);
		if (slot >= LWPROF_USTATE_SLOTS)
			return -ENOSPC;
		/* Acquire: pairs with lwprof_us_release()'s unlock. */
	} while (test_and_set_bit_lock(slot, a->used));
	if (!lwprof_us_page(a, slot / LWPROF_US_PER_PAGE)) {
		clear_bit_unlock(slot, a->used);
		return -ENOMEM;
	}
	return slot;
}

static const struct vm_operations_struct lwprof_us_vm_ops;

/* The area mapped at addr in the caller's address space, referenced. */
static struct lwprof_us_area *lwprof_us_area_at(u64 addr)
{
	struct mm_struct *mm = current->mm;
	struct lwprof_us_area *a = NULL;
	struct vm_area_struct *vma;

	if (!mm || addr >= TASK_SIZE_MAX)
		return NULL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	/* The mapping holds the file, the file the area. */
	if (vma && vma->vm_ops == &lwprof_us_vm_ops && addr == vma->vm_start) {
		a = vma->vm_file->private_data;
		kref_get(&a->ref);
	}
	mmap_read_unlock(mm);
	return a;
}

long lwprof_us_claim(struct lwprof_ustate_claim *req)
{
	struct lwprof_us_area *a, *old_area = NULL;
	struct lwprof_thread *t;
	unsigned long flags;
	int slot, ret;

	if (req->flags)
		return -EINVAL;
	a = lwprof_us_area_at(req->area);
	if (!a)
		return -EINVAL;
	slot = lwprof_us_slot_get(a);
	if (slot < 0) {
		ret = slot;
		goto out;
	}
	/*
	 * Interrupts off: the probes of this CPU (an interrupt's TRAP time)
	 * are the only other writers of the running thread's entry, so the
	 * copy below is consistent; the user-return notifier that publishes
	 * the slot runs on this thread's way out of this call.  Under RCU:
	 * an entry found here is freed only after this section.
	 */
	rcu_read_lock();
	local_irq_save(flags);
	t = lwprof_thread_find(current);
	if (t && !t->exited) {
		lwprof_us_release(t);
		old_area = t->us_area;
		t->us_area = a;		/* takes the lookup's reference */
		a = NULL;
		t->us_slot = slot;
		t->us = lwprof_us_slot(t->us_area, slot);
		t->us_on = 1;
		lwprof_us_store(t->us, t, task_pid_vnr(current));
		ret = slot;
	} else {
		ret = -ESRCH;
	}
	local_irq_restore(flags);
	rcu_read_unlock();
	if (ret < 0)
		clear_bit_unlock(slot, a->used);
out:
	if (a)
		kref_put(&a->ref, lwprof_us_area_free);
	if (old_area)
		kref_put(&old_area->ref, lwprof_us_area_free);
	return ret;
}

/* A page of slots (zeros where none is claimed yet). */
static vm_fault_t lwprof_us_fault(struct vm_fault *vmf)
{
	struct lwprof_us_area *a = vmf->vma->vm_file->private_data;
	struct page *page;

	if (vmf->pgoff >= LWPROF_US_PAGES)
		return VM_FAULT_SIGBUS;
	page = lwprof_us_page(a, vmf->pgoff);
	if (!page)
		return VM_FAULT_OOM;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct lwprof_us_vm_ops = {
	.fault = lwprof_us_fault,
};

/*
 * Read-only and shared (MAP_SHARED of a read-only file: VM_MAYSHARE, not
 * VM_SHARED), from offset 0; fork keeps it.
 */
static int lwprof_us_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_MAYSHARE) || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start > LWPROF_US_PAGES * PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	lwprof_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
			    VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_ops = &lwprof_us_vm_ops;
	return 0;
}

static int lwprof_us_file_release(struct inode *inode, struct file *file)
{
	struct lwprof_us_area *a = file->private_data;

	kref_put(&a->ref, lwprof_us_area_free);
	return 0;
}

static const struct file_operations lwprof_us_fops = {
	.owner		= THIS_MODULE,
	.release	= lwprof_us_file_release,
	.mmap		= lwprof_us_mmap,
};

/* A new area, as a new descriptor (its number is the ioctl's return). */
long lwprof_us_open(struct lwprof_ustate_open *req)
{
	struct lwprof_us_area *a;
	int fd;

	if (req->flags)
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	kref_init(&a->ref);
	fd = anon_inode_getfd("[lwprof-ustate]", &lwprof_us_fops, a,
			      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		kfree(a);
	return fd;
}
