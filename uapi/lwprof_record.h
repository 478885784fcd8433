/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lwprof records (ABI 1.1, 1.2: delta stack copies, 1.4: off-CPU kernel
 * stacks, idle and interrupt packets, 1.7: stop records): what the module
 * writes into its per-CPU rings,
 * and what the recorder copies, byte for byte, into an experiment's
 * cpu.N.rec files (after the file header of libexp/format.h; the
 * experiment's format, and how readers treat records of a newer one, is
 * docs/design/experiment-format.md).  The rules of lwprof.h apply; also:
 *  - every record starts with struct lwprof_rec; size counts the header and
 *    everything after it and is a multiple of 8; a reader skips types it
 *    does not know by size (and, in a file of a newer format minor, fields
 *    appended to a known record and flag bits it does not know: new flags
 *    never change the layout of the known parts; docs/design/experiment-format.md);
 *  - byte order is the machine's; the file header says which;
 *  - times are CLOCK_MONOTONIC nanoseconds, as in lwprof_thread_usage.
 */
#ifndef _UAPI_LWPROF_RECORD_H
#define _UAPI_LWPROF_RECORD_H

#include <linux/types.h>

/*
 * A ring: one control page, then data_size bytes of data (a power of two)
 * mapped right after it.  head and tail count bytes since the start and
 * only grow; the data at byte n is at data[n & (data_size - 1)], so a
 * record may wrap around the end of the data.
 *
 * Ordering (libperf's and the BPF ring buffer's protocol):
 *  - the module writes records at head, then publishes head with a
 *    store-release: a reader that load-acquires head sees the records
 *    before it;
 *  - the reader copies or writes out [tail, head), then publishes tail
 *    with a store-release: the module load-acquires tail and reuses the
 *    space only after that;
 *  - when a record does not fit in data_size - (head - tail) it is dropped
 *    and lost is incremented; the next record that fits is preceded by a
 *    LWPROF_REC_LOST record carrying the count dropped since the last one.
 */
struct lwprof_ring_ctl {
	__u64 head;		/* module: bytes written */
	__u64 pad_head[7];	/* head and tail on their own cache lines */
	__u64 tail;		/* reader: bytes consumed */
	__u64 pad_tail[7];
	__u64 data_size;	/* bytes of data, a power of two */
	__u64 data_offset;	/* from the start of the mapping: a page */
	__u64 records;		/* records written */
	__u64 lost;		/* records dropped, ring full */
	__u32 cpu;
	__u32 watermark;	/* POLLIN when head - tail >= watermark */
	__u64 reserved[11];
};

/* Every record begins with this. */
struct lwprof_rec {
	__u16 type;		/* LWPROF_REC_* */
	__u16 flags;		/* per type */
	__u32 size;		/* bytes, this header included, multiple of 8 */
};

#define LWPROF_REC_SAMPLE	1	/* struct lwprof_rec_sample */
#define LWPROF_REC_TASK		2	/* struct lwprof_rec_task */
#define LWPROF_REC_MMAP		3	/* struct lwprof_rec_mmap */
#define LWPROF_REC_LOST		4	/* struct lwprof_rec_lost */
#define LWPROF_REC_STOP		5	/* 1.7: struct lwprof_rec_stop */

/*
 * The user registers of a sample, in the DWARF register order of x86-64
 * (what libdw's set_initial_registers wants): rax, rdx, rcx, rbx, rsi,
 * rdi, rbp, rsp, r8 ... r15, then the return address (rip).  A cpu.N.rec
 * file's header names this set (e_machine, reg_mask, nr_regs): readers
 * lay samples out with its count (libexp/sample.h).
 */
#define LWPROF_NR_REGS		17
#define LWPROF_REG_BP		6
#define LWPROF_REG_SP		7
#define LWPROF_REG_IP		16

/*
 * lwprof_rec_sample.hdr.flags.  EXIT: the last packet of an exiting
 * thread, without a stack: charge it where the thread's previous packet
 * went.  DEFERRED: taken at the return to user mode that followed the
 * interval's end.  KMODE: taken while the thread ran in the kernel.
 */
