// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI header keeps its rules: built with -Wpadded -Werror (no implicit
 * padding), sizes multiples of 8, and each ioctl number encodes the size of
 * its struct with the direction the module expects.
 */
#include <stddef.h>
#include <linux/ioctl.h>

#include "lwprof.h"
#include "test.h"

_Static_assert(sizeof(struct lwprof_abi_version) % 8 == 0, "size % 8");
_Static_assert(offsetof(struct lwprof_abi_version, features) == 8, "layout");
_Static_assert(offsetof(struct lwprof_abi_version, gaps) == 24, "layout 1.6");
_Static_assert(offsetof(struct lwprof_abi_version, reserved) == 32, "layout");
_Static_assert(sizeof(struct lwprof_abi_version) == 88, "abi 1.0 size");
_Static_assert(sizeof(struct lwprof_attach) == 56, "abi 1.0 size");
_Static_assert(sizeof(struct lwprof_thread_usage) == 208, "abi 1.0 size");
_Static_assert(offsetof(struct lwprof_thread_usage, mstate_ns) == 32, "layout");
_Static_assert(offsetof(struct lwprof_thread_usage, comm) == 160, "layout");
_Static_assert(sizeof(struct lwprof_usage_read) == 72, "abi 1.0 size");
_Static_assert(LWPROF_MS_COUNT == 10, "ten Solaris microstates");
_Static_assert(sizeof(struct lwprof_ring_setup) == 64, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_counter) == 32, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_sample_start) == 312, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_sample_stop) == 56, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_ring_ctl) == 256, "abi 1.1 size");
_Static_assert(offsetof(struct lwprof_ring_ctl, tail) == 64, "own line");
_Static_assert(offsetof(struct lwprof_ring_ctl, data_size) == 128, "layout");
_Static_assert(sizeof(struct lwprof_rec) == 8, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_rec_sample) == 128, "abi 1.1 size");
_Static_assert(offsetof(struct lwprof_rec_sample, mstate_ns) == 40, "layout");
_Static_assert(sizeof(struct lwprof_rec_task) == 48, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_rec_mmap) == 72, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_rec_lost) == 32, "abi 1.1 size");
_Static_assert(sizeof(struct lwprof_sdelta) == 24, "abi 1.2 size");
_Static_assert(offsetof(struct lwprof_sdelta, size) == 16, "layout");
_Static_assert(offsetof(struct lwprof_sdelta, nr_literal) == 22, "layout");
_Static_assert(sizeof(struct lwprof_ustate) == 128, "abi 1.5 size");
_Static_assert(offsetof(struct lwprof_ustate, last_ns) == 16, "layout");
_Static_assert(offsetof(struct lwprof_ustate, mstate_ns) == 24, "layout");
_Static_assert(sizeof(struct lwprof_ustate_open) == 32, "abi 1.5 size");
_Static_assert(sizeof(struct lwprof_ustate_claim) == 32, "abi 1.5 size");
_Static_assert(sizeof(struct lwprof_rec_stop) == 48, "abi 1.7 size");
_Static_assert(offsetof(struct lwprof_rec_stop, comm) == 32, "layout");
_Static_assert(offsetof(struct lwprof_usage_read, stopped) == 40 &&
	       offsetof(struct lwprof_usage_read, reserved) == 48,
	       "abi 1.7: stopped in the first reserved word");
_Static_assert(sizeof(((struct lwprof_rec_sample *)0)->mstate_ns) ==
	       LWPROF_MS_COUNT * 8, "one delta per microstate");

int main(void)
{
	unsigned int c = LWPROF_IOC_ABI_VERSION;

	t_check(_IOC_TYPE(c) == LWPROF_IOC_MAGIC, "ABI_VERSION type byte 0x%x",
		_IOC_TYPE(c));
	t_check(_IOC_SIZE(c) == sizeof(struct lwprof_abi_version),
		"ABI_VERSION encodes its size (%u)", _IOC_SIZE(c));
	t_check(_IOC_DIR(c) == (_IOC_READ | _IOC_WRITE),
		"ABI_VERSION is read-write");
	t_check(LWPROF_ABI_MAJOR >= 1, "ABI major %d", LWPROF_ABI_MAJOR);
	t_check(_IOC_NR(LWPROF_IOC_ATTACH) == 1 &&
		_IOC_SIZE(LWPROF_IOC_ATTACH) == sizeof(struct lwprof_attach),
		"ATTACH is nr 1 with its size");
	t_check(_IOC_NR(LWPROF_IOC_READ_USAGE) == 2 &&
		_IOC_SIZE(LWPROF_IOC_READ_USAGE) ==
		sizeof(struct lwprof_usage_read),
		"READ_USAGE is nr 2 with its size");
	return t_done();
}
