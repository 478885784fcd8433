/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lwprof user/kernel ABI: the ioctls of /dev/lwprof and the records the
 * module hands to user space.  Shared, unchanged, by kmod/ and the tools.
 *
 * Rules for everything in this header (docs/design/abi.md says why):
 *  - only fixed-width types (__u8 ... __u64), never int/long/pointers;
 *  - every struct is a multiple of 8 bytes and has no implicit padding:
 *    holes are named fields (pad*) that must be zero;
 *  - reserved fields must be zero on input; the module rejects non-zero
 *    ones with -EINVAL, so a later minor version can give them a meaning;
 *  - a command's size is part of its number (_IOWR encodes sizeof): a known
 *    command number with a different size or direction is -EINVAL, an
 *    unknown number is -ENOTTY;
 *  - the major version changes only when old binaries can no longer work;
 *    the minor version counts compatible additions.
 */
#ifndef _UAPI_LWPROF_H
#define _UAPI_LWPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/const.h>

#define LWPROF_ABI_MAJOR	1
#define LWPROF_ABI_MINOR	7

#define LWPROF_DEVICE_NAME	"lwprof"
#define LWPROF_DEVICE_PATH	"/dev/lwprof"

/* The ioctl "type" byte; private to /dev/lwprof. */
#define LWPROF_IOC_MAGIC	0xB7

/*
 * LWPROF_IOC_ABI_VERSION: what ABI the loaded module speaks.
 *
 * In:  flags and reserved[] zero.
 * Out: major, minor, features (LWPROF_FEAT_* bits the module supports),
 *      gaps (1.6: LWPROF_GAP_* bits, what the running kernel keeps the
 *      module from doing as it does elsewhere), module_version
 *      (NUL-terminated release string of the module).
 */
struct lwprof_abi_version {
	__u32 major;
	__u32 minor;
	__u64 features;
	__u32 flags;
	__u32 pad0;
	__u64 gaps;
	__u64 reserved[3];
	char module_version[32];
};

#define LWPROF_IOC_ABI_VERSION \
	_IOWR(LWPROF_IOC_MAGIC, 0x00, struct lwprof_abi_version)

/* Bits of lwprof_abi_version.features. */
#define LWPROF_FEAT_MSTATE	_BITULL(0)	/* microstate accounting */
#define LWPROF_FEAT_SAMPLE	_BITULL(1)	/* rings, clock and counter samples (1.1) */
#define LWPROF_FEAT_SDELTA	_BITULL(2)	/* delta stack copies (1.2) */
#define LWPROF_FEAT_EXEC	_BITULL(3)	/* LWPROF_ATTACH_EXEC (1.3) */
/* 1.4: LWPROF_SS_OFFCPU, off-CPU time with the kernel stack where it blocked */
#define LWPROF_FEAT_KBLOCK	_BITULL(4)
#define LWPROF_FEAT_IDLE	_BITULL(5)	/* LWPROF_SS_IDLE (1.4) */
#define LWPROF_FEAT_KONLY	_BITULL(6)	/* LWPROF_SS_KONLY (1.4) */
#define LWPROF_FEAT_IRQ		_BITULL(7)	/* LWPROF_SS_IRQ (1.4) */
#define LWPROF_FEAT_USTATE	_BITULL(8)	/* LWPROF_IOC_USTATE_* (1.5) */
/*
 * 1.7: a session stops recording a thread its owner may no longer trace
 * (LWPROF_REC_STOP, LWPROF_TU_STOPPED) and charges its memory to its
 * owner; a privileged attach ends an unprivileged session that has what
 * it needs (LWPROF_STOP_REVOKED) instead of failing with EBUSY.
 */
#define LWPROF_FEAT_GUARD	_BITULL(9)

/*
 * Bits of lwprof_abi_version.gaps (1.6): what this kernel keeps the
 * module from doing as it does elsewhere (docs/design/abi.md says what
 * each changes in the figures).
 */