#define LWPROF_RS_REGS		0x0001	/* regs[] present */
#define LWPROF_RS_TRUNC		0x0002	/* user frame walk hit max_depth */
#define LWPROF_RS_KMODE		0x0004	/* the thread was in the kernel */
#define LWPROF_RS_EXIT		0x0008	/* last packet of an exiting thread */
#define LWPROF_RS_DEFERRED	0x0010	/* at the next return to user mode */
#define LWPROF_RS_KTRUNC	0x0020	/* kernel frame walk hit max_depth */
#define LWPROF_RS_SDELTA	0x0040	/* 1.2: stack[] is a struct lwprof_sdelta */
#define LWPROF_RS_SBASE		0x0080	/* 1.2: this copy is the next delta's base */
/*
 * 1.4.  KBLOCK: kips[] is the kernel stack at which the thread last left
 * the CPU (its caller chain of schedule(): __schedule first), not where the
 * packet was taken: the packet carries off-CPU time.  SIGNAL: taken as a
 * signal was delivered, before its handler's frame was built: the user
 * stack is where the thread was in the kernel (the wait the signal ended).
 * IDLE: the idle time of CPU cpu (pid and tid 0; LWPROF_SS_IDLE).
 */
#define LWPROF_RS_KBLOCK	0x0100
#define LWPROF_RS_SIGNAL	0x0200
#define LWPROF_RS_IDLE		0x0400
/*
 * 1.4, LWPROF_SS_IRQ: the packet holds only TRAP time of the thread (or
 * of the idle task: with LWPROF_RS_IDLE), spent in hard interrupts
 * (HARDIRQ: device IRQs and x86 system vectors) or softirqs (SOFTIRQ)
 * since its previous packet of that kind or clock packet.  kips[] is the
 * stack at the end of the interrupt that sent it: first the handler
 * (irqaction handler, softirq action; none for a system vector), then
 * the interrupt's entry path and what it interrupted.
 */
#define LWPROF_RS_HARDIRQ	0x0800
#define LWPROF_RS_SOFTIRQ	0x1000

/* lwprof_rec_sample.kind */
#define LWPROF_SK_CLOCK		1
#define LWPROF_SK_COUNTER	2

/*
 * A clock-profile or counter-overflow packet.
 *
 * Idle packets (ABI 1.4, LWPROF_RS_IDLE, pid 0, tid 0): the time CPU cpu
 * ran its idle task since that CPU's previous idle packet (since
 * SAMPLE_START for the first; SAMPLE_STOP sends every CPU's last one):
 * mstate_ns[LWPROF_MS_SYSTEM] the idle loop itself, mstate_ns[LWPROF_MS_TRAP]
 * the interrupts it took; no stack.
 *
 * Clock packets: mstate_ns[] is the time, per microstate, that the thread
 * spent since its previous clock packet (since accounting began for the
 * first one), so every nanosecond of a thread's accounted life lands in
 * exactly one packet; value is their sum.  Time off CPU is carried by the
 * packet taken when the thread next returns to user mode, with the user
 * stack there: the call that blocked (1.4: taken before a signal handler's
 * frame if a signal ended the wait, LWPROF_RS_SIGNAL; with -K its kips[]
 * are where the thread left the CPU, LWPROF_RS_KBLOCK; with
 * LWPROF_SS_KONLY, and for kernel threads, it is taken when the thread is
 * switched back in).  1.4: with LWPROF_SS_IRQ a thread's TRAP time is in
 * packets of its own (LWPROF_RS_HARDIRQ, LWPROF_RS_SOFTIRQ), so the
 * thread's packets of all kinds together hold every nanosecond.
 *
 * Counter packets: counter is the index in lwprof_sample_start.counters[],
 * value the events counted since the previous overflow (the period);
 * mstate_ns[] is zero.
 *
 * After the fixed part, in this order, each a multiple of 8 bytes:
 *   __u64 regs[LWPROF_NR_REGS]     if hdr.flags & LWPROF_RS_REGS
 *   __u64 ips[nr_user]             user frames, leaf (the pc) first
 *   __u64 kips[nr_kernel]          kernel frames, leaf first
 *   __u8  stack[stack_size]        user memory from regs[LWPROF_REG_SP]
 *                                  upward, padded to 8 bytes; with
 *                                  LWPROF_RS_SDELTA a struct lwprof_sdelta
 *                                  (stack_size: the bytes of that area)
 */
