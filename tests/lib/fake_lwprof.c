// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for lwprof.ko's ioctls, for host tests of ptime's, top's and
 * collect's output (LD_PRELOAD it, with LWPROF_DEVICE=/dev/null).  The
 * rings and samples are in fake_ring.c.
 *
 * ATTACH remembers the pid (or fails with errno $FAKE_LWPROF_ATTACH_ERRNO).
 * The session has $FAKE_LWPROF_THREADS (default 3) threads, tids pid,
 * pid+1, ...  While process pid lives, READ_USAGE returns them live, just
 * attached (no time, no counts); once it is gone (or a zombie), their final
 * (exited) records, each once, as many as fit.  Thread i ran from 10 s to 10 s + (i + 1) * 0.1 s:
 * user (i + 1) ms, system 2 ms, trap 0.3 ms, one signal, 7 syscalls, 5
 * voluntary switches, asleep for the rest.
 *
 * $FAKE_LWPROF_EXITS=N adds N short processes that have exited, one
 * thread each (pid = tid = FAKE_EXIT_PID + k, k = 0..N-1, comm "sK",
 * user k ns): READ_USAGE returns the final records of the next
 * $FAKE_LWPROF_EXITS_PER_READ (default 1000) of them, each once, as many
 * as fit (total counts that batch: the others have not exited yet); once all are read it creates
 * $FAKE_LWPROF_EXITS_DONE.  At exit, the process that read them logs its
 * peak resident memory ("usage_reader hwm_kb=K", VmHWM).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fake_lwprof.h"

#define NS	1000000000ULL
#define FAKE_EXIT_PID	200000	/* the scripted exited processes */

int fake_pid;
static unsigned int fake_next;

static unsigned int fake_threads(void)
{
	const char *s = getenv("FAKE_LWPROF_THREADS");

	return s ? (unsigned int)atoi(s) : 3;
}

/* Thread i: just attached (live), or its final record (exited). */
static void fake_thread(struct lwprof_thread_usage *tu, unsigned int i,
			int exited)
{
	__u64 len = (i + 1) * NS / 10;

	memset(tu, 0, sizeof(*tu));
	tu->pid = fake_pid;
	tu->tid = fake_pid + i;
	tu->flags = exited ? LWPROF_TU_EXITED : 0;
	tu->start_ns = 10 * NS;
	tu->end_ns = tu->start_ns;
	snprintf(tu->comm, sizeof(tu->comm), i ? "worker %u" : "main", i);
	if (!exited)
		return;
	tu->end_ns += len;
	tu->mstate_ns[LWPROF_MS_USER] = (i + 1) * 1000000ULL;
	tu->mstate_ns[LWPROF_MS_SYSTEM] = 2000000;
	tu->mstate_ns[LWPROF_MS_TRAP] = 300000;
	tu->mstate_ns[LWPROF_MS_SLEEP] = len - (i + 1) * 1000000ULL - 2300000;
	tu->vcsw = 5;
	tu->ivcsw = 1;
	tu->minflt = 100 + i;
	tu->syscalls = 7;
	tu->signals = 1;
}

/* The target is gone (or a zombie): its threads have exited. */
static int fake_gone(void)
{
	char path[64], st = 'Z';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", fake_pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%*d (%*[^)]) %c", &st) != 1)
			st = 'Z';
		fclose(f);
	}
	return st == 'Z' || st == 'X';
}

static unsigned int exits_next, exits_pid;

static unsigned int env_num(const char *name, unsigned int dflt)
{
	const char *s = getenv(name);

	return s ? (unsigned int)strtoul(s, NULL, 0) : dflt;
}

