// SPDX-License-Identifier: GPL-2.0
/*
 * The cheap always-on mode (ABI 1.4, LWPROF_SS_KONLY with -K) and what a
 * session's threads cost the kernel in memory.
 *
 * A process of 2000 threads, each sleeping 500 ms at a time (so every one
 * owes a packet at each wake-up, at a 10 ms clock, two or three times in
 * a session), is sampled for 1.5 s in three ways, one session after the
 * other: user stacks with 8 KiB delta copies (what
 * `lwprof collect` does by default), the same with -K and LWPROF_SS_OFFCPU,
 * and -K with KONLY.
 * Kernel memory is Slab + VmallocUsed of /proc/meminfo (large kmallocs
 * count as Slab) before the attach (once the previous session's entries
 * are freed) and after SAMPLE_STOP (the session, its thread entries and
 * their buffers still alive), less the rings.  Checks:
 *  - KONLY: every thread got packets, none with user registers, a user
 *    frame walk or a stack copy, none deferred to the return to user mode;
 *    the sleeps' packets carry do_nanosleep (KBLOCK) and the user pc;
 *  - KONLY: less than 1 KiB of kernel memory per thread (its entry, 448
 *    bytes; neither the 16 KiB of stack-copy buffers a thread has with
 *    copies nor the 1 KiB of kernel frames it keeps with -K and copies);
 *  - SAMPLE_START refuses KONLY without -K or with a stack copy, IDLE
 *    outside a machine session, IRQ without -K (EINVAL).
 * The numbers of all three modes are printed for docs/results/benchmarks.md.
 */
#include <pthread.h>

#include "ksyms.h"
#include "ring.h"
#include "test.h"

#define NTHR		2000
#define RING_PAGES	2048

static volatile int *stop;
static uint64_t t_begin;

/* Where the test's time goes (a TCG guest is slow with 2000 threads). */
static void phase(const char *what)
{
	printf("# %.1f s: %s\n", (lwr_now() - t_begin) / 1e9, what);
	fflush(stdout);
}

static void *sleeper(void *arg)
{
	/*
	 * Not shorter: with 100 ms sleeps the 2000 threads' 37,000 packets
	 * of 8 KiB copies in 1.5 s kept a TCG guest busy for 6 to 27 s per
	 * session alone, and up to 400 s for the test in a full run.  The
	 * memory per thread is the same: each thread's buffers come with
	 * its first packet.
	 */
	struct timespec ts = { 0, 500000000 };

	while (!*stop)
		nanosleep(&ts, NULL);
	return NULL;
}

/* The child: NTHR sleeping threads; says so on fd, then waits for stop. */
static int threads(int fd)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	for (int i = 0; i < NTHR; i++)
		if (pthread_create(&t, &a, sleeper, NULL))
			return 1;
	if (write(fd, "r", 1) != 1)
		return 2;
	while (!*stop)
		pause();
	return 0;
}

/* /proc/meminfo, kB. */
struct mem {
	long free, slab, vmalloc;
};

static void meminfo(struct mem *m);

/*
 * Wait until the previous session's entries are freed (RCU callbacks
 * after its end): Slab steady for 500 ms, at most 10 s.
 */
static void settle(struct mem *m)
{
	struct mem prev;

	meminfo(&prev);
	for (int i = 0; i < 20; i++) {
		usleep(500000);
		meminfo(m);
		if (labs(m->slab - prev.slab) < 64)
			return;
		prev = *m;
	}
}

static void meminfo(struct mem *m)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	memset(m, 0, sizeof(*m));
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "MemFree: %ld", &m->free);
		sscanf(line, "Slab: %ld", &m->slab);
		sscanf(line, "VmallocUsed: %ld", &m->vmalloc);
	}
	if (f)
		fclose(f);
}

/* The objects of slab cache name, and their size: /proc/slabinfo. */
static void slabinfo(const char *name, long *objs, long *size)
{
	char line[512], n[64];
	FILE *f = fopen("/proc/slabinfo", "r");
	long active, num, sz;

	*objs = *size = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", n, &active, &num, &sz) == 4 &&
		    !strcmp(n, name)) {
			*objs = active;
			*size = sz;
		}
	if (f)
		fclose(f);
}

struct run {
	const char *name;
	unsigned int flags;
	unsigned int stack;
	long per_thread;	/* bytes of kernel memory per thread */
};