/* ptrace_may_access() not found: only CAP_SYS_PTRACE attaches to others */
#define LWPROF_GAP_PTRACE		_BITULL(0)
/* perf_event_paranoid unreadable: kernel stacks need CAP_PERFMON */
#define LWPROF_GAP_PARANOID		_BITULL(1)
/* softirq handlers not found: soft interrupt packets name none */
#define LWPROF_GAP_SOFTIRQ_NAMES	_BITULL(2)
/* softirqs run in threads (PREEMPT_RT): SYSTEM of their thread, not TRAP */
#define LWPROF_GAP_SOFTIRQ_THREADS	_BITULL(3)
/* device interrupts run in irq threads: SYSTEM of the irq thread, not TRAP */
#define LWPROF_GAP_IRQ_THREADS		_BITULL(4)
/* no allocation in probes (PREEMPT_RT): no off-CPU frames nor stack deltas */
#define LWPROF_GAP_ATOMIC_ALLOC		_BITULL(5)
/* 1.7: perf_event_mlock_kb unreadable: the locked-memory budget is 516 KiB */
#define LWPROF_GAP_MLOCK		_BITULL(6)
/* 1.7: the LSM's perf hook not found: counters need CAP_PERFMON */
#define LWPROF_GAP_PERF_LSM		_BITULL(7)

/*
 * Microstates: Solaris's ten LMS_* states, in Solaris's order.  Every
 * nanosecond of a tracked thread's life is in exactly one of them.
 *
 *  USER       running in user mode
 *  SYSTEM     running in the kernel: system call, page fault (the running
 *             part), and the kernel side of a futex wait before it sleeps
 *  TRAP       running hard or soft interrupt handlers that interrupted it
 *  TFAULT     asleep in a user text (instruction) page fault
 *  DFAULT     asleep in a user data page fault
 *  KFAULT     asleep in a kernel-mode fault on user memory (copy_to_user...)
 *  USER_LOCK  asleep in a futex wait (mutex, condition variable, ...)
 *  SLEEP      asleep for any other reason
 *  STOPPED    stopped by a signal or a tracer
 *  WAIT_CPU   runnable, waiting for a CPU (woken or preempted)
 *
 * The clock is CLOCK_MONOTONIC in nanoseconds (the TSC scaled and anchored
 * to it, or ktime_get_mono_fast_ns(); docs/design/mstate.md), so times compare
 * with clock_gettime().
 */
#define LWPROF_MS_USER		0
#define LWPROF_MS_SYSTEM	1
#define LWPROF_MS_TRAP		2
#define LWPROF_MS_TFAULT	3
#define LWPROF_MS_DFAULT	4
#define LWPROF_MS_KFAULT	5
#define LWPROF_MS_USER_LOCK	6
#define LWPROF_MS_SLEEP		7
#define LWPROF_MS_STOPPED	8
#define LWPROF_MS_WAIT_CPU	9
#define LWPROF_MS_COUNT		10

/*
 * LWPROF_IOC_ATTACH: make this open file an accounting session.
 *
 * Without LWPROF_ATTACH_MACHINE: account for every thread of process pid
 * (a thread-group id) from now on, and for every thread and process they
 * create (fork, clone; exec keeps them).  The caller must be allowed to
 * ptrace pid (-EPERM otherwise; -ESRCH if it does not exist or has no
 * living thread left).
 * With LWPROF_ATTACH_MACHINE (pid 0): every thread of the machine; needs
 * CAP_PERFMON or CAP_SYS_ADMIN.
 *
 * One session per file; -EBUSY if this file already has one.  A thread
 * belongs to at most one session, and a machine session excludes all
 * others: -EBUSY when the attach needs what another session has, unless
 * (1.7) that session's owner had neither CAP_PERFMON nor CAP_SYS_ADMIN
 * and the caller has one of them or is another user: then that session
 * ends (LWPROF_STOP_REVOKED: its READ_USAGE says so and its rings get a
 * LWPROF_REC_STOP record with pid 0) and the attach goes on.
 * 1.7: a caller without CAP_PERFMON or CAP_SYS_ADMIN holds a limited
 * number of sessions (-EUSERS beyond: the module parameter
 * user_sessions), and the module parameter user_access may refuse it
 * sessions altogether (-EACCES; docs/design/security.md).  Closing the file ends
 * the session.
 *
 * 1.7: a thread whose credentials change so that the session's owner
 * could no longer ptrace it (an exec of a set-user-ID, set-group-ID or
 * file-capability program, or one the kernel runs in secure mode; a
 * setuid() or capset(); prctl(PR_SET_DUMPABLE, 0)) stops being recorded
 * at once, for sessions whose owner had none of CAP_PERFMON,
 * CAP_SYS_ADMIN and CAP_SYS_PTRACE: its record is final from then on
 * (LWPROF_TU_STOPPED), it makes no packet, and the threads it creates
 * are not followed.
 */
