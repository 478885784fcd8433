// SPDX-License-Identifier: GPL-2.0
/*
 * Sample packets (struct lwprof_rec_sample): the fixed part, the user
 * registers, the frame-pointer walk of the user stack, the kernel stack
 * (-K) and a copy of the top of the user stack (whole, or as a delta
 * against the thread's previous copy: sdelta.c), in that order.
 *
 * A packet is built in a per-CPU scratch buffer, then copied into the ring
 * at its exact size: how much stack could be read is only known once it is
 * read.  Two scratch buffers per CPU: one for NMIs (hardware counters), one
 * for everything else, which builds with interrupts off, so nothing else
 * on the CPU can take the buffer meanwhile.
 *
 * User memory is read with copy_from_user_nofault(): page faults stay
 * disabled (a sample may be taken in any context), so what is not mapped
 * and present ends the walk or the copy.
 */
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "sample.h"

size_t lwprof_pkt_max(u32 max_depth, u32 kdepth, u32 stack_bytes)
{
	return sizeof(struct lwprof_rec_sample) + LWPROF_NR_REGS * sizeof(u64) +
	       (size_t)(max_depth + kdepth) * sizeof(u64) + stack_bytes;
}

void *lwprof_scratch(struct lwprof_smp *smp)
{
	unsigned int slot = smp_processor_id() * 2 + !!in_nmi();

	return smp->scratch + slot * smp->scratch_size;
}

/* Not a kernel or io_uring worker thread: one made to run user code. */
static bool lwprof_user_thread(struct task_struct *task)
{
	return !(task->flags & (PF_KTHREAD | PF_IO_WORKER));
}

/* A thread that runs user code. */
bool lwprof_user_task(struct task_struct *task)
{
	return lwprof_user_thread(task) && task->mm;
}

/* A thread that ran user code and is exiting: its memory is gone. */
bool lwprof_user_gone(struct task_struct *task)
{
	return lwprof_user_thread(task) && !task->mm;
}

/*
 * The user registers of current: the interrupted ones if it was in user
 * mode, else those saved when it entered the kernel (as perf does).
 */
struct pt_regs *lwprof_user_regs(struct pt_regs *regs)
{
	if (regs && user_mode(regs))
		return regs;
	if (!lwprof_user_task(current))
		return NULL;
	return task_pt_regs(current);
}

/* DWARF register order of x86-64: what libdw wants (LWPROF_NR_REGS). */
static void lwprof_put_regs(u64 *out, const struct pt_regs *regs)
{
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
}

struct lwprof_frame {
	u64 next;		/* the caller's frame pointer */
	u64 ret;		/* return address into the caller */
};

/*
 * Frame-pointer walk: the pc, then return addresses while the chain goes
 * up the stack.  Frames must lie above sp and each above the last, so a
 * garbage rbp (code without frame pointers) ends the walk quickly.
 */
static u32 lwprof_user_frames(struct pt_regs *regs, u64 *ips, u32 max,
			      u16 *flags)
{
	u64 fp = regs->bp, lo = regs->sp;
	struct lwprof_frame f;
	u32 n = 0;

	if (!max)
		return 0;
	ips[n++] = regs->ip;
	if (!user_64bit_mode(regs))
		return n;
	for (;;) {
		if (fp < lo || (fp & 7) || fp > TASK_SIZE_MAX - sizeof(f))
			break;
		if (copy_from_user_nofault(&f, (const void __user *)fp,
					   sizeof(f)) || !f.ret)
			break;
		if (n == max) {
			*flags |= LWPROF_RS_TRUNC;
			break;
		}
		ips[n++] = f.ret;
		lo = fp + sizeof(f);
		fp = f.next;
	}
	return n;
}

/* Return addresses from an unwind begun by the caller, after n of them. */
static u32 lwprof_unwind(struct unwind_state *state, u64 *ips, u32 n, u32 max,
			 u16 *flags)
{
	unsigned long addr;

	for (; !unwind_done(state); unwind_next_frame(state)) {
		addr = unwind_get_return_address(state);
		if (!addr)
			break;
		if (n == max) {
			*flags |= LWPROF_RS_KTRUNC;
			break;
		}
		ips[n++] = addr;
	}
	return n;
}

/* The kernel stack from regs, with the ORC unwinder (as perf does). */
static u32 lwprof_kernel_frames(struct pt_regs *regs, u64 *ips, u32 max,
				u16 *flags)
{
	struct unwind_state state;
	u32 n = 0;

	if (!max)
		return 0;
	if (regs->flags & X86_EFLAGS_FIXED) {
		/* Registers saved by an interrupt or exception entry. */
		ips[n++] = regs->ip;
		unwind_start(&state, current, regs, NULL);
	} else {
		/* Made up by perf_fetch_caller_regs(): only sp is good. */
		unwind_start(&state, current, NULL, (unsigned long *)regs->sp);
	}
	return lwprof_unwind(&state, ips, n, max, flags);
}

/*
 * The kernel stack of a task that is not running, as it left the CPU
 * (/proc/PID/stack's walk): __schedule, then its callers.  The caller
 * makes sure the task stays off CPU and alive meanwhile (sched_switch
 * about to run it, under its runqueue lock).
 */
