// SPDX-License-Identifier: GPL-2.0
/*
 * CPU workload: thread "spin" spins in user mode for 300 ms (no system
 * calls), then thread "sys" reads /dev/zero in 64 KiB chunks for 300 ms
 * (time in the kernel clearing the buffer).  Each reads its own
 * microstates from the module's slot (tests/lib/mslot.h) when its busy
 * phase starts and ends, in user mode, and its CPU time just before the
 * first reading and just after the second; the spin also notes when it
 * was seen running its own code (covered) and every break of more than
 * 10 us in its loop (an interrupt, a preemption, or the host not running
 * the vCPU), for the log.  Then the threads' schedstat once done (see
 * struct ms_worker), and at the end, main prints the CPU time of both
 * threads up to their release by the kernel (process CPU clock minus its
 * own).
 *
 * Without a slot (no module, or not run under ptime: the perf backend's
 * tests), the phases run all the same, timed by the clock alone, and the
 * truths are each thread's CPU time and wall time over its phase, the
 * spin's time seen running its own code (wall time less its breaks) and
 * its breaks, and the read count.
 */
#include "mstate.h"
#include "mslot.h"

#define PHASE_NS	(300 * MS_MS)
#define BREAK_NS	10000
#define MAX_RUNS	(1 << 16)

struct phase {
	struct ms_worker w;
	const struct lwprof_ustate *us;
	struct ms_reading a, b;
	uint64_t cpu_a, cpu_b, calls;
	struct ms_trail trail;
	bool ok;
	uint64_t end, breaks, breaks_ns;	/* without a slot */
};

static char buf[64 << 10];
static const struct lwprof_ustate *area;

/*
 * Claim the slot, note the CPU time and take reading a.  With a slot, a
 * millisecond of the spin first (its trail then dropped): the first run of
 * its code and the readings' must fault their pages in before a, not in the
 * window, where a text fault is a blocked state (2.25 ms once, in a guest
 * whose page cache earlier tests had emptied).
 */
static void phase_begin(struct phase *p)
{
	ms_worker_begin(&p->w);
	p->us = ms_slot_claim(area);
	if (p->us && p->trail.run) {
		ms_read(p->us, &p->b);
		ms_spin_watch(p->us, ms_now() + MS_MS, &p->trail);
		p->trail.n = 0;
		p->trail.covered = 0;
		p->trail.full = false;
	}
	p->cpu_a = ms_cpu();
	if (p->us)
		p->ok = ms_read(p->us, &p->a);
	else
		p->a.t = ms_now();
}

/* Take reading b, then note the CPU time. */
static void phase_end(struct phase *p)
{
	p->ok = p->ok && ms_read(p->us, &p->b);
	p->end = ms_now();
	p->cpu_b = ms_cpu();
	ms_worker_park(&p->w);
}

static void *spin(void *arg)
{
	struct phase *p = arg;

	phase_begin(p);
	if (p->ok) {
		ms_spin_watch(p->us, p->a.t + PHASE_NS, &p->trail);
	} else if (!p->us) {
		uint64_t t, prev = p->a.t;

		do {
			t = ms_now();
			if (t - prev > BREAK_NS) {
				p->breaks_ns += t - prev;
				p->breaks++;
			}
			prev = t;
		} while (t < p->a.t + PHASE_NS);
	}
	phase_end(p);
	return NULL;
}

static void *sys(void *arg)
{
	struct phase *p = arg;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("/dev/zero");
		exit(2);
	}
	memset(buf, 1, sizeof(buf));	/* no page fault in the loop */
	phase_begin(p);
	do {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror("read");
			exit(2);
		}
		p->calls++;
	} while (ms_now() < p->a.t + PHASE_NS);
	phase_end(p);
	close(fd);
	return NULL;
}

static void report(struct phase *p)
{
	const struct ms_reading *a = &p->a, *b = &p->b;
	const char *nm = p->w.name;
	uint64_t blocked = 0, sum = 0, gaps = 0, nbreaks = 0;
	size_t i;
	int s;

	if (!p->us) {
		printf("truth %s_cpu_ns %llu\n", nm, (unsigned long long)(p->cpu_b - p->cpu_a));
		printf("truth %s_wall_ns %llu\n", nm, (unsigned long long)(p->end - p->a.t));
		if (p->calls) {
			printf("truth %s_calls %llu\n", nm, (unsigned long long)p->calls);
			return;
		}
		printf("truth %s_run_ns %llu\n", nm,
		       (unsigned long long)(p->end - p->a.t - p->breaks_ns));
		printf("truth %s_breaks %llu\n", nm, (unsigned long long)p->breaks);
		return;
	}
	if (!p->ok || p->trail.full) {
		fprintf(stderr, "%s: %s\n", nm,
			!p->ok ? "slot not readable" : "too many breaks");
		return;
	}
	for (s = LWPROF_MS_TFAULT; s <= LWPROF_MS_STOPPED; s++)
		blocked += ms_delta(a, b, s);
	for (s = 0; s < LWPROF_MS_COUNT; s++)
		sum += b->v[s];
	printf("truth %s_window_ns %llu\n", nm, (unsigned long long)(b->t - a->t));
	printf("truth %s_cpu_ns %llu\n", nm, (unsigned long long)(p->cpu_b - p->cpu_a));
	if (p->trail.run) {
		/* For the log: breaks of more than 10 us, from the stretches. */
		for (i = 1; i < p->trail.n; i++) {
			uint64_t g = p->trail.run[i][0] - p->trail.run[i - 1][1];

			if (g > BREAK_NS) {
				gaps += g;
				nbreaks++;
			}
		}
		printf("truth %s_covered_ns %llu\n", nm,
		       (unsigned long long)ms_trail_within(&p->trail, a->t, b->t));
		printf("truth %s_breaks %llu\n", nm, (unsigned long long)nbreaks);
		printf("truth %s_breaks_ns %llu\n", nm, (unsigned long long)gaps);
	}
	if (p->calls)
		printf("truth %s_calls %llu\n", nm, (unsigned long long)p->calls);
	printf("lwprof %s_user_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_USER));
	printf("lwprof %s_sys_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_SYSTEM));
	printf("lwprof %s_trap_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_TRAP));
	printf("lwprof %s_lat_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_WAIT_CPU));
	printf("lwprof %s_blocked_ns %lld\n", nm, (long long)blocked);
	printf("lwprof %s_end_user_ns %llu\n", nm, (unsigned long long)b->v[LWPROF_MS_USER]);
	printf("lwprof %s_end_sys_ns %llu\n", nm, (unsigned long long)b->v[LWPROF_MS_SYSTEM]);
	printf("lwprof %s_end_sum_ns %llu\n", nm, (unsigned long long)sum);
}

int main(void)
{
	struct phase sp = { 0 }, sy = { 0 };

	ms_no_thp();
	ms_tid("main");
	area = ms_area_map();
	/* Touched now: no page fault while it spins. */
	sp.trail.run = calloc(MAX_RUNS, sizeof(*sp.trail.run));
	if (!sp.trail.run)
		return 2;
	memset(sp.trail.run, 0xff, MAX_RUNS * sizeof(*sp.trail.run));
	sp.trail.max = MAX_RUNS;
	if (ms_worker_start(&sp.w, "spin", spin))
		return 2;
	ms_worker_reap(&sp.w);
	report(&sp);
	if (ms_worker_start(&sy.w, "sys", sys))
		return 2;
	ms_worker_reap(&sy.w);
	report(&sy);
	ms_truth("dead_threads_cpu_ns", ms_dead_threads_cpu());
	return 0;
}
