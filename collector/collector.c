// SPDX-License-Identifier: GPL-2.0
/*
 * liblwprof_collector.so: the collector API (include/lwprof/collector.h)
 * and, when lwprof collect preloads it for -l or -y, the handlers of
 * those signals in the target.  Everything goes to collect over the
 * channel of collector/proto.h; nothing here waits for collect, exits or
 * allocates, so the calls are safe in signal handlers.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/proto.h"
#include "include/lwprof/collector.h"

#define API __attribute__((visibility("default")))

/* The channel's descriptor, or -1: -2 until the environment was read. */
static int ctl_fd = -2;

static int parse_uint(const char **p, unsigned long long *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		*v = *v * 10 + (unsigned int)(*s - '0');
	*p = s;
	return 0;
}

/* LWPROF_COLLECTOR=FD:INODE, FD still that socket: FD; else -1. */
static int channel(void)
{
	int fd = __atomic_load_n(&ctl_fd, __ATOMIC_RELAXED);
	unsigned long long n, ino;
	const char *p;
	struct stat st;

	if (fd != -2)
		return fd;
	fd = -1;
	p = getenv(LWPROF_CTL_ENV);
	if (p && !parse_uint(&p, &n) && *p++ == ':' && !parse_uint(&p, &ino) &&
	    !*p && n < 65536 && !fstat((int)n, &st) && S_ISSOCK(st.st_mode) &&
	    st.st_ino == ino)
		fd = (int)n;
	__atomic_store_n(&ctl_fd, fd, __ATOMIC_RELAXED);
	return fd;
}

static void send_op(enum lwprof_ctl_op op, const char *name)
{
	struct lwprof_ctl_msg m;
	struct timespec ts;
	int fd = channel(), saved = errno, tries;

	if (fd < 0)
		return;
	memset(&m, 0, sizeof(m));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m.magic = LWPROF_CTL_MAGIC;
	m.op = op;
	m.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	m.pid = getpid();
	m.tid = syscall(SYS_gettid);
	if (name)
		strncpy(m.name, name, sizeof(m.name) - 1);
	/*
	 * Never block: a full queue (collect stopped, or far behind) is
	 * retried for at most 10 ms, then the message is dropped.
	 */
	for (tries = 0; tries < 10; tries++) {
		if (send(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) >= 0 ||
		    errno != EAGAIN)
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	errno = saved;
}

API void collector_sample(const char *name)
{
	send_op(LWPROF_CTL_SAMPLE, name);
}

API void collector_pause(void)
{
	send_op(LWPROF_CTL_PAUSE, NULL);
}

API void collector_resume(void)
{
	send_op(LWPROF_CTL_RESUME, NULL);
}

API void collector_terminate_expt(void)
{
	send_op(LWPROF_CTL_TERMINATE, NULL);
}

static int sig_sample, sig_toggle;

static void on_signal(int sig)
{
	if (sig == sig_sample)
		send_op(LWPROF_CTL_SIG_SAMPLE, NULL);
	else if (sig == sig_toggle)
		send_op(LWPROF_CTL_SIG_TOGGLE, NULL);
}

static void catch(int sig)
{
	struct sigaction sa;

	if (sig <= 0 || sig >= NSIG)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Preloaded by collect -l / -y: catch their signals in the target. */
__attribute__((constructor)) static void collector_init(void)
{
	unsigned long long l, y;
	const char *p = getenv(LWPROF_CTL_SIG_ENV);

	if (!p || channel() < 0 || parse_uint(&p, &l) || *p++ != ',' ||
	    parse_uint(&p, &y) || *p)
		return;
	sig_sample = (int)l;
	sig_toggle = (int)y;
	catch(sig_sample);
	catch(sig_toggle);
}
