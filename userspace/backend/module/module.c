// SPDX-License-Identifier: GPL-2.0
/*
 * The module backend (module.h): its record part (record.c), its usage
 * part (usage.c), and whether it can run here: /dev/lwprof opens and the
 * module speaks our ABI major.
 */
#include <stdio.h>
#include <unistd.h>

#include "userspace/backend/module/module.h"

static int module_probe(char *why, size_t len)
{
	struct lwprof_abi_version v;
	int fd, err;

	fd = lwprof_dev_open();
	if (fd < 0) {
		err = fd;
	} else {
		err = lwprof_dev_abi(fd, &v);
		close(fd);
	}
	if (err && why && len)
		snprintf(why, len, "%s", lwprof_dev_strerror(err));
	return err;
}

const struct backend_ops backend_module = {
	.name = "module",
	.probe = module_probe,
	.rec = &module_rec_ops,
	.usage = &module_usage_ops,
};
