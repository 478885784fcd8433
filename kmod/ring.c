// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU rings a sampling session writes its records into and user
 * space maps (uapi/lwprof_record.h has the layout and the protocol).
 *
 * A ring belongs to one CPU, and only code running on that CPU, with
 * preemption off, writes it.  Writers nest: a record being written from a
 * system call path (a task record, say) can be interrupted by the clock
 * tick, and that by a hardware counter's NMI, each writing a record of
 * its own.  So, as in perf's ring buffer:
 *  - space is reserved by a cmpxchg on the private head (local_t: atomic
 *    against interrupts and NMIs on this CPU, no lock, no bus lock);
 *  - only the outermost writer publishes head to user space, after every
 *    nested writer has finished its record; so user space never sees a
 *    reserved but unwritten byte;
 *  - the reader is woken by an irq_work (never by the writer itself: the
 *    writer may hold the runqueue lock or be in an NMI), once head passed
 *    the watermark since the last wakeup.
 *
 * A record that does not fit is dropped and counted; the next one that
 * fits is preceded by a LWPROF_REC_LOST record with the count.
 *
 * The memory is freed with the session, when the file is released: every
 * mapping holds a reference to the file, so that is after the last munmap.
 * It is the owner's locked memory, in its memory cgroup (charge.c).
 */
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sample.h"

static void lwprof_ring_wake(struct irq_work *work)
{
	struct lwprof_ring *r = container_of(work, struct lwprof_ring, work);

	wake_up_interruptible_poll(r->wq, EPOLLIN | EPOLLRDNORM);
}

int lwprof_rings_alloc(struct lwprof_smp *smp, u32 data_pages, u32 watermark)
{
	u64 size = (u64)data_pages << PAGE_SHIFT;
	unsigned int i;

	smp->nr_rings = nr_cpu_ids;
	smp->mmap_size = PAGE_SIZE + size;
	smp->rings = kcalloc(smp->nr_rings, sizeof(*smp->rings),
			     GFP_KERNEL_ACCOUNT);
	if (!smp->rings)
		return -ENOMEM;
	for (i = 0; i < smp->nr_rings; i++) {
		struct lwprof_ring *r = &smp->rings[i];
		/* Zeroed, mappable, charged to the owner's cgroup. */
		u8 *mem = lwprof_charge_vmap(smp->mmap_size, &r->pages);

		if (!mem) {
			lwprof_rings_free(smp);
			return -ENOMEM;
		}
		r->ctl = (struct lwprof_ring_ctl *)mem;
		r->data = mem + PAGE_SIZE;
		r->size = size;
		local_set(&r->head, 0);
		local_set(&r->nest, 0);
		local_set(&r->lost, 0);
		local_set(&r->records, 0);
		local_set(&r->dropped, 0);
		r->watermark = watermark;
		r->wake_at = watermark;
		r->cpu = i;
		r->wq = &smp->wq;
		init_irq_work(&r->work, lwprof_ring_wake);
		r->ctl->data_size = size;
		r->ctl->data_offset = PAGE_SIZE;
		r->ctl->cpu = i;
		r->ctl->watermark = watermark;
	}
	return 0;
}

/*
 * No writer is left (the session's hooks, timers and counters are gone and
 * an RCU grace period has passed); wait for queued wakeups, then free.
 */
void lwprof_rings_free(struct lwprof_smp *smp)
{
	unsigned int i;

	if (!smp->rings)
		return;
	for (i = 0; i < smp->nr_rings; i++) {
		struct lwprof_ring *r = &smp->rings[i];

		if (!r->ctl)
			continue;
		irq_work_sync(&r->work);
		lwprof_charge_vunmap(r->ctl, smp->mmap_size, r->pages);
	}
	kfree(smp->rings);
	smp->rings = NULL;
}

/* Copy len bytes to byte pos of the data, wrapping around its end. */
static void lwprof_ring_copy(struct lwprof_ring *r, u64 pos, const void *src,
			     u32 len)
{
	u64 off = pos & (r->size - 1);
	u64 first = min_t(u64, len, r->size - off);

	memcpy(r->data + off, src, first);
	if (first < len)
		memcpy(r->data, (const u8 *)src + first, len - first);
}

/*
 * Reserve size bytes at the head, preceded by a LOST record if records
 * were dropped since the last one.  On success *pos is where the record
 * goes.  On failure the record is counted as dropped.  Either way the
 * caller ends with lwprof_ring_publish().
 */