#define LWPROF_ATTACH_MACHINE	_BITUL(0)
/* 1.1: a machine session leaves out the caller's own process (a recorder). */
#define LWPROF_ATTACH_EXCLUDE_SELF _BITUL(1)
/*
 * 1.3 (LWPROF_FEAT_EXEC), not with MACHINE: pid's accounting begins at its
 * next exec, as perf's enable_on_exec: a recorder's forked child waiting to
 * exec the command is the recorder's time, not the command's.  Until then
 * its threads (and any they create) make no samples, and at the exec each
 * thread's totals, counts and start time begin again from zero.
 */
#define LWPROF_ATTACH_EXEC	_BITUL(2)

struct lwprof_attach {
	__u32 flags;
	__s32 pid;
	__u64 reserved[6];
};

#define LWPROF_IOC_ATTACH \
	_IOWR(LWPROF_IOC_MAGIC, 0x01, struct lwprof_attach)

/*
 * One thread's usage, like Solaris's prusage_t.  Times in nanoseconds.
 * start_ns is when accounting of the thread began (its creation, or the
 * attach for threads that already existed); end_ns is its exit, or the
 * moment of the read for a live thread.  mstate_ns[] sums to
 * end_ns - start_ns.  Counters count from start_ns.
 */
#define LWPROF_TU_EXITED	_BITUL(0)	/* final record; not read again */
#define LWPROF_TU_ATTACHED	_BITUL(1)	/* existed before the attach */
/*
 * 1.7, with EXITED: not an exit, the session stopped recording the thread
 * (end_ns is when); LWPROF_TU_WHY() of flags is why, a LWPROF_STOP_*.
 */
#define LWPROF_TU_STOPPED	_BITUL(2)
#define LWPROF_TU_WHY_SHIFT	8
#define LWPROF_TU_WHY(flags)	(((flags) >> LWPROF_TU_WHY_SHIFT) & 0xff)

struct lwprof_thread_usage {
	__u32 pid;		/* thread-group id */
	__u32 tid;
	__u32 ppid;		/* parent's thread-group id at creation */
	__u32 flags;		/* LWPROF_TU_* */
	__u64 start_ns;
	__u64 end_ns;
	__u64 mstate_ns[LWPROF_MS_COUNT];
	__u64 vcsw;		/* voluntary context switches (slept) */
	__u64 ivcsw;		/* involuntary ones (preempted, yielded) */
	__u64 minflt;		/* minor page faults */
	__u64 majflt;		/* major page faults (I/O) */
	__u64 syscalls;
	__u64 signals;		/* signals delivered to the thread */
	char comm[16];
	__u64 reserved[4];
};

/*
 * LWPROF_IOC_READ_USAGE: copy the session's threads into buf.
 *
 * In:  buf (a user pointer to count entries), count; flags, reserved zero.
 *      At most LWPROF_READ_MAX entries are written per call.
 * Out: count = entries written; total = threads the session held when the
 *      read began (live, plus exited ones not read before; the exited
 *      records returned by this read are included); live = of those,
 *      still running; lost = threads not accounted for lack of memory
 *      (1.7: or beyond the session's limit of threads); now_ns; 1.7:
 *      stopped = LWPROF_STOP_REVOKED once another session ended this one
 *      (its threads' records are final then), else 0.
 * Live threads are reported with their usage so far; one forked but not
 * yet woken (its accounting and start_ns begin at its first wakeup) is in
 * total and live, with no record yet.  An exited thread's
 * final record is reported once and then freed; if buf is too small, the
 * records that did not fit stay for the next read.
 */
#define LWPROF_READ_MAX		65536

struct lwprof_usage_read {
	__u64 buf;
	__u32 count;
	__u32 flags;
	__u32 total;
	__u32 live;
	__u64 lost;
	__u64 now_ns;
	__u32 stopped;		/* out, 1.7; in: zero */
	__u32 pad0;
	__u64 reserved[3];
};

#define LWPROF_IOC_READ_USAGE \
	_IOWR(LWPROF_IOC_MAGIC, 0x02, struct lwprof_usage_read)

