// SPDX-License-Identifier: GPL-2.0
/*
 * System-call workload, for the two ways lwprof sees a call's entry (the
 * ftrace hook on the dispatchers, the sys_enter tracepoint).  Thread
 * "caller" makes N getppid() calls; thread "compat" makes the 32-bit
 * (int $0x80) calls of a 32-bit task from this 64-bit one: N32 getppid()
 * calls, then a futex wait that times out after 300 ms.
 *
 *   ms_syscall [N [N32]]
 *
 * Ground truth: the counts ("truth calls N", "truth compat_calls N32") and
 * the wall time of the 32-bit futex wait ("truth compat_wait_ns") and its
 * time asleep by the scheduler's statistics ("compat_wait_slept_ns", when
 * schedstats are on), or "truth compat_ok 0" when the kernel has no 32-bit
 * system calls.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>

#include "mstate.h"

#define NR32_GETPPID	64	/* arch/x86/entry/syscalls/syscall_32.tbl */
#define NR32_FUTEX	240

static long n_calls = 20000, n_compat = 2000;

/* A 32-bit system call through int $0x80; r8-r15 may not survive it. */
static long sys32(long nr, long a, long b, long c, long d)
{
	long ret = nr;

	__asm__ volatile ("int $0x80"
			  : "+a" (ret)
			  : "b" (a), "c" (b), "d" (c), "S" (d)
			  : "r8", "r9", "r10", "r11", "r12", "r13", "r14",
			    "r15", "memory", "cc");
	return ret;
}

static void *caller(void *arg)
{
	long i;

	ms_tid("caller");
	for (i = 0; i < n_calls; i++)
		syscall(SYS_getppid);
	ms_truth("calls", n_calls);
	return NULL;
}

static void *compat(void *arg)
{
	/* The futex word and timeout must have 32-bit addresses. */
	struct { int32_t sec, nsec; } *ts;
	uint64_t t0, t1;
	long long slept, slept1;
	uint32_t *word;
	long i, ret;
	void *low;

	ms_tid("compat");
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED) {
		perror("mmap MAP_32BIT");
		exit(2);
	}
	word = low;
	ts = (void *)((char *)low + 64);
	if (sys32(NR32_GETPPID, 0, 0, 0, 0) != getppid()) {
		ms_truth("compat_ok", 0);
		return NULL;
	}
	for (i = 1; i < n_compat; i++)
		sys32(NR32_GETPPID, 0, 0, 0, 0);
	ts->sec = 0;
	ts->nsec = 300 * MS_MS;
	slept = ms_slept();
	t0 = ms_now();
	ret = sys32(NR32_FUTEX, (long)word, FUTEX_WAIT_PRIVATE, 0, (long)ts);
	t1 = ms_now();
	slept1 = ms_slept();
	if (ret != -ETIMEDOUT) {
		fprintf(stderr, "32-bit futex wait: %ld, not -ETIMEDOUT\n", ret);
		exit(2);
	}
	ms_truth("compat_ok", 1);
	ms_truth("compat_calls", n_compat);
	ms_truth("compat_wait_ns", t1 - t0);
	ms_truth_slept("compat_wait_slept_ns", slept, slept1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		n_calls = atol(argv[1]);
	if (argc > 2)
		n_compat = atol(argv[2]);
	if (n_calls < 0 || n_compat < 1) {
		fprintf(stderr, "usage: ms_syscall [N [N32]]\n");
		return 2;
	}
	ms_tid("main");
	if (pthread_create(&t, NULL, caller, NULL) || pthread_join(t, NULL))
		return 2;
	if (pthread_create(&t, NULL, compat, NULL) || pthread_join(t, NULL))
		return 2;
	return 0;
}
