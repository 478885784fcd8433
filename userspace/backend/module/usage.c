// SPDX-License-Identifier: GPL-2.0
/*
 * The module's usage part (module.h): a microstate session on
 * /dev/lwprof, attached to a process or the machine, read into the usage
 * set (LWPROF_IOC_ATTACH, LWPROF_IOC_READ_USAGE).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "userspace/backend/module/module.h"

int lwprof_session_open(void)
{
	struct lwprof_abi_version v;
	int fd, err;

	fd = lwprof_dev_open();
	if (fd < 0)
		return fd;
	err = lwprof_dev_abi(fd, &v);
	if (!err && !(v.features & LWPROF_FEAT_MSTATE))
		err = -EOPNOTSUPP;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int lwprof_session_attach(int fd, __u32 flags, int pid)
{
	struct lwprof_attach a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.pid = pid;
	if (ioctl(fd, LWPROF_IOC_ATTACH, &a) < 0)
		return -errno;
	return 0;
}

const char *lwprof_session_strerror(int err, __u32 flags, int pid,
				    char *buf, size_t len)
{
	int machine = flags & LWPROF_ATTACH_MACHINE;

	switch (err) {
	case -EACCES:
		if (!machine)	/* ABI 1.7: the module's user_access */
			return "the lwprof module gives this user no sessions (its parameter user_access, /sys/module/lwprof/parameters/user_access; docs/design/security.md)";
		/* fall through */
	case -EPERM:
		if (machine)
			return "whole-machine sessions need CAP_PERFMON or CAP_SYS_ADMIN (run as root, or use -p PID)";
		return lwprof_ptrace_refusal(pid, buf, len);
	case -ESRCH:
		snprintf(buf, len, "no such process: PID %d", pid);
		return buf;
	case -EUSERS:	/* ABI 1.7 */
		return "this user holds as many lwprof sessions as the module allows (its parameter user_sessions; docs/design/security.md): end one";
	case -EBUSY:
		if (machine)
			return "another lwprof session is running that this user may not end (root's, or a whole-machine one)";
		snprintf(buf, len, "PID %d is already accounted by another lwprof session",
			 pid);
		return buf;
	case -ENOTTY:
		return "the loaded lwprof module does not know LWPROF_IOC_ATTACH";
	default:
		return lwprof_dev_strerror(err);
	}
}

int lwprof_usage_read(int fd, struct lwprof_usage_set *set)
{
	struct lwprof_thread_usage *buf = NULL;
	struct lwprof_usage_read r;
	size_t cap = 0, want = set->n + 64;
	int err;

	for (;;) {
		err = lwprof_usage_grow(&buf, &cap, want);
		if (err)
			break;
		memset(&r, 0, sizeof(r));
		r.buf = (uintptr_t)buf;
		r.count = cap > UINT32_MAX ? UINT32_MAX : cap;
		if (ioctl(fd, LWPROF_IOC_READ_USAGE, &r) < 0) {
			err = -errno;
			break;
		}
		err = lwprof_usage_merge(set, buf, r.count);
		if (err)
			break;
		set->live = r.live;
		set->lost = r.lost;
		set->now_ns = r.now_ns;
		set->stopped = r.stopped;
		set->have = LWPROF_HAVE_ALL;
		/*
		 * total counts what the session held before this read.  If
		 * the buffer was full and some were left behind, read again
		 * with more room: live threads come again (and replace
		 * their older records); exited ones come only once.  A
		 * module that returned fewer than asked (it caps a read)
		 * would give the same again: stop.
		 */
		if (r.count >= r.total || r.count < cap)
			break;
		want = cap * 2 > (size_t)r.total + 64 ? cap * 2 :
			(size_t)r.total + 64;
	}
	free(buf);
	return err;
}

/* ---- the usage part of backend_module (record.c) ---- */

static int mod_open(void **sp)
{
	int *fd = malloc(sizeof(*fd));

	if (!fd)
		return -ENOMEM;
	*fd = lwprof_session_open();
	if (*fd < 0) {
		int err = *fd;

		free(fd);
		return err;
	}
	*sp = fd;
	return 0;
}

static int mod_attach(void *s, __u32 flags, int pid)
{
	return lwprof_session_attach(*(int *)s, flags, pid);
}

static int mod_read(void *s, struct lwprof_usage_set *set)
{
	return lwprof_usage_read(*(int *)s, set);
}

static void mod_close(void *s)
{
	close(*(int *)s);
	free(s);
}

const struct usage_ops module_usage_ops = {
	.open = mod_open,
	.open_strerror = lwprof_dev_strerror,
	.attach = mod_attach,
	.attach_strerror = lwprof_session_strerror,
	.read = mod_read,
	.close = mod_close,
};