/*
 * Sampling (ABI 1.1, LWPROF_FEAT_SAMPLE).  On a session (after ATTACH):
 *
 *   1. LWPROF_IOC_RING_SETUP allocates one ring per possible CPU;
 *   2. mmap() each ring: length mmap_size, offset cpu * mmap_size, shared,
 *      PROT_READ | PROT_WRITE (user space writes only the tail);
 *   3. LWPROF_IOC_SAMPLE_START starts clock and counter sampling and the
 *      task and map records (it first emits a LWPROF_TASK_START record for
 *      every accounted thread and a map record for every executable
 *      mapping of their processes);
 *   4. poll()/epoll/io_uring poll on the fd: POLLIN when a ring holds at
 *      least its watermark (or when sampling stopped with data left);
 *   5. LWPROF_IOC_SAMPLE_STOP stops it (closing the file also does).
 *
 * The records are in lwprof_record.h, the ring protocol there too.
 */
#define LWPROF_RING_DEFAULT_PAGES	64	/* 256 KiB of data per CPU */

struct lwprof_ring_setup {
	__u32 flags;		/* in: zero */
	__u32 data_pages;	/* in: power of two, 0 = default; max 16384 */
	__u32 watermark;	/* in: bytes, 0 = a quarter of the data */
	__u32 nr_rings;		/* out: rings = possible CPUs (nr_cpu_ids) */
	__u64 mmap_size;	/* out: bytes per ring: control page + data */
	__u64 data_size;	/* out: bytes of data per ring */
	__u64 reserved[4];
};

#define LWPROF_IOC_RING_SETUP \
	_IOWR(LWPROF_IOC_MAGIC, 0x03, struct lwprof_ring_setup)

/*
 * One counter for overflow profiling: a perf_event_attr type/config pair
 * (PERF_TYPE_SOFTWARE / PERF_COUNT_SW_*, PERF_TYPE_HARDWARE, PERF_TYPE_RAW)
 * and its overflow interval (sample_period).  Samples name the counter by
 * its index in lwprof_sample_start.counters[].
 */
#define LWPROF_MAX_COUNTERS	8

struct lwprof_counter {
	__u32 type;
	__u32 flags;		/* zero */
	__u64 config;
	__u64 period;
	__u64 reserved;
};

/* lwprof_sample_start.flags */
#define LWPROF_SS_KSTACK	_BITUL(0)	/* kernel stacks too (-K) */
#define LWPROF_SS_SDELTA	_BITUL(1)	/* 1.2: delta stack copies */
/*
 * 1.4, machine sessions with a clock only: every CPU's idle time in
 * packets of the idle task (pid 0, LWPROF_RS_IDLE), so that the packets
 * of a run add up to CPUs x elapsed.
 */
#define LWPROF_SS_IDLE		_BITUL(2)
/*
 * 1.4, with LWPROF_SS_KSTACK and stack_bytes 0: kernel stacks and
 * microstates only, the cheap always-on mode.  No user registers, frame
 * walk or stack copy (a packet's only user frame is the user pc, from the
 * registers the kernel saved), so no packet waits for the return to user
 * mode: off-CPU time is sent when the thread is switched back in.
 */
#define LWPROF_SS_KONLY		_BITUL(3)
/*
 * 1.4, with LWPROF_SS_KSTACK and a clock: interrupt time apart.  A
 * thread's TRAP time goes, as it accrues, into packets of its own, one for
 * hard interrupts (LWPROF_RS_HARDIRQ) and one for softirqs
 * (LWPROF_RS_SOFTIRQ) at the end of the first interrupt of each kind after
 * a grid point, with that interrupt's kernel stack; its clock packets keep
 * what is left.
 */
#define LWPROF_SS_IRQ		_BITUL(4)
/*
 * 1.4: off-CPU packets marked.  With LWPROF_SS_KSTACK, the packet that
 * carries off-CPU time has the kernel stack where the thread left the CPU
 * (LWPROF_RS_KBLOCK); a packet taken at a signal's delivery says so
 * (LWPROF_RS_SIGNAL).  (Such a packet is taken before the handler's frame
 * with or without this flag; without it, it is an ordinary DEFERRED one.)
 * LWPROF_SS_KONLY implies it.
 */
#define LWPROF_SS_OFFCPU	_BITUL(5)

