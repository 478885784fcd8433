/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lwprof user/kernel ABI: the ioctls of /dev/lwprof and the records the
 * module hands to user space.  Shared, unchanged, by kmod/ and the tools.
 *
 * Rules for everything in this header (docs/abi.md says why):
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
#define LWPROF_ABI_MINOR	0

#define LWPROF_DEVICE_NAME	"lwprof"
#define LWPROF_DEVICE_PATH	"/dev/lwprof"

/* The ioctl "type" byte; private to /dev/lwprof. */
#define LWPROF_IOC_MAGIC	0xB7

/*
 * LWPROF_IOC_ABI_VERSION: what ABI the loaded module speaks.
 *
 * In:  flags and reserved[] zero.
 * Out: major, minor, features (LWPROF_FEAT_* bits the module supports),
 *      module_version (NUL-terminated release string of the module).
 */
struct lwprof_abi_version {
	__u32 major;
	__u32 minor;
	__u64 features;
	__u32 flags;
	__u32 pad0;
	__u64 reserved[4];
	char module_version[32];
};

#define LWPROF_IOC_ABI_VERSION \
	_IOWR(LWPROF_IOC_MAGIC, 0x00, struct lwprof_abi_version)

/* Bits of lwprof_abi_version.features. */
#define LWPROF_FEAT_MSTATE	_BITULL(0)	/* microstate accounting */

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
 * The clock is CLOCK_MONOTONIC in nanoseconds (the kernel's
 * ktime_get_mono_fast_ns()), so times compare with clock_gettime().
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
 * ptrace pid (-EPERM otherwise, -ESRCH if it does not exist).
 * With LWPROF_ATTACH_MACHINE (pid 0): every thread of the machine; needs
 * CAP_PERFMON or CAP_SYS_ADMIN.
 *
 * One session per file; -EBUSY if this file already has one, or if a
 * thread is already accounted by another session (a thread belongs to at
 * most one session, and a machine session excludes all others).  Closing
 * the file ends the session.
 */
#define LWPROF_ATTACH_MACHINE	_BITUL(0)

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
 * Out: count = entries written; total = threads the session holds (live,
 *      plus exited ones not yet read); live = of those, still running;
 *      lost = threads not accounted for lack of memory; now_ns.
 * Live threads are reported with their usage so far.  An exited thread's
 * final record is reported once and then freed; if buf is too small, the
 * records that did not fit stay for the next read.
 */
struct lwprof_usage_read {
	__u64 buf;
	__u32 count;
	__u32 flags;
	__u32 total;
	__u32 live;
	__u64 lost;
	__u64 now_ns;
	__u64 reserved[4];
};

#define LWPROF_IOC_READ_USAGE \
	_IOWR(LWPROF_IOC_MAGIC, 0x02, struct lwprof_usage_read)

#endif /* _UAPI_LWPROF_H */
