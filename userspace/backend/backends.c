// SPDX-License-Identifier: GPL-2.0
/*
 * The backends by name (backend.h): --backend module|perf|auto resolved
 * once, here, for every command; and the usage session ptime and top
 * read, over either backend's usage part.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userspace/backend/backend.h"
#include "userspace/backend/module/module.h"
#include "userspace/backend/perf/perf.h"

/* In the order --backend auto tries them. */
static const struct backend_ops *const backends[] = {
	&backend_module,
	&backend_perf,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

int backend_parse(const char *s, const struct backend_ops **b)
{
	size_t i;

	*b = NULL;
	if (!strcmp(s, "auto"))
		return 0;
	for (i = 0; i < NBACKENDS; i++)
		if (!strcmp(s, backends[i]->name)) {
			*b = backends[i];
			return 0;
		}
	return -EINVAL;
}

const struct backend_ops *backend_resolve(const struct backend_ops *want,
					  char *why, size_t len)
{
	size_t i;

	if (why && len)
		why[0] = '\0';
	if (want)
		return want;
	/* the last one runs everywhere: no question asked */
	for (i = 0; i + 1 < NBACKENDS; i++)
		if (!backends[i]->probe(why, len))
			return backends[i];
	return backends[NBACKENDS - 1];
}

int lwprof_src_open(struct lwprof_usage_src *u, const struct backend_ops *want)
{
	memset(u, 0, sizeof(*u));
	u->be = backend_resolve(want, u->why, sizeof(u->why));
	return u->be->usage->open(&u->s);
}

const char *lwprof_src_open_strerror(const struct lwprof_usage_src *u,
				     int err)
{
	return u->be->usage->open_strerror(err);
}

int lwprof_src_attach(struct lwprof_usage_src *u, __u32 flags, int pid)
{
	return u->be->usage->attach(u->s, flags, pid);
}

int lwprof_src_read(struct lwprof_usage_src *u, struct lwprof_usage_set *set)
{
	return u->be->usage->read(u->s, set);
}

/*
 * A refusal says what would allow it, on either backend: the same rules
 * (ptrace rights over a process, CAP_PERFMON for the machine).
 */
const char *lwprof_src_strerror(const struct lwprof_usage_src *u, int err,
				__u32 flags, int pid, char *buf, size_t len)
{
	if (err != -EPERM && err != -EACCES)
		return u->be->usage->attach_strerror(err, flags, pid, buf, len);
	if (flags & LWPROF_ATTACH_MACHINE)
		return "whole-machine sessions need CAP_PERFMON or CAP_SYS_ADMIN (run as root, or give the lwprof binary cap_perfmon with setcap, or use -p PID)";
	return lwprof_ptrace_refusal(pid, buf, len);
}

void lwprof_src_log(const struct lwprof_usage_src *u, const char *cmd)
{
	char note[600];

	if (!u->be->usage->note)
		return;
	fprintf(stderr, "%s: backend %s%s%s%s: %s\n", cmd, u->be->name,
		u->why[0] ? " (" : "", u->why, u->why[0] ? ")" : "",
		u->be->usage->note(u->s, note, sizeof(note)));
}

void lwprof_src_close(struct lwprof_usage_src *u)
{
	if (u->be && u->s)
		u->be->usage->close(u->s);
	u->s = NULL;
}
