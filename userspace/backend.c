// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "dev.h"

static const char *const backend_names[] = {
	[LWPROF_BACKEND_AUTO] = "auto",
	[LWPROF_BACKEND_MODULE] = "module",
	[LWPROF_BACKEND_PERF] = "perf",
};

int lwprof_backend_parse(const char *s, enum lwprof_backend *b)
{
	unsigned int i;

	for (i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (!strcmp(s, backend_names[i])) {
			*b = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lwprof_backend_name(enum lwprof_backend b)
{
	return backend_names[b];
}

enum lwprof_backend lwprof_backend_resolve(enum lwprof_backend want,
					   char *why, size_t len)
{
	struct lwprof_abi_version v;
	int fd, err;

	if (why && len)
		why[0] = '\0';
	if (want != LWPROF_BACKEND_AUTO)
		return want;
	fd = lwprof_dev_open();
	if (fd < 0) {
		err = fd;
	} else {
		err = lwprof_dev_abi(fd, &v);
		close(fd);
	}
	if (!err)
		return LWPROF_BACKEND_MODULE;
	if (why && len)
		snprintf(why, len, "%s", lwprof_dev_strerror(err));
	return LWPROF_BACKEND_PERF;
}