static bool lwprof_ring_reserve(struct lwprof_ring *r, u32 size, u64 *pos)
{
	u64 head, tail, used, need;
	long lost;

	local_inc(&r->nest);
	/* Compiler barrier: nest is raised before we look at head. */
	barrier();
	lost = local_xchg(&r->lost, 0);
	need = size + (lost ? sizeof(struct lwprof_rec_lost) : 0);
	do {
		/*
		 * Acquire, pairing with the reader's store-release of tail:
		 * its reads of the bytes it consumed happen before our writes
		 * to that space.  A tail beyond head (a confused reader) only
		 * makes the ring look full: we never address by tail.
		 */
		tail = smp_load_acquire(&r->ctl->tail);
		head = local_read(&r->head);
		used = head - tail;
		if (used > r->size || need > r->size - used) {
			local_add(lost + 1, &r->lost);
			local_inc(&r->dropped);
			return false;
		}
	} while (local_cmpxchg(&r->head, head, head + need) != head);

	if (lost) {
		struct lwprof_rec_lost rec = {
			.hdr.type = LWPROF_REC_LOST,
			.hdr.size = sizeof(rec),
			.time_ns = lwprof_now(),
			.lost = lost,
			.cpu = r->cpu,
		};

		lwprof_ring_copy(r, head, &rec, sizeof(rec));
		head += sizeof(rec);
		local_inc(&r->records);
	}
	local_inc(&r->records);
	*pos = head;
	return true;
}

/*
 * Leave the ring; the outermost writer publishes head for every record
 * reserved so far, all of which are complete by now (nested writers ran
 * to their end before we resumed).
 */
static void lwprof_ring_publish(struct lwprof_ring *r)
{
	u64 head;

	if (local_read(&r->nest) > 1) {
		local_dec(&r->nest);
		return;
	}
again:
	head = local_read(&r->head);
	/*
	 * Release, pairing with the reader's load-acquire of head: the bytes
	 * of every record before head are visible to a reader that sees it.
	 */
	smp_store_release(&r->ctl->head, head);
	WRITE_ONCE(r->ctl->records, local_read(&r->records));
	WRITE_ONCE(r->ctl->lost, local_read(&r->dropped));
	if (head >= r->wake_at) {
		r->wake_at = head + r->watermark;
		irq_work_queue(&r->work);
	}
	/*
	 * A writer that interrupted us after we read head saw nest > 1 and
	 * left its record to us: once we are out, look again.  Compiler
	 * barriers suffice: only this CPU touches nest and the private head.
	 */
	barrier();
	local_set(&r->nest, 0);
	barrier();
	if (unlikely(head != (u64)local_read(&r->head))) {
		local_set(&r->nest, 1);
		goto again;
	}
}

/*
 * Write one record (size a multiple of 8) into this CPU's ring.  Caller
 * has preemption off.  False if it was dropped (ring full).
 */
bool lwprof_ring_write(struct lwprof_smp *smp, const void *rec, u32 size)
{
	struct lwprof_ring *r = &smp->rings[smp_processor_id()];
	bool ok;
	u64 pos;

	lockdep_assert_preemption_disabled();
	ok = lwprof_ring_reserve(r, size, &pos);
	if (ok)
		lwprof_ring_copy(r, pos, rec, size);
	lwprof_ring_publish(r);
	return ok;
}

/* Does a reader have something to do?  (poll) */
bool lwprof_rings_ready(struct lwprof_smp *smp, bool stopped)
{
	unsigned int i;

	for (i = 0; i < smp->nr_rings; i++) {
		struct lwprof_ring *r = &smp->rings[i];
		u64 used = READ_ONCE(r->ctl->head) - READ_ONCE(r->ctl->tail);

		if (used && (stopped || used >= r->watermark))
			return true;
	}
	return false;
}

void lwprof_rings_totals(struct lwprof_smp *smp, u64 *records, u64 *lost)
{
	unsigned int i;

	*records = 0;
	*lost = 0;
	for (i = 0; i < smp->nr_rings; i++) {
		*records += local_read(&smp->rings[i].records);
		*lost += local_read(&smp->rings[i].dropped);
	}
}

/*
 * mmap(): ring cpu at offset cpu * mmap_size, exactly mmap_size bytes,
 * shared.  User space writes only the tail; it may not execute the ring,
 * and children do not inherit the mapping.
 */
int lwprof_rings_mmap(struct lwprof_smp *smp, struct vm_area_struct *vma)
{
	unsigned long pages = smp->mmap_size >> PAGE_SHIFT;
	unsigned long cpu;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (vma->vm_end - vma->vm_start != smp->mmap_size ||
	    vma->vm_pgoff % pages)
		return -EINVAL;
	cpu = vma->vm_pgoff / pages;
	if (cpu >= smp->nr_rings)
		return -EINVAL;
	lwprof_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			    VM_MAYEXEC);
	return remap_vmalloc_range(vma, smp->rings[cpu].ctl, 0);
}
