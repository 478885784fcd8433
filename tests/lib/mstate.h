/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the microstate workloads in tests/progs/ms_*.c.  Each
 * workload measures its own ground truth and prints it on stdout, one fact
 * per line, for the guest tests to compare with `lwprof ptime -m -L`:
 *
 *   tid NAME TID                    a thread's id, by role
 *   truth KEY NS                    a measured duration, in nanoseconds
 *   sched NAME TID RUN_NS WAIT_NS   the thread's schedstat (run time,
 *                                   run-queue wait) once it is done
 *
 * A worker thread (struct ms_worker) ends with ms_worker_park(): it notes its
 * CPU time and the time, then sleeps until main, in ms_worker_reap(), has
 * read its schedstat from /proc; only the wake-up and thread exit follow.
 * So no printing or allocation runs between the truth and the thread's end.
 */
#ifndef LWPROF_MSTATE_H
#define LWPROF_MSTATE_H

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define MS_NS	1000000000ULL
#define MS_MS	1000000ULL

static inline uint64_t ms_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts)) {
		perror("clock_gettime");
		exit(2);
	}
	return (uint64_t)ts.tv_sec * MS_NS + ts.tv_nsec;
}

/* CLOCK_MONOTONIC: the clock lwprof's times are in (vDSO, no syscall). */
static inline uint64_t ms_now(void)
{
	return ms_clock(CLOCK_MONOTONIC);
}

/* This thread's CPU time (a system call). */
static inline uint64_t ms_cpu(void)
{
	return ms_clock(CLOCK_THREAD_CPUTIME_ID);
}

static inline int ms_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/*
 * For a program whose busy threads must not block: no transparent huge
 * pages in this process, first thing in main.  The guest's kernel has
 * THP "always": khugepaged collapses any 2 MiB of a thread's stack or
 * heap with a page in it, under the process's mmap lock, and a thread
 * that faults meanwhile waits, in a blocked state (727 us of Data Fault
 * once in ms_cpu's spin).  khugepaged skips a process with THP disabled.
 */
static inline void ms_no_thp(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		perror("PR_SET_THP_DISABLE");
}

/* Pin the calling thread to one CPU (exit 2 if the kernel refuses). */
static inline void ms_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

/* Spin in user mode until the monotonic clock reaches deadline. */
static inline void ms_spin_until(uint64_t deadline)
{
	while (ms_now() < deadline)
		;
}

static inline void ms_tid(const char *name)
{
	printf("tid %s %d\n", name, ms_gettid());
}

static inline void ms_truth(const char *key, uint64_t ns)
{
	printf("truth %s %llu\n", key, (unsigned long long)ns);
}

/*
 * The call a truth is of, from t0 to t1 (CLOCK_MONOTONIC ns, the perf
 * backend's clock): what a backend shows of the thread within it can be
 * told from what the thread did before and after (its start and exit,
 * its output's stdio lock, page-ins).
 */
static inline void ms_window(const char *key, uint64_t t0, uint64_t t1)
{
	printf("window %s %llu %llu\n", key, (unsigned long long)t0,
	       (unsigned long long)t1);
}

/* This thread's schedstat so far: run time and run-queue wait (ns). */
static inline void ms_schedstat(unsigned long long *run,
				unsigned long long *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", run, wait) != 2) {
		perror("schedstat");
		exit(2);
	}
	fclose(f);
}

/*
 * This thread's time asleep so far by the scheduler's own statistics, in ns
 * (sum_sleep_runtime of /proc/thread-self/sched: from each dequeue to the
 * wake-up's enqueue, blocked or not), or -1 when schedstats are off.  The
 * truth for a blocking call's time off CPU: its wall time also holds what
 * the call ran before it slept and after it woke, and on a busy TCG host
 * the vCPU may stall right there, milliseconds that are SYSTEM or WAIT_CPU.
 * Read with open() and read() into a stack buffer: no stdio, no allocation
 * that could sleep on its own.
 */
static inline long long ms_slept(void)
{
	unsigned long long ms, frac;
	char buf[4096], *p;
	ssize_t n;
	int fd;

	fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strstr(buf, "sum_sleep_runtime");
	p = p ? strchr(p, ':') : NULL;
	/* SPLIT_NS: milliseconds, then six digits of ns */
	if (!p || sscanf(p + 1, " %llu.%llu", &ms, &frac) != 2)
		return -1;
	return (long long)(ms * 1000000ULL + frac);
}

/*
 * Print "truth KEY NS" for the time asleep from slept0 to slept1, if known.
 * Read slept1 right after the call, before any printf: a thread's printf
 * may sleep on stdout's lock while another thread writes it out (2.5 ms
 * once, to a file on the guest's 9p).
 */
static inline void ms_truth_slept(const char *key, long long slept0,
				  long long slept1)
{
	if (slept0 >= 0 && slept1 >= slept0)
		printf("truth %s %llu\n", key,
		       (unsigned long long)(slept1 - slept0));
}

/* Print this thread's schedstat (run time, run-queue wait). */
static inline void ms_sched(const char *name)
{
	unsigned long long run = 0, wait = 0;

	ms_schedstat(&run, &wait);
	printf("sched %s %d %llu %llu\n", name, ms_gettid(), run, wait);
}

struct ms_worker {
	pthread_t thread;
	char name[16];
	int tid;
	uint64_t created;	/* by main, just before pthread_create */
	uint64_t cpu, end;	/* by the worker, just before parking */
	sem_t parked, go;
};

static inline int ms_worker_start(struct ms_worker *w, const char *name,
				  void *(*fn)(void *))
{
	snprintf(w->name, sizeof(w->name), "%s", name);
	sem_init(&w->parked, 0, 0);
	sem_init(&w->go, 0, 0);
	w->created = ms_now();
	return pthread_create(&w->thread, NULL, fn, w);
}

/* In the worker, first thing. */
static inline void ms_worker_begin(struct ms_worker *w)
{
	w->tid = ms_gettid();
	ms_tid(w->name);
}

/* In the worker, last thing: note CPU time and time, sleep until reaped. */
static inline void ms_worker_park(struct ms_worker *w)
{
	w->cpu = ms_cpu();
	w->end = ms_now();
	sem_post(&w->parked);
	while (sem_wait(&w->go))
		;
}

/* The state letter of /proc/self/task/TID/stat. */
static inline char ms_task_state(int tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * In main: wait until the worker sleeps parked, print its schedstat, let it
 * go and join it.
 */
static inline void ms_worker_reap(struct ms_worker *w)
{
	unsigned long long run = 0, wait = 0;
	char path[64];
	FILE *f;

	while (sem_wait(&w->parked))
		;
	while (ms_task_state(w->tid) != 'S')
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", w->tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2) {
		perror(path);
		exit(2);
	}
	fclose(f);
	printf("sched %s %d %llu %llu\n", w->name, w->tid, run, wait);
	sem_post(&w->go);
	pthread_join(w->thread, NULL);
	/* Joined is not gone: wait until the kernel has released the thread. */
	snprintf(path, sizeof(path), "/proc/self/task/%d", w->tid);
	while (access(path, F_OK) == 0)
		usleep(1000);
}

/*
 * CPU time of this process's threads that are gone (released): the process
 * CPU clock minus the calling thread's own, in a single-threaded moment.
 */
static inline uint64_t ms_dead_threads_cpu(void)
{
	uint64_t self = ms_cpu();

	return ms_clock(CLOCK_PROCESS_CPUTIME_ID) - self;
}

#endif