u32 lwprof_task_kframes(struct task_struct *task, u64 *ips, u32 max,
			u16 *flags)
{
	struct unwind_state state;

	if (!max || task == current)
		return 0;
	unwind_start(&state, task, NULL, NULL);
	return lwprof_unwind(&state, ips, 0, max, flags);
}

/*
 * The kernel stack of current from the caller of the hook that asks (an
 * interrupt's exit: the interrupt's entry path, then what it interrupted),
 * below fn, the handler that ran, if known.  Frames in lwprof itself (the
 * probe) are left out.
 */
u32 lwprof_here_kframes(unsigned long fn, u64 *ips, u32 max, u16 *flags)
{
	struct unwind_state state;
	unsigned long addr;
	u32 n = 0;

	if (!max)
		return 0;
	if (fn)
		ips[n++] = fn;
	unwind_start(&state, current, NULL, __builtin_frame_address(0));
	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr || !within_module(addr, THIS_MODULE))
			break;
	}
	return lwprof_unwind(&state, ips, n, max, flags);
}

/* Copy up to want bytes of user stack from sp, a page at a time. */
u32 lwprof_user_stack(struct pt_regs *regs, u8 *dst, u32 want)
{
	unsigned long sp = regs->sp;
	u32 got = 0, chunk;

	while (got < want) {
		chunk = min_t(u32, want - got,
			      PAGE_SIZE - ((sp + got) & ~PAGE_MASK));
		if (copy_from_user_nofault(dst + got,
					   (const void __user *)(sp + got),
					   chunk))
			break;
		got += chunk;
	}
	return got;
}

/* Build pkt into buf (scratch); returns its size. */
u32 lwprof_pkt_build(struct lwprof_smp *smp, struct lwprof_pkt *pkt, void *buf)
{
	struct lwprof_rec_sample *rec = buf;
	u64 *p = (u64 *)(rec + 1);
	u16 flags = pkt->flags;
	u32 n, stack;

	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = LWPROF_REC_SAMPLE;
	rec->time_ns = pkt->time_ns;
	rec->pid = pkt->pid;
	rec->tid = pkt->tid;
	rec->cpu = smp_processor_id();
	rec->kind = pkt->kind;
	rec->counter = pkt->counter;
	rec->value = pkt->value;
	if (pkt->mstate)
		memcpy(rec->mstate_ns, pkt->mstate, sizeof(rec->mstate_ns));
	if (pkt->uregs && (smp->konly || pkt->upc)) {
		*p++ = pkt->uregs->ip;	/* the user pc alone: no user memory */
		rec->nr_user = 1;
	} else if (pkt->uregs) {
		flags |= LWPROF_RS_REGS;
		lwprof_put_regs(p, pkt->uregs);
		p += LWPROF_NR_REGS;
		n = lwprof_user_frames(pkt->uregs, p, smp->max_depth, &flags);
		rec->nr_user = n;
		p += n;
	}
	if (pkt->kb && smp->kdepth) {
		n = min_t(u32, pkt->kb->nr, smp->kdepth);
		memcpy(p, pkt->kb->ips, n * sizeof(u64));
		flags |= LWPROF_RS_KBLOCK | pkt->kb->flags;
		rec->nr_kernel = n;
		p += n;
	} else if (pkt->khere && smp->kdepth) {
		n = lwprof_here_kframes(pkt->kfn, p, smp->kdepth, &flags);
		rec->nr_kernel = n;
		p += n;
	} else if (pkt->ktask && smp->kdepth) {
		n = lwprof_task_kframes(pkt->ktask, p, smp->kdepth, &flags);
		flags |= LWPROF_RS_KBLOCK;
		rec->nr_kernel = n;
		p += n;
	} else if (pkt->kregs && smp->kdepth) {
		n = lwprof_kernel_frames(pkt->kregs, p, smp->kdepth, &flags);
		rec->nr_kernel = n;
		p += n;
	}
	if (pkt->uregs && smp->stack_bytes && !smp->konly && !pkt->upc) {
		stack = lwprof_sd_stack(smp, pkt, (u8 *)p, &flags);
		rec->stack_size = stack;
		memset((u8 *)p + stack, 0, ALIGN(stack, 8) - stack);
		p = (u64 *)((u8 *)p + ALIGN(stack, 8));
	}
	rec->hdr.flags = flags;
	rec->hdr.size = (u8 *)p - (u8 *)buf;
	return rec->hdr.size;
}

/*
 * Build pkt and write it into this CPU's ring; false if the ring was full.
 * Any context but with the CPU's scratch to itself: interrupts go off
 * here (in an NMI they are off already, and it has its own scratch).
 */
bool lwprof_pkt_emit(struct lwprof_smp *smp, struct lwprof_pkt *pkt)
{
	unsigned long flags;
	void *buf;
	bool ok;

	local_irq_save(flags);
	buf = lwprof_scratch(smp);
	ok = lwprof_ring_write(smp, buf, lwprof_pkt_build(smp, pkt, buf));
	lwprof_sd_done(pkt, ok);
	local_irq_restore(flags);
	return ok;
}
