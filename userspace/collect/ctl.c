// SPDX-License-Identifier: GPL-2.0
/*
 * The collector API's channel (collector/proto.h): a datagram socket pair,
 * collect's end polled by its io_uring, the other left open in the
 * command it runs and named in its environment; with -l or -y, the
 * command also gets liblwprof_collector.so preloaded, whose handlers of
 * those signals send them over the channel.  A socket pair, not a named
 * socket: only the command and what it starts can reach it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/proto.h"
#include "userspace/collect/collect.h"

#define COLLECTOR_LIB	"liblwprof_collector.so"

/* The library beside this program (the build tree) or in ../lib. */
static char *find_lib(void)
{
	static const char *const rel[] = { "", "../lib/" };
	char path[PATH_MAX + 64];

	if (lwprof_selfdir_find(COLLECTOR_LIB, rel, 2, R_OK, path, sizeof(path)))
		return NULL;
	return realpath(path, NULL);
}

int ctl_open(struct ctl *c, const struct rec_opts *o)
{
	int sv[2];

	c->fd = c->child_fd = -1;
	c->preload = NULL;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	c->fd = sv[0];
	c->child_fd = sv[1];
	if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	if (o->sig_sample || o->sig_pause)
		c->preload = find_lib();
	return 0;
}

void ctl_child(struct ctl *c, const struct rec_opts *o)
{
	char val[64], *pre;
	const char *old;
	struct stat st;

	if (c->child_fd < 0 || fstat(c->child_fd, &st) < 0 ||
	    fcntl(c->child_fd, F_SETFD, 0) < 0)
		return;
	snprintf(val, sizeof(val), "%d:%llu", c->child_fd,
		 (unsigned long long)st.st_ino);
	setenv(LWPROF_CTL_ENV, val, 1);
	if (!c->preload)
		return;
	snprintf(val, sizeof(val), "%d,%d", o->sig_sample, o->sig_pause);
	setenv(LWPROF_CTL_SIG_ENV, val, 1);
	old = getenv("LD_PRELOAD");
	if (old && *old && asprintf(&pre, "%s:%s", c->preload, old) > 0)
		setenv("LD_PRELOAD", pre, 1);
	else
		setenv("LD_PRELOAD", c->preload, 1);
}

int ctl_read(struct ctl *c, struct lwprof_ctl_msg *m)
{
	ssize_t n;

	for (;;) {
		n = recv(c->fd, m, sizeof(*m), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == sizeof(*m) && m->magic == LWPROF_CTL_MAGIC) {
			m->name[sizeof(m->name) - 1] = 0;
			return 1;
		}
		/* not ours: dropped */
	}
}

void ctl_close(struct ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->child_fd >= 0)
		close(c->child_fd);
	free(c->preload);
	c->fd = c->child_fd = -1;
	c->preload = NULL;
}

int ctl_apply(struct gsamp *gs, const struct rec_opts *o,
	      const struct lwprof_ctl_msg *m, __u64 start, __u64 now)
{
	/* its time, but never before the run or in the future */
	__u64 t = m->time_ns < start ? start : m->time_ns > now ? now :
		m->time_ns;

	switch (m->op) {
	case LWPROF_CTL_SAMPLE:
		return gs_emit(gs, EXP_GS_API, t, m->name);
	case LWPROF_CTL_PAUSE:
		return gs_pause(gs, t, "collector_pause");
	case LWPROF_CTL_RESUME:
		return gs_resume(gs, t, "collector_resume");
	case LWPROF_CTL_TERMINATE:
		return 1;
	case LWPROF_CTL_SIG_SAMPLE:
		return gs_emit(gs, EXP_GS_SIGNAL, t, sigabbrev_np(o->sig_sample));
	case LWPROF_CTL_SIG_TOGGLE:
		return gs_toggle(gs, t, sigabbrev_np(o->sig_pause));
	}
	return 0;
}
