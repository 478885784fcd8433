// SPDX-License-Identifier: GPL-2.0
/*
 * Clock profiling's rate: a thread that spins in user mode for 2 s gets one
 * clock packet per interval, 200 at 10 ms and 2000 at 1 ms, most taken at
 * the tick with the interrupted registers, the others when it returned to
 * user mode from an interrupt or a preemption that took the tick's place; packets in the kernel without a
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
 * and within 5% of the nominal count whenever perf's are within 2% of it
 * (the guest kept its ticks; with perf itself 4% short the nominal count
 * is not the truth, as in guest/collect_run).
 */
#include "peer.h"
#include "ring.h"
#include "test.h"


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
	unsigned int away = 0;
	uint64_t records = 0, life, last_user = 0, first_kernel = UINT64_MAX;
	struct lwr_iter it = { 0 };
	unsigned int perf_n, perf_lost;
	struct lwr_child c;
	struct peer peer = { -1, NULL, 0 };
	struct lwr r;
	int ret;

	printf("# clock %llu ns\n", (unsigned long long)clock_ns);
	lwr_clock_req(&ss, clock_ns, 8192);
	ret = lwr_begin(&r, &c, spin, NULL, 256, &ss);
	t_check(ret == 0, "SAMPLE_START at %llu ns (%s)",
		(unsigned long long)clock_ns, strerror(-ret));
	ret = peer_open(&peer, c.pid, PERF_COUNT_SW_CPU_CLOCK, clock_ns);
	if (ret) {
		errno = -ret;
		t_fatal("perf_event_open(cpu-clock) on the spinner");
	}
	ret = lwr_finish(&r, &c, &us, &st);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "the spinner exited 0");

	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		records++;
		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)c.pid)
			continue;
		if (s->kind != LWPROF_SK_CLOCK)
			bad++;
		else if (rec->flags & LWPROF_RS_EXIT)
			exits++;
		else if (rec->flags & LWPROF_RS_DEFERRED) {
			deferred++;
			/* The thread left user mode in the interval. */
			away += s->mstate_ns[LWPROF_MS_SYSTEM] +
				s->mstate_ns[LWPROF_MS_TRAP] +
				s->mstate_ns[LWPROF_MS_WAIT_CPU] > 0;
		}
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
	if (within(perf_n, expect, 2))
		t_check(within(ticks + deferred, expect, 5),
			"%u clock packets for a %.1f s spin at %.1f ms: %u +- 5%%",
			ticks + deferred, SPIN_NS / 1e9, clock_ns / 1e6,
			expect);
	else
		printf("# the guest lost ticks: perf took %u samples, not %u +- 2%%\n",
		       perf_n, expect);
	t_check(ticks > deferred,
		"most (%u of %u) taken at the tick in user mode", ticks,
		ticks + deferred);
	t_check(away == deferred,
		"the %u deferred ones: the thread was in the kernel, an interrupt or waiting for the CPU in their interval (%u)",
		deferred, away);
	t_check(exits == 1, "one exit packet (%u)", exits);
	t_check(first_kernel > last_user,
		"packets without a user stack (%u) only after the last with one: at its exit",
		other);
	t_check(bad == 0, "no other packets (%u)", bad);
	t_check(st.lost == 0, "SAMPLE_STOP: nothing lost (%llu)",
		(unsigned long long)st.lost);
	t_check(st.records == records,
		"SAMPLE_STOP counts the %llu records read (%llu)",
		(unsigned long long)records, (unsigned long long)st.records);
	free(us.u);
	lwr_close(&r);
}

int main(void)
{
	lwr_test_begin();
	run(10000000);
	run(1000000);
	return lwr_test_end();
}
