// SPDX-License-Identifier: GPL-2.0
/* perf_event_open(2) for the commands' own counters: see backend.h. */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "userspace/backend/backend.h"

void pevent_attr(struct perf_event_attr *a, __u32 type, __u64 config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_hv = 1;
}

int pevent_open(struct perf_event_attr *a, int pid, int cpu, int group)
{
	int fd = syscall(SYS_perf_event_open, a, pid, cpu, group,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
