// SPDX-License-Identifier: GPL-2.0
/*
 * Counter-overflow profiling.
 *
 * page-faults, interval 1: tests/progs/smp_touch faults in N = 20000 new
 * pages from 4 threads (created after sampling started: the counter is
 * inherited).  There are at least N packets, each of value 1 and counter
 * index 0, from all 4 threads, and their number is within 2% of what
 * `perf stat -e page-faults` counts for the same command.
 *
 * task-clock, every 1 ms: tests/progs/spin runs 1 s.  Every packet's
 * value is the task-clock's nanoseconds since the previous one (not the
 * period: a timer that fired late starts its next period from then, and
 * one stopped by a switch restarts with what was left of it, which can be
 * nothing); together they are the count of perf's own task-clock event
 * on the same process over the same time, less at most the time from the
 * last packet to the exit, and no more than the process's CPU time.
 * Their number is not compared with perf's samples: where the (v)CPU is
 * held up, both timers fire late and drop ticks, each its own (at host
 * load 8 the guest kept 40-60% of them, the two numbers up to 6% apart).
 *
 * cycles (hardware): where there is no PMU (TCG) SAMPLE_START fails with
 * ENOENT or EOPNOTSUPP and nothing has started: the same session then
 * starts without it.  With a PMU, packets come.
 */
#include "peer.h"
#include "ring.h"
#include "test.h"

#define PAGES	20000
#define THREADS	4

static char touch[512], spin[512];

static void counter_req(struct lwprof_sample_start *ss, __u32 type,
			__u64 config, __u64 period)
{
	lwr_clock_req(ss, 0, 0);
	ss->max_depth = 16;
	ss->nr_counters = 1;
	ss->counters[0].type = type;
	ss->counters[0].config = config;
	ss->counters[0].period = period;
}

struct tally {
	unsigned int packets, ones, threads, bad;
	int tids[THREADS + 1];
	uint64_t value, min, last_ns;
};

