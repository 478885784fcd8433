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
	return 0;
}
