// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling a process that is already running (what `lwprof collect -P PID`
 * does): the attach and SAMPLE_START come while its threads run.
 *
 * 1. Counted once.  A process of 6 threads (3 spin, 3 alternate system
 *    calls and 1 ms sleeps) runs 200 ms, then the test attaches, samples
 *    every 1 ms for 500 ms and lets the threads exit.  Per thread: the sum
 *    over its clock packets of each microstate equals its final totals
 *    exactly, one exit packet, exactly one START record, and the packets
 *    add up to end_ns - start_ns with start_ns at the attach (not the
 *    thread's creation 200 ms before).  Against the kernel: the threads'
 *    USER+SYS+TRAP in packets, summed, is their CPU time from the attach
 *    to their end (schedstat's run time read just before the attach, each
 *    thread's CPU clock at its end) within 2% or 5 ms, less what they can
 *    have run between the attach's beginning and the accounting's (CPUs
 *    times that time, 0.5 ms).  Counting the 200 ms before the attach, or
 *    a thread's time twice, would be hundreds of ms over.
 * 2. A full ring.  A process of 200 sleeping threads, rings of one page
 *    (85 START records fit): every thread's START record arrives, or the
 *    ring counts each missing one as lost (LOST record and ctl->lost).
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "ring.h"
#include "test.h"

#define NBUSY		6
#define NSLEEPY		200
#define MAXT		(NSLEEPY + 1)

/* Shared with the workload through a MAP_SHARED mapping. */
struct shared {
	volatile int stop;
	int ready;
	int tid[MAXT];
	uint64_t cpu_end[MAXT];		/* CLOCK_THREAD_CPUTIME_ID at its end */
	uint64_t main_cpu;		/* the main thread's, once all started */
	volatile int main_ready;	/* main_cpu is set */
};

static struct shared *sh;
static int nthreads;

struct targ {
	int i;
};

static void *busy(void *arg)
{
	int i = ((struct targ *)arg)->i;
	struct timespec ts = { 0, 1000000 }, c;

	sh->tid[i] = (int)syscall(SYS_gettid);
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->stop) {
		if (i % 2) {
			syscall(SYS_getppid);
			nanosleep(&ts, NULL);
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	sh->cpu_end[i] = (uint64_t)c.tv_sec * 1000000000ULL + c.tv_nsec;
	return NULL;
}

static void *sleepy(void *arg)
{
	int i = ((struct targ *)arg)->i;

	sh->tid[i] = (int)syscall(SYS_gettid);
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->stop)
		usleep(20000);
	return NULL;
}

static int workload(void *arg)
{
	void *(*fn)(void *) = arg;
	pthread_t t[MAXT];
	struct targ a[MAXT];
	int i;

	struct timespec c;

	for (i = 0; i < nthreads; i++) {
		a[i].i = i;
		if (pthread_create(&t[i], NULL, fn, &a[i]))
			return 2;
	}
	/* From here the main thread only waits. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	sh->main_cpu = (uint64_t)c.tv_sec * 1000000000ULL + c.tv_nsec;
	__atomic_store_n(&sh->main_ready, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/*
 * The CPU time of process pid, all its threads, ns: the process CPU clock,
 * which (unlike schedstat's sum_exec_runtime) includes the slices running
 * right now; 0 if unreadable.
 */
static uint64_t proc_cpu_ns(int pid)
{
	struct timespec ts;
	clockid_t cid;

	if (clock_getcpuclockid(pid, &cid) || clock_gettime(cid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int idx_of(int tid)
{
	for (int i = 0; i < nthreads; i++)
		if (sh->tid[i] == tid)
			return i;
	return -1;
}

/* Start the workload, wait until its threads run, then ms more. */
static void start(struct lwr_child *c, void *(*fn)(void *), int ms)
{
	memset(sh, 0, sizeof(*sh));
	if (lwr_spawn(c, workload, fn))
		t_fatal("fork");
	lwr_go(c);
	while (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) < nthreads)
		usleep(1000);
	usleep(ms * 1000);
}

static void counted_once(void)
{
	uint64_t cpu0, t_cpu0, t_att0, t_att1, cpu_pkts = 0, cpu_truth = 0;
	uint64_t start_max = 0, slack, tol;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t sum[MAXT][LWPROF_MS_COUNT] = { { 0 } };
	unsigned int packets[MAXT] = { 0 }, exits[MAXT] = { 0 };
	unsigned int starts[MAXT] = { 0 };
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_usage us = { 0 };
	struct lwr_iter it = { 0 };
	struct lwr_child c;
	struct lwr r;
	int i, k, ret, status;

	nthreads = NBUSY;
	start(&c, busy, 200);
	/*
	 * A session that ends at once: TCG translates the module's session
	 * code then, not in the attach below, so the truth's window around
	 * the attach is short.
	 */
	ret = lwr_open(&r, 0, c.pid, 1);
	t_check(ret == 0, "a first session (%s)", strerror(-ret));
	lwr_close(&r);
	/*
	 * The truth's start: the process's CPU time (running slices
	 * included), less its main thread's, which only waits from then on.
	 */
	while (!sh->main_ready)
		usleep(1000);
	t_cpu0 = lwr_now();
	cpu0 = proc_cpu_ns(c.pid);
	t_check(cpu0 > sh->main_cpu, "the workload's CPU clock reads (%.3f ms)", cpu0 / 1e6);
	cpu0 -= sh->main_cpu;
	t_att0 = lwr_now();
	ret = lwr_open(&r, 0, c.pid, 256);
	t_att1 = lwr_now();
	t_check(ret == 0, "attach to the running process (%s)", strerror(-ret));
	lwr_clock_req(&ss, 1000000, 0);
	ret = lwr_start(&r, &ss);
	t_check(ret == 0, "SAMPLE_START (%s)", strerror(-ret));
	for (i = 0; i < 25; i++)
		lwr_poll(&r, 20);
	sh->stop = 1;
	status = lwr_wait(&r, &c);
	t_check(WIFEXITED(status) && !WEXITSTATUS(status), "workload exited 0");
	ret = lwr_usage_final(&r, &us, 5000);
	t_check(ret == NBUSY + 1 && !us.live, "%d threads, all exited (%d)",
		NBUSY + 1, ret);
	ret = lwr_stop(&r, NULL);
	t_check(ret == 0 && lwr_lost(&r) == 0 && lwr_check(&r) == 0,
		"SAMPLE_STOP, nothing lost, whole records");

	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const struct lwprof_rec_task *tr = (const void *)rec;

		if (rec->type == LWPROF_REC_TASK &&
		    tr->event == LWPROF_TASK_START) {
			k = idx_of((int)tr->tid);
			if (k >= 0)
				starts[k]++;
		}
		if (rec->type != LWPROF_REC_SAMPLE ||
		    s->kind != LWPROF_SK_CLOCK)
			continue;
		k = idx_of((int)s->tid);
		if (k < 0)
			continue;
		packets[k]++;
		exits[k] += !!(rec->flags & LWPROF_RS_EXIT);
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			sum[k][i] += s->mstate_ns[i];
	}
	for (k = 0; k < nthreads; k++) {
		const struct lwprof_thread_usage *u = lwr_usage_tid(&us, sh->tid[k]);
		uint64_t all = 0;
		int same = 1;

		if (!u) {
			t_check(0, "thread %d has usage", sh->tid[k]);
			continue;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++) {
			all += sum[k][i];
			if (sum[k][i] != u->mstate_ns[i]) {
				printf("#   tid %u state %d: packets %llu, usage %llu\n",
				       u->tid, i, (unsigned long long)sum[k][i],
				       (unsigned long long)u->mstate_ns[i]);
				same = 0;
			}
		}
		t_check(same, "tid %u: its %u packets' microstates sum to its final totals",
			u->tid, packets[k]);
		t_check(all == u->end_ns - u->start_ns,
			"tid %u: packets hold %.3f ms, end - start %.3f ms",
			u->tid, all / 1e6, (u->end_ns - u->start_ns) / 1e6);
		t_check(u->start_ns >= t_att0 && u->start_ns <= t_att1,
			"tid %u: accounted from the attach (start %.3f ms after its beginning, which took %.3f ms)",
			u->tid, ((int64_t)u->start_ns - (int64_t)t_att0) / 1e6,
			(t_att1 - t_att0) / 1e6);
		t_check(exits[k] == 1 && starts[k] == 1,
			"tid %u: one exit packet (%u), one START record (%u)",
			u->tid, exits[k], starts[k]);
		cpu_truth += sh->cpu_end[k];
		if (u->start_ns > start_max)
			start_max = u->start_ns;
		cpu_pkts += sum[k][LWPROF_MS_USER] + sum[k][LWPROF_MS_SYSTEM] +
			    sum[k][LWPROF_MS_TRAP];
	}
	cpu_truth = cpu_truth > cpu0 ? cpu_truth - cpu0 : 0;
	/* CPU time the threads can have had before the accounting began. */
	slack = start_max > t_cpu0 ? (start_max - t_cpu0) * ncpu : 0;
	tol = cpu_truth / 50 > 5000000 ? cpu_truth / 50 : 5000000;
	t_check(cpu_pkts + slack + tol >= cpu_truth && cpu_pkts <= cpu_truth + tol,
		"the threads' USER+SYS+TRAP in packets %.3f ms is their CPU time since the attach began %.3f ms, less up to %.3f ms before the accounting began (+- %.3f ms)",
		cpu_pkts / 1e6, cpu_truth / 1e6, slack / 1e6, tol / 1e6);
	free(us.u);
	lwr_close(&r);
}

static void full_ring(void)
{
	unsigned int starts[MAXT] = { 0 }, missing = 0, twice = 0;
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	uint64_t lost, ctl_lost = 0;
	struct lwr_child c;
	struct lwr r;
	int k, ret;

	nthreads = NSLEEPY;
	start(&c, sleepy, 50);
	ret = lwr_open(&r, 0, c.pid, 1);
	t_check(ret == 0, "attach, rings of one page (%s)", strerror(-ret));
	lwr_clock_req(&ss, 0, 0);
	ss.max_depth = 8;
	ret = lwr_start(&r, &ss);
	t_check(ret == 0, "SAMPLE_START (%s)", strerror(-ret));
	lwr_poll(&r, 100);
	sh->stop = 1;
	lwr_wait(&r, &c);
	ret = lwr_stop(&r, NULL);
	t_check(ret == 0, "SAMPLE_STOP (%s)", strerror(-ret));
	lwr_drain(&r);
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_task *tr = (const void *)rec;

		if (rec->type != LWPROF_REC_TASK || tr->event != LWPROF_TASK_START)
			continue;
		k = idx_of((int)tr->tid);
		if (k >= 0)
			starts[k]++;
	}
	for (k = 0; k < nthreads; k++) {
		missing += !starts[k];
		twice += starts[k] > 1;
	}
	lost = lwr_lost(&r);
	for (unsigned int i = 0; i < r.nr; i++)
		ctl_lost += lwr_ctl(&r, i)->lost;
	printf("# %d threads: %u START records missing, LOST records count %llu, ctl->lost %llu\n",
	       nthreads, missing, (unsigned long long)lost,
	       (unsigned long long)ctl_lost);
	t_check(!twice, "no thread has two START records (%u)", twice);
	t_check(!missing || (lost >= missing && ctl_lost >= missing),
		"every START record arrived or its loss is counted (%u missing, %llu lost)",
		missing, (unsigned long long)lost);
	lwr_close(&r);
}

int main(void)
{
	lwr_test_begin();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		t_fatal("mmap");
	counted_once();
	full_ring();
	return lwr_test_end();
}
