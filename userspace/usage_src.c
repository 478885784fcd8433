// SPDX-License-Identifier: GPL-2.0
/*
 * The usage backends behind one ops table: the module's microstate
 * session (usage.c) and /proc with taskstats (usage_proc.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "usage_proc.h"
#include "usage_src.h"

struct lwprof_usage_ops {
	int (*attach)(struct lwprof_usage_src *s, __u32 flags, int pid);
	int (*read)(struct lwprof_usage_src *s, struct lwprof_usage_set *set);
	void (*close)(struct lwprof_usage_src *s);
};

static int mod_attach(struct lwprof_usage_src *s, __u32 flags, int pid)
{
	return lwprof_session_attach(s->fd, flags, pid);
}

static int mod_read(struct lwprof_usage_src *s, struct lwprof_usage_set *set)
{
	return lwprof_usage_read(s->fd, set);
}

static void mod_close(struct lwprof_usage_src *s)
{
	close(s->fd);
}

static int proc_attach(struct lwprof_usage_src *s, __u32 flags, int pid)
{
	return lwprof_proc_attach(s->proc, flags, pid);
}

static int proc_read(struct lwprof_usage_src *s, struct lwprof_usage_set *set)
{
	return lwprof_proc_read(s->proc, set);
}

static void proc_close(struct lwprof_usage_src *s)
{
	lwprof_proc_close(s->proc);
}

static const struct lwprof_usage_ops usage_ops[] = {
	[LWPROF_BACKEND_MODULE] = { mod_attach, mod_read, mod_close },
	[LWPROF_BACKEND_PERF] = { proc_attach, proc_read, proc_close },
};

int lwprof_src_open(struct lwprof_usage_src *s, enum lwprof_backend want)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->backend = lwprof_backend_resolve(want, s->why, sizeof(s->why));
	s->ops = &usage_ops[s->backend];
	if (s->backend == LWPROF_BACKEND_PERF)
		return lwprof_proc_open(&s->proc);
	err = lwprof_session_open();
	if (err < 0)
		return err;
	s->fd = err;
	return 0;
}

int lwprof_src_attach(struct lwprof_usage_src *s, __u32 flags, int pid)
{
	return s->ops->attach(s, flags, pid);
}

int lwprof_src_read(struct lwprof_usage_src *s, struct lwprof_usage_set *set)
{
	return s->ops->read(s, set);
}

/*
 * A refusal says what would allow it, on either backend: the same rules
 * (ptrace rights over a process, CAP_PERFMON for the machine).
 */
const char *lwprof_src_strerror(const struct lwprof_usage_src *s, int err,
				__u32 flags, int pid, char *buf, size_t len)
{
	if (err != -EPERM && err != -EACCES)
		return lwprof_session_strerror(err, flags, pid, buf, len);
	if (flags & LWPROF_ATTACH_MACHINE)
		return "whole-machine sessions need CAP_PERFMON or CAP_SYS_ADMIN (run as root, or give the lwprof binary cap_perfmon with setcap, or use -p PID)";
	return lwprof_ptrace_refusal(pid, buf, len);
}

void lwprof_src_log(const struct lwprof_usage_src *s, const char *cmd)
{
	char note[400];

	if (s->backend != LWPROF_BACKEND_PERF)
		return;
	fprintf(stderr, "%s: backend perf%s%s%s: from /proc (trap, fault, lock and stop times are absent: -; slp is all sleep); %s\n",
		cmd, s->why[0] ? " (" : "", s->why, s->why[0] ? ")" : "",
		lwprof_proc_note(s->proc, note, sizeof(note)));
}

void lwprof_src_close(struct lwprof_usage_src *s)
{
	if (s->ops)
		s->ops->close(s);
	s->ops = NULL;
}
