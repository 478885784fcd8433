// SPDX-License-Identifier: GPL-2.0
/*
 * The fake module's scripted processes and mappings, for the archiver's
 * tests and scripts/bench-archiver: with $FAKE_LWPROF_MMAPS set, the
 * producer (fake_ring.c) reads that file, after its own TASK and MMAP
 * records and before the samples, a command a line:
 *
 *   start PID COMM, exec PID COMM, exit PID COMM
 *            a TASK record (tid = pid) on ring PID % rings;
 *   mmap PID PATH
 *            an MMAP record of PATH as it is now (its device and inode,
 *            stat(2)), r-x, 4 KiB at 0x7f0000000000 + 1 MiB x the how
 *            manyth mmap line this is, on ring PID % rings;
 *   sync     wait until the recorder has read everything published so
 *            far (every ring's tail at its head), e.g. before
 *   rename FROM TO
 *            rename(2): a new file (another inode) at a path mapped before.
 *
 * A line it cannot do is logged ($FAKE_LWPROF_LOG: "maps: bad line N").
 * The producer thread's CPU time is logged ("producer user_ns=U
 * sys_ns=S"), and when the process that ran it exits, the process's
 * ("process user_ns=U sys_ns=S"), so that a benchmark can tell the
 * recorder's cost from the fake's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake_lwprof.h"

static pid_t producer_pid;

static void task_rec(unsigned int pid, __u32 event, const char *comm)
{
	fake_task(pid % fake_rings(), pid, pid, 1, event, comm);
}

static int mmap_rec(unsigned int pid, const char *path, unsigned int k)
{
	union {
		struct lwprof_rec_mmap m;
		unsigned char b[sizeof(struct lwprof_rec_mmap) + 4096 + 8];
	} u;
	size_t len = strlen(path);
	struct stat st;

	if (len >= 4096 || stat(path, &st) < 0)
		return -1;
	memset(&u, 0, sizeof(u));
	u.m.hdr.type = LWPROF_REC_MMAP;
	u.m.hdr.size = sizeof(u.m) + ((len + 1 + 7) & ~7UL);
	u.m.time_ns = 10000000000ULL;
	u.m.pid = u.m.tid = pid;
	u.m.start = 0x7f0000000000ULL + (__u64)k * 0x100000;
	u.m.len = 4096;
	u.m.ino = st.st_ino;
	u.m.dev_major = major(st.st_dev);
	u.m.dev_minor = minor(st.st_dev);
	u.m.prot = 1 | 4;
	memcpy(u.m.path, path, len);
	fake_emit(pid % fake_rings(), &u, u.m.hdr.size);
	return 0;
}

/* "user_ns=U sys_ns=S" of getrusage(who). */
static void log_rusage(const char *what, int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return;
	fake_log("%s user_ns=%llu sys_ns=%llu", what,
		 ru.ru_utime.tv_sec * 1000000000ULL + ru.ru_utime.tv_usec * 1000ULL,
		 ru.ru_stime.tv_sec * 1000000000ULL + ru.ru_stime.tv_usec * 1000ULL);
}

static int do_line(char *line, unsigned int *k)
{
	char cmd[16], a[4096], b[4096];
	unsigned int pid;
	int n;

	line[strcspn(line, "\n")] = 0;
	n = sscanf(line, "%15s %4095s %4095s", cmd, a, b);
	if (n == 1 && !strcmp(cmd, "sync")) {
		fake_sync();
		return 0;
	}
	if (n == 3 && !strcmp(cmd, "rename"))
		return rename(a, b);
	if (n < 3 || sscanf(a, "%u", &pid) != 1)
		return -1;
	if (!strcmp(cmd, "mmap"))
		return mmap_rec(pid, b, (*k)++);
	if (!strcmp(cmd, "start"))
		task_rec(pid, LWPROF_TASK_START, b);
	else if (!strcmp(cmd, "exec"))
		task_rec(pid, LWPROF_TASK_EXEC, b);
	else if (!strcmp(cmd, "exit"))
		task_rec(pid, LWPROF_TASK_EXIT, b);
	else
		return -1;
	return 0;
}

void fake_maps(void)
{
	const char *path = getenv("FAKE_LWPROF_MMAPS");
	unsigned int nr = 0, k = 0;
	char line[8300];
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "r");
	if (!f) {
		fake_log("maps: cannot open %s", path);
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (++nr, do_line(line, &k))
			fake_log("maps: bad line %u", nr);
	fclose(f);
	producer_pid = getpid();
}

/* At the end of the producer: its CPU time. */
void fake_maps_done(void)
{
	if (getenv("FAKE_LWPROF_MMAPS"))
		log_rusage("producer", RUSAGE_THREAD);
}

__attribute__((destructor)) static void fake_maps_exit(void)
{
	if (producer_pid && producer_pid == getpid())
		log_rusage("process", RUSAGE_SELF);
}