static void count(struct lwr *r, int pid, struct tally *t)
{
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	unsigned int i, k;

	memset(t, 0, sizeof(*t));
	while ((rec = lwr_iter_next(r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE)
			continue;
		if (s->kind != LWPROF_SK_COUNTER || s->pid != (__u32)pid ||
		    s->counter != 0) {
			t->bad++;
			continue;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			t->bad += s->mstate_ns[i] != 0;
		t->packets++;
		t->ones += s->value == 1;
		t->value += s->value;
		if (t->packets == 1 || s->value < t->min)
			t->min = s->value;
		if (s->time_ns > t->last_ns)
			t->last_ns = s->time_ns;
		for (k = 0; k < t->threads && t->tids[k] != (int)s->tid; k++)
			;
		if (k == t->threads && k < THREADS + 1)
			t->tids[t->threads++] = s->tid;
	}
}

static void page_faults(void)
{
	char *argv[] = { touch, "20000", "4", NULL }, cmd[600];
	struct lwprof_sample_start ss;
	struct lwr_child c;
	struct tally t;
	struct lwr r;
	long long perf;
	int ret;

	printf("# page-faults, interval 1\n");
	snprintf(cmd, sizeof(cmd), "%s %d %d", touch, PAGES, THREADS);
	perf = peer_stat("page-faults", cmd);
	t_check(perf >= PAGES, "perf stat counts %lld page faults (>= %d)",
		perf, PAGES);
	counter_req(&ss, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1);
	ret = lwr_begin(&r, &c, lwr_exec_fn, argv, 4096, &ss);
	t_check(ret == 0, "SAMPLE_START with page-faults (%s)", strerror(-ret));
	ret = lwr_finish(&r, &c, NULL, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "smp_touch exited 0");
	count(&r, c.pid, &t);
	t_check(t.packets >= PAGES, "%u packets for %d new pages", t.packets,
		PAGES);
	t_check(perf > 0 && within(t.packets, perf, 2),
		"within 2%% of perf stat's %lld", perf);
	t_check(t.ones == t.packets, "each of value 1 (%u)", t.ones);
	t_check(t.bad == 0, "all counter 0 of the process, no microstates (%u not)",
		t.bad);
	t_check(t.threads == THREADS + 1,
		"from the main thread and its %d threads (%u)", THREADS,
		t.threads);
	lwr_close(&r);
}

static void task_clock(void)
{
	char *argv[] = { spin, "1", NULL };
	const struct lwprof_thread_usage *u;
	struct lwr_usage us = { 0 };
	struct lwprof_sample_start ss;
	unsigned int perf_n, perf_lost;
	long long perf_ns;
	uint64_t tail;
	struct peer peer = { -1, MAP_FAILED, 0 };
	struct lwr_child c;
	uint64_t cpu = 0;
	struct tally t;
	struct lwr r;
	int ret;

	printf("# task-clock, every 1 ms\n");
	counter_req(&ss, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000);
	ret = lwr_begin(&r, &c, lwr_exec_fn, argv, 512, &ss);
	t_check(ret == 0, "SAMPLE_START with task-clock (%s)", strerror(-ret));
	ret = peer_open(&peer, c.pid, PERF_COUNT_SW_TASK_CLOCK, 1000000);
	if (ret) {
		errno = -ret;
		t_fatal("perf_event_open(task-clock)");
	}
	ret = lwr_finish(&r, &c, &us, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "spin exited 0");
	perf_n = peer_samples(&peer, &perf_lost);
	perf_ns = peer_count(&peer);
	peer_close(&peer);
	count(&r, c.pid, &t);
	u = lwr_usage_tid(&us, c.pid);
	if (u)
		cpu = u->mstate_ns[LWPROF_MS_USER] +
		      u->mstate_ns[LWPROF_MS_SYSTEM] +
		      u->mstate_ns[LWPROF_MS_TRAP];
	printf("# %u packets, %.3f ms; perf %u samples (%u lost), %.3f ms; CPU time %.3f ms\n",
	       t.packets, t.value / 1e6, perf_n, perf_lost, perf_ns / 1e6,
	       cpu / 1e6);
	t_check(t.packets > 0 && t.min > 0,
		"each of value its task-clock time since the last (least %.3f ms)",
		t.min / 1e6);
	/* What the packets leave out ran after the last: at most that long. */
	tail = u && u->end_ns > t.last_ns ? u->end_ns - t.last_ns : 0;
	t_check(perf_ns > 0 && t.value <= (uint64_t)perf_ns &&
		t.value + tail + 1000 >= (uint64_t)perf_ns,
		"together perf's task-clock count (%.3f ms), less at most the %.3f ms after the last",
		perf_ns / 1e6, tail / 1e6);
	t_check(t.value <= cpu + 1000000,
		"together no more than its CPU time (%.3f ms)", cpu / 1e6);
	t_check(t.bad == 0, "all counter 0 of the process (%u not)", t.bad);
	free(us.u);
	lwr_close(&r);
}

static void cycles(void)
{
	struct lwprof_sample_start ss;
	struct lwr_child c;
	char *argv[] = { spin, "0.5", NULL };
	struct tally t;
	struct lwr r;
	int ret;

	printf("# cycles\n");
	counter_req(&ss, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000000);
	if (lwr_spawn(&c, lwr_exec_fn, argv))
		t_fatal("fork");
	ret = lwr_open(&r, 0, c.pid, 512);
	if (ret) {
		errno = -ret;
		t_fatal("attach, ring setup and mmap");
	}
	ret = lwr_start(&r, &ss);
	if (ret) {
		t_check(ret == -ENOENT || ret == -EOPNOTSUPP,
			"no PMU: SAMPLE_START with cycles fails with ENOENT or EOPNOTSUPP (%s)",
			strerror(-ret));
		lwr_clock_req(&ss, 10000000, 0);
		ret = lwr_start(&r, &ss);
		t_check(ret == 0, "then the session starts without it (%s)",
			strerror(-ret));
		ret = lwr_finish(&r, &c, NULL, NULL);
		t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "spin exited 0");
		lwr_close(&r);
		return;
	}
	ret = lwr_finish(&r, &c, NULL, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "spin exited 0");
	count(&r, c.pid, &t);
	t_check(t.packets > 0 && t.bad == 0, "a PMU: %u cycles packets",
		t.packets);
	lwr_close(&r);
}

int main(void)
{
	const char *b = getenv("LWPROF_BUILD") ? : "build";

	snprintf(touch, sizeof(touch), "%s/tests/progs/smp_touch", b);
	snprintf(spin, sizeof(spin), "%s/tests/progs/spin", b);
	lwr_test_begin();
	page_faults();
	task_clock();
	cycles();
	return lwr_test_end();
}
