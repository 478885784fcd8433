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
_Static_assert(offsetof(struct lwprof_abi_version, reserved) == 24, "layout");
_Static_assert(sizeof(struct lwprof_abi_version) == 88, "abi 1.0 size");

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
	return t_done();
}
