// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
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

int lwprof_which(const char *cmd, char *path, size_t len)
{
	const char *p = getenv("PATH"), *end;
	size_t n;

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return access(path, X_OK) ? -errno : 0;
	}
	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		n = end - p;
		snprintf(path, len, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd);
		if (!access(path, X_OK))
			return 0;
	}
	return -ENOENT;
}
