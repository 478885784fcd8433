// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userspace/collect/collect.h"

int lwprof_selfdir_find(const char *name, const char *const *rel, size_t nrel,
			int mode, char *path, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (n < 0)
		return -errno;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		slash[1] = 0;
	for (i = 0; i < nrel; i++) {
		snprintf(path, len, "%s%s%s", self, rel[i], name);
		if (!access(path, mode))
			return 0;
	}
	snprintf(path, len, "%s%s%s", self, nrel ? rel[0] : "", name);
	return -ENOENT;
}
