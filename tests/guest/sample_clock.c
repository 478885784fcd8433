// SPDX-License-Identifier: GPL-2.0
/*
 * Clock profiling's rate: a thread that spins in user mode for 2 s gets one
 * clock packet per interval, 200 at 10 ms and 2000 at 1 ms, most taken at
 * the tick with the interrupted registers; packets in the kernel without a
 * user stack only once it is exiting (its mm gone); then its exit packet.
 * Nothing
 * is lost, the rings hold whole records, and SAMPLE_STOP's count of
 * records is what the reader found.
 *
 * The truth for the count: a timer can only tick while the vCPU runs, and
 * a TCG guest on a busy host stalls for milliseconds at times, so a 1 ms
 * timer loses ticks that no profiler can take (perf loses them too).  So
 * the same thread is also sampled by perf's cpu-clock at the same period,
 * at the same time: lwprof's packets must be within 5% of perf's samples,
 * and within 5% of the nominal count whenever perf's are.
 */
#include <linux/perf_event.h>

#include "ring.h"
#include "test.h"

/* perf's cpu-clock sampling of pid every period ns, into a mapped ring. */
struct peer {
	int fd;
	void *map;
	size_t size;
};

#define PEER_PAGES	128

static int peer_open(struct peer *p, pid_t pid, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_TID;
	a.exclude_kernel = 1;
	p->fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	p->size = (PEER_PAGES + 1) * (size_t)getpagesize();
	p->map = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	return p->map == MAP_FAILED ? -errno : 0;
}

/* Samples in perf's ring (it was big enough to hold them all). */
static unsigned int peer_samples(struct peer *p, unsigned int *lost)
{
	struct perf_event_mmap_page *pg = p->map;
	unsigned char *data = (unsigned char *)p->map + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = 0;
	unsigned int n = 0;

	*lost = head > pg->data_size;
	while (pos + sizeof(struct perf_event_header) <= head &&
	       head <= pg->data_size) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size)
			break;
		n += h->type == PERF_RECORD_SAMPLE;
		*lost += h->type == PERF_RECORD_LOST;
		pos += h->size;
	}
	return n;
}

static void peer_close(struct peer *p)
{
	munmap(p->map, p->size);
	close(p->fd);
}

static int within(unsigned int got, unsigned int want, unsigned int pct)
{
	return got * 100 >= want * (100 - pct) && got * 100 <= want * (100 + pct);
}

#define SPIN_NS	2000000000ULL

static int spin(void *arg)
{
	uint64_t end = lwr_now() + SPIN_NS;
	volatile unsigned long n = 0;

	while (lwr_now() < end)
		for (int i = 0; i < 1000; i++)
			n++;
	return 0;
}

static void run(uint64_t clock_ns)
{
	const unsigned int expect = SPIN_NS / clock_ns;
	const struct lwprof_thread_usage *u;
	struct lwr_usage us = { 0 };
	struct lwprof_sample_start ss;
	struct lwprof_sample_stop st;
	const struct lwprof_rec *rec;
	unsigned int ticks = 0, deferred = 0, exits = 0, other = 0, bad = 0;
	uint64_t records = 0, life, last_user = 0, first_kernel = UINT64_MAX;
	struct lwr_iter it = { 0 };
	unsigned int perf_n, perf_lost;
	struct lwr_child c;
	struct peer peer = { -1, NULL, 0 };
	struct lwr r;
	int ret;

	printf("# clock %llu ns\n", (unsigned long long)clock_ns);
	if (lwr_spawn(&c, spin, NULL))
		t_fatal("fork");
	ret = lwr_open(&r, 0, c.pid, 256);
	if (ret) {
		errno = -ret;
		t_fatal("attach, ring setup and mmap");
	}
	ret = peer_open(&peer, c.pid, clock_ns);
	if (ret) {
		errno = -ret;
		t_fatal("perf_event_open(cpu-clock) on the spinner");
	}
	lwr_clock_req(&ss, clock_ns, 8192);
	ret = lwr_start(&r, &ss);
	t_check(ret == 0, "SAMPLE_START at %llu ns (%s)",
		(unsigned long long)clock_ns, strerror(-ret));
	lwr_go(&c);
	ret = lwr_wait(&r, &c);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "the spinner exited 0");
	lwr_usage_final(&r, &us, 5000);
	ret = lwr_stop(&r, &st);
	t_check(ret == 0, "SAMPLE_STOP (%s)", strerror(-ret));

	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		records++;
		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)c.pid)
			continue;
		if (s->kind != LWPROF_SK_CLOCK)
			bad++;
		else if (rec->flags & LWPROF_RS_EXIT)
			exits++;
		else if (rec->flags & LWPROF_RS_DEFERRED)
			deferred++;
		else if ((rec->flags & LWPROF_RS_REGS) && s->nr_user)
			ticks++;
		else if (rec->flags & LWPROF_RS_KMODE)
			other++;	/* exiting, its mm gone: kernel only */
		else
			bad++;
		if (rec->flags & LWPROF_RS_REGS)
			last_user = s->time_ns > last_user ? s->time_ns : last_user;
		else if (rec->flags & LWPROF_RS_KMODE)
			first_kernel = s->time_ns < first_kernel ? s->time_ns :
				       first_kernel;
	}
	u = lwr_usage_tid(&us, c.pid);
	life = u ? u->end_ns - u->start_ns : 0;
	perf_n = peer_samples(&peer, &perf_lost);
	peer_close(&peer);
	printf("# %u at ticks, %u deferred, %u exit, %u in the kernel; life %.3f s; perf %u samples\n",
	       ticks, deferred, exits, other, life / 1e9, perf_n);
	t_check(perf_lost == 0, "perf lost no samples");
	t_check(within(ticks + deferred, perf_n, 5),
		"%u clock packets at %.1f ms: perf's cpu-clock took %u samples of the same thread (+- 5%%)",
		ticks + deferred, clock_ns / 1e6, perf_n);
	if (within(perf_n, expect, 5))
		t_check(within(ticks + deferred, expect, 5),
			"%u clock packets for a %.1f s spin at %.1f ms: %u +- 5%%",
			ticks + deferred, SPIN_NS / 1e9, clock_ns / 1e6,
			expect);
	else
		printf("# the guest lost ticks: perf took %u samples, not %u +- 5%%\n",
		       perf_n, expect);
	t_check(ticks >= (ticks + deferred) * 9 / 10,
		"most (%u of %u) taken at the tick in user mode", ticks,
		ticks + deferred);
	t_check(exits == 1, "one exit packet (%u)", exits);
	t_check(first_kernel > last_user,
		"packets without a user stack (%u) only after the last with one: at its exit",
		other);
	t_check(bad == 0, "no other packets (%u)", bad);
	t_check(st.lost == 0 && lwr_lost(&r) == 0,
		"nothing lost (SAMPLE_STOP %llu, LOST records %llu)",
		(unsigned long long)st.lost, (unsigned long long)lwr_lost(&r));
	t_check(lwr_check(&r) == 0, "every ring holds whole, well-formed records");
	t_check(st.records == records,
		"SAMPLE_STOP counts the %llu records read (%llu)",
		(unsigned long long)records, (unsigned long long)st.records);
	free(us.u);
	lwr_close(&r);
}

int main(void)
{
	int ret = lwr_module_load();

	if (ret) {
		errno = -ret;
		t_fatal("load lwprof.ko");
	}
	run(10000000);
	run(1000000);
	ret = lwr_module_unload();
	t_check(ret == 0, "lwprof.ko unloads (%s)", strerror(-ret));
	return t_done();
}
