// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof version: the tool's version and ABI, and the loaded module's.
 * Exit 0 when the module is loaded and speaks our major ABI, 1 otherwise
 * (the tool's own version is printed either way).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userspace/backend/module/module.h"
#include "userspace/cmd/cmds.h"

/* What each LWPROF_GAP_* bit changes, as lwprof version says it. */
static const struct {
	unsigned long long bit;
	const char *what;
} gaps[] = {
	{ LWPROF_GAP_PTRACE, "no ptrace_may_access(): only CAP_SYS_PTRACE attaches to other processes" },
	{ LWPROF_GAP_PARANOID, "perf_event_paranoid unreadable: kernel stacks need CAP_PERFMON" },
	{ LWPROF_GAP_SOFTIRQ_NAMES, "softirq handlers not found: interrupt packets name none" },
	{ LWPROF_GAP_SOFTIRQ_THREADS, "softirqs run in threads (PREEMPT_RT): their time is the running thread's System, not Trap" },
	{ LWPROF_GAP_IRQ_THREADS, "device interrupts run in irq threads: their handlers' time is the irq thread's System, not Trap" },
	{ LWPROF_GAP_ATOMIC_ALLOC, "no allocation in probes (PREEMPT_RT): no kernel stack where off-CPU time began (-K), full stack copies (no deltas)" },
	{ LWPROF_GAP_MLOCK, "perf_event_mlock_kb unreadable: each user's locked-memory budget is 516 KiB per CPU" },
	{ LWPROF_GAP_PERF_LSM, "the security modules' perf hook not found: counters (-h) need CAP_PERFMON" },
};

int cmd_version(int argc, char **argv)
{
	struct lwprof_abi_version v;
	int fd, err;

	if (argc > 1) {
		bool help = argc == 2 && (!strcmp(argv[1], "-h") ||
					  !strcmp(argv[1], "--help"));

		fprintf(help ? stdout : stderr, "usage: lwprof version\n");
		return help ? 0 : 2;
	}
	printf("lwprof %s (ABI %u.%u)\n", LWPROF_VERSION, LWPROF_ABI_MAJOR,
	       LWPROF_ABI_MINOR);

	fd = lwprof_dev_open();
	if (fd < 0) {
		printf("module: not available: %s\n", lwprof_dev_strerror(fd));
		return 1;
	}
	err = lwprof_dev_abi(fd, &v);
	close(fd);
	if (err) {
		printf("module: %s\n", lwprof_dev_strerror(err));
		return 1;
	}
	printf("module: lwprof.ko %s (ABI %u.%u, features 0x%llx)\n",
	       v.module_version, v.major, v.minor,
	       (unsigned long long)v.features);
	/* A module before 1.6 reports none (a reserved field, zero). */
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++)
		if (v.gaps & gaps[i].bit)
			printf("kernel: %s\n", gaps[i].what);
	if (v.gaps & ~(unsigned long long)((LWPROF_GAP_PERF_LSM << 1) - 1))
		printf("kernel: gaps 0x%llx unknown to this lwprof\n",
		       (unsigned long long)v.gaps);
	return 0;
}