struct lwprof_rec_sample {
	struct lwprof_rec hdr;
	__u64 time_ns;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u16 kind;		/* LWPROF_SK_* */
	__u16 counter;
	__u64 value;
	__u64 mstate_ns[10];	/* LWPROF_MS_COUNT */
	__u16 nr_user;
	__u16 nr_kernel;
	__u32 stack_size;	/* bytes of stack[] before padding */
};

/*
 * A delta stack copy (ABI 1.2, with LWPROF_SS_SDELTA; experiment format
 * 1.1).  The full copy covers [sp, sp + size).  It is cut into blocks of
 * LWPROF_SDELTA_BLOCK bytes aligned on user addresses: block i covers
 * [(sp & ~63) + 64 * i, + 64) clipped to the copy, for i < nr_blocks.
 * After this header come DIV_ROUND_UP(nr_blocks, 64) __u64 bitmap words
 * (bit i % 64 of word i / 64 set: block i is literal; bits past nr_blocks
 * zero), then the bytes of the nr_literal literal blocks, in order, each
 * clipped as above.  Every other block equals the bytes at the same
 * addresses in the base: the previous record of the same tid in the same
 * ring (cpu.N.rec file) that has LWPROF_RS_SBASE, whose time_ns is
 * base_time_ns; those addresses lie inside the base's copy.  A record
 * with SBASE but without SDELTA is a full copy and a base.  Records
 * without SBASE (taken in an NMI, say) are never a base.
 */
#define LWPROF_SDELTA_BLOCK	64

struct lwprof_sdelta {
	__u64 sp;		/* address of the copy's first byte */
	__u64 base_time_ns;	/* time_ns of the base record */
	__u32 size;		/* bytes of the full copy */
	__u16 nr_blocks;
	__u16 nr_literal;
	/* __u64 bitmap[]; __u8 literal[]; */
};

/* lwprof_rec_task.event */
#define LWPROF_TASK_START	1	/* existed when sampling started */
#define LWPROF_TASK_FORK	2	/* new thread (pid != tid) or process */
#define LWPROF_TASK_EXEC	3	/* new program: the pid's maps reset */
#define LWPROF_TASK_EXIT	4	/* the thread is gone */
#define LWPROF_TASK_COMM	5	/* renamed (prctl PR_SET_NAME) */

struct lwprof_rec_task {
	struct lwprof_rec hdr;
	__u64 time_ns;
	__u32 pid;
	__u32 tid;
	__u32 ppid;		/* thread-group id of the parent process */
	__u32 event;		/* LWPROF_TASK_* */
	char comm[16];
};

/*
 * An executable mapping of an accounted process: existing ones when
 * sampling starts, new ones (exec, dlopen) as they are made.  path is
 * NUL-terminated and padded with NULs to the record's size; "//anon" for
 * anonymous executable memory, "[vdso]" for the vDSO.
 */
#define LWPROF_MMAP_ANON	0x0001	/* not a file */

struct lwprof_rec_mmap {
	struct lwprof_rec hdr;	/* flags: LWPROF_MMAP_* */
	__u64 time_ns;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;		/* file offset in bytes */
	__u64 ino;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 prot;		/* PROT_* */
	__u32 pad0;
	char path[];
};

/* Records dropped on this CPU since the previous LOST record. */
struct lwprof_rec_lost {
	struct lwprof_rec hdr;
	__u64 time_ns;
	__u64 lost;
	__u32 cpu;
	__u32 pad0;
};

/*
 * 1.7: the session stopped recording thread tid of pid at time_ns, for
 * reason; pid and tid 0: the whole session (REVOKED).  Nothing of the
 * thread follows (its last clock packet, LWPROF_RS_EXIT, came just
 * before), nor of the threads it creates.  comm is its name then.
 */
#define LWPROF_STOP_EXEC	1	/* exec'd set-ID, file-caps, secure mode */
#define LWPROF_STOP_CREDS	2	/* its credentials changed: the owner may not trace it */
#define LWPROF_STOP_DUMPABLE	3	/* it made itself non-dumpable */
#define LWPROF_STOP_REVOKED	4	/* a privileged session or another user took it */
#define LWPROF_STOP_MAX		4

struct lwprof_rec_stop {
	struct lwprof_rec hdr;	/* flags zero */
	__u64 time_ns;
	__u32 pid;
	__u32 tid;
	__u32 reason;		/* LWPROF_STOP_* */
	__u32 pad0;
	char comm[16];
};

#endif /* _UAPI_LWPROF_RECORD_H */
