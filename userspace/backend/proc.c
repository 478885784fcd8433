// SPDX-License-Identifier: GPL-2.0
/*
 * One thread's /proc files, and what the kernel lets the caller see.
 * Per thread, what the kernel keeps exactly:
 *
 *   schedstat  run time (sum_exec_runtime) and run-queue wait (run_delay),
 *              in ns: USER + SYSTEM and WAIT_CPU
 *   stat       utime, stime in clock ticks: only the user/system split of
 *              the run time (the kernel's own cputime_adjust proportion);
 *              minflt, majflt; starttime in ticks
 *   status     voluntary_ctxt_switches, nonvoluntary_ctxt_switches
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "userspace/backend/backend.h"

__u64 proc_boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

bool proc_has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* Read a small file at dir/name into buf (NUL-terminated). */
int proc_read_at(int dir, const char *name, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = 0;
	return 0;
}

/*
 * Parse a stat line: comm between the first '(' and the last ')', then
 * the fields from state (3) on.
 */
int proc_parse_stat(const char *s, struct proc_thr *t, __u64 *start_tick)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	unsigned long long minflt, majflt, ut, st, start;
	size_t n;
	int ppid;

	if (!open || !close || close < open)
		return -EPROTO;
	n = close - open - 1;
	if (n > sizeof(t->comm) - 1)
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = 0;
	if (sscanf(close + 2, "%c %d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu",
		   &t->state, &ppid, &minflt, &majflt, &ut, &st, &start) != 7)
		return -EPROTO;
	t->ppid = ppid;
	t->minflt = minflt;
	t->majflt = majflt;
	t->utime = ut;
	t->stime = st;
	*start_tick = start;
	return 0;
}

static __u64 status_field(const char *s, const char *name)
{
	const char *p = strstr(s, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

/* One thread's files in dir (/proc/PID/task/TID). */
int proc_read_thread(int dir, __u64 tick_ns, struct proc_thr *t)
{
	char buf[2048];
	unsigned long long run, delay;
	__u64 start;
	int err;

	err = proc_read_at(dir, "stat", buf, sizeof(buf));
	if (!err)
		err = proc_parse_stat(buf, t, &start);
	if (err)
		return err;
	t->start_ns = t->tick_ns = start * tick_ns;
	err = proc_read_at(dir, "schedstat", buf, sizeof(buf));
	if (err)
		return err;
	t->read_ns = proc_boot_ns();
	if (sscanf(buf, "%llu %llu", &run, &delay) != 2)
		return -EPROTO;
	t->run_ns = run;
	t->delay_ns = delay;
	err = proc_read_at(dir, "status", buf, sizeof(buf));
	if (err)
		return err;
	t->vcsw = status_field(buf, "\nvoluntary_ctxt_switches:");
	t->ivcsw = status_field(buf, "\nnonvoluntary_ctxt_switches:");
	return 0;
}

/*
 * The record: run time split as the kernel splits it (all user when
 * neither count has a tick yet), sleep the rest of the life.
 */
void proc_to_usage(const struct proc_thr *t, __u64 end_ns, __u32 flags,
		     struct lwprof_thread_usage *tu)
{
	__u64 life = t->life_ns ? t->life_ns :
		(end_ns > t->start_ns ? end_ns - t->start_ns : 0);
	__u64 sys = 0, busy = t->run_ns + t->delay_ns;

	memset(tu, 0, sizeof(*tu));
	tu->pid = t->pid;
	tu->tid = t->tid;
	tu->ppid = t->ppid;
	tu->flags = flags;
	tu->start_ns = t->start_ns;
	tu->end_ns = end_ns;
	if (t->stime && t->utime)
		sys = (__u64)((double)t->run_ns * t->stime / (t->utime + t->stime));
	else if (t->stime)
		sys = t->run_ns;
	tu->mstate_ns[LWPROF_MS_USER] = t->run_ns - sys;
	tu->mstate_ns[LWPROF_MS_SYSTEM] = sys;
	tu->mstate_ns[LWPROF_MS_WAIT_CPU] = t->delay_ns;
	tu->mstate_ns[LWPROF_MS_SLEEP] = life > busy ? life - busy : 0;
	tu->vcsw = t->vcsw;
	tu->ivcsw = t->ivcsw;
	tu->minflt = t->minflt;
	tu->majflt = t->majflt;
	memcpy(tu->comm, t->comm, sizeof(tu->comm));
}

/* Ptrace read rights over pid, as the kernel checks them for /proc/PID/io. */
int proc_may_trace(int pid)
{
	char path[64], c;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else if (read(fd, &c, 1) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err == -ENOENT) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		err = access(path, F_OK) ? -ESRCH : 0;	/* no io accounting */
	}
	return err == -EPERM ? -EACCES : err;
}