static void sample(pid_t pid, struct run *run, const struct ks_table *k)
{
	unsigned char *seen = calloc(1 << 22, 1);
	unsigned int tids = 0, bad = 0, kblock = 0;
	unsigned int deferred = 0;
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	struct mem m0, m1;
	long objs, size;
	uint64_t end;
	struct lwr r;
	int ret;

	settle(&m0);
	phase("settled");
	ret = lwr_open(&r, 0, pid, RING_PAGES);
	if (ret || !seen) {
		errno = -ret;
		t_fatal("attach");
	}
	lwr_clock_req(&ss, 10000000, run->stack);
	ss.flags = run->flags;
	ret = lwr_start(&r, &ss);
	if (ret) {
		errno = -ret;
		t_fatal("SAMPLE_START");
	}
	for (end = lwr_now() + 1500000000ULL; lwr_now() < end;)
		lwr_poll(&r, 50);
	phase("sampled");
	if (lwr_stop(&r, NULL))
		t_fatal("SAMPLE_STOP");
	phase("stopped");
	meminfo(&m1);
	slabinfo("lwprof_thread", &objs, &size);
	/* Kernel memory: the test's own copies of the rings are user memory. */
	run->per_thread = ((m1.slab - m0.slab + m1.vmalloc - m0.vmalloc) *
			   1024L - (long)(r.nr * r.mmap_size)) / NTHR;
	printf("# %s: MemFree -%ld kB, Slab +%ld kB, VmallocUsed +%ld kB (rings %zu kB): %ld bytes per thread; lwprof_thread: %ld of %ld bytes\n",
	       run->name, m0.free - m1.free, m1.slab - m0.slab,
	       m1.vmalloc - m0.vmalloc, r.nr * r.mmap_size / 1024,
	       run->per_thread, objs, size);
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE || s->pid != (__u32)pid)
			continue;
		if (s->tid < (1u << 22) && !seen[s->tid]) {
			seen[s->tid] = 1;
			tids++;
		}
		bad += (rec->flags & LWPROF_RS_REGS) || s->stack_size ||
		       s->nr_user > 1;
		deferred += !!(rec->flags & LWPROF_RS_DEFERRED);
		kblock += s->mstate_ns[LWPROF_MS_SLEEP] >= 20000000 &&
			  (rec->flags & LWPROF_RS_KBLOCK) && s->nr_user == 1 &&
			  ks_has(k, lwr_kips(s), s->nr_kernel, "do_nanosleep");
	}
	printf("# %s: %u threads with packets; %u with user registers or copies, %u deferred, %u sleeps on do_nanosleep\n",
	       run->name, tids, bad, deferred, kblock);
	if (run->flags & LWPROF_SS_KONLY) {
		t_check(lwr_lost(&r) == 0 && lwr_check(&r) == 0,
			"KONLY: nothing lost, whole records");
		t_check(tids >= NTHR, "KONLY: every thread has packets (%u)",
			tids);
		t_check(!bad && !deferred,
			"KONLY: no user registers, walks or copies (%u), nothing deferred (%u)",
			bad, deferred);
		t_check(kblock >= NTHR,
			"KONLY: sleeps carry do_nanosleep and the user pc (%u)",
			kblock);
	}
	free(seen);
	lwr_close(&r);
	phase("closed");
}

static void refusals(pid_t pid)
{
	static const struct {
		unsigned int flags, stack;
		const char *what;
	} bad[] = {
		{ LWPROF_SS_KONLY, 0, "KONLY without -K" },
		{ LWPROF_SS_KONLY | LWPROF_SS_KSTACK, 8192, "KONLY with copies" },
		{ LWPROF_SS_IDLE | LWPROF_SS_KSTACK, 0, "IDLE for a process" },
		{ LWPROF_SS_IRQ, 0, "IRQ without -K" },
	};
	struct lwprof_sample_start ss;
	struct lwr r;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (lwr_open(&r, 0, pid, 64))
			t_fatal("attach");
		lwr_clock_req(&ss, 10000000, bad[i].stack);
		ss.flags = bad[i].flags;
		errno = -lwr_start(&r, &ss);
		t_errno(-errno, EINVAL, bad[i].what);
		lwr_close(&r);
	}
}

int main(void)
{
	struct run runs[] = {
		{ "user stacks, 8 KiB delta copies", LWPROF_SS_SDELTA, 8192, 0 },
		{ "the same with -K, OFFCPU", LWPROF_SS_SDELTA | LWPROF_SS_KSTACK |
		  LWPROF_SS_OFFCPU, 8192, 0 },
		{ "-K KONLY", LWPROF_SS_KSTACK | LWPROF_SS_KONLY, 0, 0 },
	};
	struct ks_table k;
	int p[2], status;
	pid_t pid;
	char c;

	lwr_test_begin();
	t_begin = lwr_now();
	if (ks_load(&k))
		t_skip("no kernel addresses in /proc/kallsyms");
	stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED || pipe(p))
		t_fatal("mmap, pipe");
	pid = fork();
	if (!pid)
		_exit(threads(p[1]));
	if (pid < 0 || read(p[0], &c, 1) != 1)
		t_fatal("start 2000 threads");
	phase("2000 threads started");
	refusals(pid);
	for (unsigned int i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		sample(pid, &runs[i], &k);
	t_check(runs[2].per_thread < 1024,
		"KONLY: under 1 KiB of kernel memory per thread (%ld bytes)",
		runs[2].per_thread);
	*stop = 1;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	phase("2000 threads killed");
	return lwr_test_end();
}