/* The next scripted exited processes that fit in buf[out..count). */
static unsigned int fake_exits(struct lwprof_usage_read *r,
			       struct lwprof_thread_usage *buf,
			       unsigned int out)
{
	unsigned int n = env_num("FAKE_LWPROF_EXITS", 0);
	unsigned int batch = env_num("FAKE_LWPROF_EXITS_PER_READ", 1000);
	const char *done = getenv("FAKE_LWPROF_EXITS_DONE");
	struct lwprof_thread_usage *tu;
	unsigned int k;
	FILE *f;

	if (exits_next >= n)
		return out;
	exits_pid = getpid();
	/* held: this read's batch (the rest exit later, as in a real run) */
	r->total += n - exits_next < batch ? n - exits_next : batch;
	for (k = 0; k < batch && exits_next < n && out < r->count; k++) {
		tu = &buf[out++];
		memset(tu, 0, sizeof(*tu));
		tu->pid = tu->tid = FAKE_EXIT_PID + exits_next;
		tu->ppid = 1;
		tu->flags = LWPROF_TU_EXITED;
		tu->start_ns = 10 * NS;
		tu->end_ns = 10 * NS + 1000000;
		tu->mstate_ns[LWPROF_MS_USER] = exits_next;
		tu->mstate_ns[LWPROF_MS_SLEEP] = 1000000 - exits_next;
		snprintf(tu->comm, sizeof(tu->comm), "s%u", exits_next);
		exits_next++;
	}
	if (exits_next == n && done) {
		f = fopen(done, "w");
		if (f)
			fclose(f);
	}
	return out;
}

/* The reader's peak resident memory: VmHWM of /proc/self/status. */
__attribute__((destructor)) static void fake_exits_end(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	if (!exits_pid || exits_pid != (unsigned int)getpid())
		return;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	fake_log("usage_reader hwm_kb=%ld", kb);
}

static int fake_read(struct lwprof_usage_read *r)
{
	struct lwprof_thread_usage *buf = (void *)(uintptr_t)r->buf;
	unsigned int n = fake_threads(), i, out = 0;

	if (!fake_pid)
		return -EINVAL;
	if (!fake_gone()) {
		for (i = 0; i < n && out < r->count; i++)
			fake_thread(&buf[out++], i, 0);
		r->total = r->live = n;
	} else {
		r->total = n - fake_next;
		r->live = 0;
		while (fake_next < n && out < r->count)
			fake_thread(&buf[out++], fake_next++, 1);
	}
	out = fake_exits(r, buf, out);
	r->count = out;
	r->now_ns = 11 * NS;
	return 0;
}

__u64 fake_features(void)
{
	const char *f = getenv("FAKE_LWPROF_FEATURES");

	return f ? strtoull(f, NULL, 0) : 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *e = getenv("FAKE_LWPROF_ATTACH_ERRNO");
	struct lwprof_abi_version *v;
	struct lwprof_attach *a;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (req) {
	case LWPROF_IOC_ABI_VERSION:
		v = arg;
		memset(v, 0, sizeof(*v));
		v->major = LWPROF_ABI_MAJOR;
		v->minor = LWPROF_ABI_MINOR;
		v->features = getenv("FAKE_LWPROF_NO_MSTATE") ? 0 :
			LWPROF_FEAT_MSTATE;
		if (!getenv("FAKE_LWPROF_NO_SAMPLE"))
			v->features |= LWPROF_FEAT_SAMPLE;
		v->features |= fake_features();
		strcpy(v->module_version, "fake");
		return 0;
	case LWPROF_IOC_ATTACH:
		a = arg;
		err = e ? atoi(e) : 0;
		if (!err)
			fake_pid = a->pid ? a->pid : 1;
		fake_log("attach flags=%u pid=%d", a->flags, a->pid);
		break;
	case LWPROF_IOC_READ_USAGE:
		err = -fake_read(arg);
		break;
	case LWPROF_IOC_RING_SETUP:
	case LWPROF_IOC_SAMPLE_START:
	case LWPROF_IOC_SAMPLE_STOP:
		err = -fake_ring_ioctl(fd, req, arg);
		break;
	default:
		if (!real)
			real = (int (*)(int, unsigned long, ...))
				dlsym(RTLD_NEXT, "ioctl");
		return real(fd, req, arg);
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
