// SPDX-License-Identifier: GPL-2.0
/*
 * The size of collect's rings.  The module refuses rings larger than the
 * caller may lock (EPERM; its rule is in docs/design/abi.md: 128 data pages per
 * CPU without CAP_IPC_LOCK or CAP_PERFMON).  As perf sizes its buffer to
 * what the user may lock, collect asks for its default and, refused,
 * halves the size until the module agrees: the limit is learnt from the
 * module, not written here, and a module with another rule is followed.
 * An explicit -m is taken as given or not at all; the same search then
 * finds what to tell the user.  Past the user's budget of locked memory
 * (ABI 1.7: EDQUOT, kernel.perf_event_mlock_kb per CPU and then ulimit -l,
 * shared with the user's other sessions and perf's buffers) the search
 * goes on the same way, and says so if nothing fits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "userspace/backend/module/module.h"

/* 0, or -errno; rs->data_pages is the size tried last. */
static int try_size(int devfd, __u32 pages, struct lwprof_ring_setup *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->data_pages = pages;
	return ioctl(devfd, LWPROF_IOC_RING_SETUP, rs) < 0 ? -errno : 0;
}

int collect_ring_setup(int devfd, __u32 pages, bool exact,
		       struct lwprof_ring_setup *rs, char *msg, size_t len)
{
	unsigned long kib = sysconf(_SC_PAGESIZE) / 1024;
	__u32 want = pages;
	int err;

	while (((err = try_size(devfd, pages, rs)) == -EPERM || err == -EDQUOT) &&
	       pages > 1)
		pages /= 2;
	if (err == -EDQUOT) {
		snprintf(msg, len, "rings of %u pages per CPU: the locked memory this user may use is taken (kernel.perf_event_mlock_kb per CPU, then ulimit -l; lwprof's and perf's other sessions count): end one, or run lwprof with CAP_IPC_LOCK",
			 want);
		return err;
	}
	if (err == -EPERM) {
		snprintf(msg, len, "rings of %u pages per CPU: the module lets this user lock none; lwprof collect needs CAP_IPC_LOCK here",
			 want);
		return err;
	}
	if (err)
		return err;
	if (exact && pages < want) {
		/* The rings set up at the smaller size go with the session. */
		snprintf(msg, len, "-m %u: rings of %lu KiB per CPU are more than the module lets this user lock; use -m %u (%lu KiB) or less (no -m chooses the largest allowed), or run lwprof with CAP_IPC_LOCK (root has it) for larger rings",
			 want, want * kib, pages, pages * kib);
		return -EPERM;
	}
	return 0;
}