#define LWPROF_CLOCK_MIN_NS	10000ULL	/* 10 us */
#define LWPROF_CLOCK_MAX_NS	1000000000ULL	/* 1 s */
#define LWPROF_DEPTH_DEFAULT	256
#define LWPROF_DEPTH_MAX	1024
#define LWPROF_STACK_MAX	65536	/* bytes of user stack per sample */

struct lwprof_sample_start {
	__u32 flags;		/* LWPROF_SS_* */
	__u32 max_depth;	/* frame-pointer frames, 0 = default */
	__u64 clock_ns;		/* clock-profile interval, 0 = off */
	__u32 stack_bytes;	/* user stack copied per sample, multiple of 64 */
	__u32 nr_counters;
	__u64 reserved[4];
	struct lwprof_counter counters[LWPROF_MAX_COUNTERS];
};

#define LWPROF_IOC_SAMPLE_START \
	_IOW(LWPROF_IOC_MAGIC, 0x04, struct lwprof_sample_start)

/* Out: per ring, records written and lost so far (sum over rings). */
struct lwprof_sample_stop {
	__u32 flags;		/* in: zero */
	__u32 pad0;
	__u64 records;
	__u64 lost;
	__u64 reserved[4];
};

#define LWPROF_IOC_SAMPLE_STOP \
	_IOWR(LWPROF_IOC_MAGIC, 0x05, struct lwprof_sample_stop)

/*
 * 1.5 (LWPROF_FEAT_USTATE): a thread's own microstates, read without a
 * system call (the tracing library reads them around each traced call).
 *
 *   1. LWPROF_IOC_USTATE_OPEN (no session needed) returns a new file
 *      descriptor (O_CLOEXEC), an area of LWPROF_USTATE_SLOTS slots;
 *   2. mmap() it read-only and shared, offset 0, at most
 *      LWPROF_USTATE_SLOTS * sizeof(struct lwprof_ustate) bytes; the
 *      descriptor may then be closed, and fork keeps the mapping;
 *   3. LWPROF_IOC_USTATE_CLAIM with area the mapping's address gives the
 *      calling thread a slot of that area and returns its index.  The
 *      thread must be accounted by a session (-ESRCH otherwise); -ENOSPC
 *      when every slot is taken; -EINVAL if area is not the start of such
 *      a mapping of this process.  A thread has one slot at a time: a
 *      second claim gives up the first, and (1.7) so does an exec: the
 *      new program claims again.
 *
 * While the thread is accounted, the module writes its slot at every
 * return to user mode: its accumulators and the time of its last change,
 * between two increments of seq (odd while it writes).  So a reader in
 * that thread sees a slot whose state is USER, and the thread's
 * microstates at clock time now are mstate_ns[], plus now - last_ns in
 * mstate_ns[state].  The module's clock and clock_gettime(CLOCK_MONOTONIC)
 * may differ by NTP's correction since the session began (docs/design/mstate.md):
 * in the difference of two readings the offset cancels, and what is left
 * is their rates' difference (parts per million).  tid is the owner's (in
 * its pid namespace); 0 once the slot has no owner (the thread exited,
 * claimed another, or its session's entry was freed): a slot whose tid is
 * not the reader's is not its own any more.
 */
#define LWPROF_USTATE_SLOTS	2048

struct lwprof_ustate {
	__u32 seq;		/* odd while written; changes with every write */
	__u32 tid;		/* the owner; 0: none */
	__u32 state;		/* LWPROF_MS_*: the state since last_ns */
	__u32 pad0;
	__u64 last_ns;		/* the module's clock at the last change */
	__u64 mstate_ns[LWPROF_MS_COUNT];
	__u64 reserved[3];
};

struct lwprof_ustate_open {
	__u32 flags;		/* zero */
	__u32 pad0;
	__u64 reserved[3];
};

#define LWPROF_IOC_USTATE_OPEN \
	_IOW(LWPROF_IOC_MAGIC, 0x06, struct lwprof_ustate_open)

struct lwprof_ustate_claim {
	__u64 area;		/* the address of the area's mapping */
	__u32 flags;		/* zero */
	__u32 pad0;
	__u64 reserved[2];
};

#define LWPROF_IOC_USTATE_CLAIM \
	_IOW(LWPROF_IOC_MAGIC, 0x07, struct lwprof_ustate_claim)

#include "lwprof_record.h"

#endif /* _UAPI_LWPROF_H */
