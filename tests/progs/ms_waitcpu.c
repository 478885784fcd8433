// SPDX-License-Identifier: GPL-2.0
/*
 * Wait-CPU workload: three threads pin themselves to one CPU and sleep at
 * a start gate; main (on another CPU) opens it and they spin in user mode
 * until 600 ms later, so each runs about 200 ms and waits for the CPU
 * about 400 ms.  Each thread reads its own microstates from the module's
 * slot (tests/lib/mslot.h) at a, when it first runs after the gate, and at
 * b, when its spin ends, and notes while it spins when it was seen in
 * user mode.  Between a and b it never blocks, so its time off the CPU is
 * all WAIT_CPU, which lies between two exact bounds: the time its siblings
 * were seen in user mode on its CPU (it was off the CPU then) and the time
 * it was not seen in user mode itself (its breaks).  Also printed: its
 * CPU time over [a, b] (clock read before a and after b), its covered
 * time, and the slot's totals at b, which ptime's final numbers must
 * continue.
 *
 * Without a slot (no module, or not run under ptime: the perf backend's
 * and /proc's tests), each thread spins to the same deadline and the truth
 * is the old one: its time off the CPU from the gate to its end, (end -
 * gate) - (CPU time at end - CPU time at the gate), plus the run-queue wait
 * its schedstat held just before it slept at the gate (*_offcpu_ns), its
 * CPU time at its end (*_cpu_ns) and how late it ended (*_late_ns); and
 * the time the CPU gave to no task meanwhile (lost_ns, cpu_lost()).
 *
 *   ms_waitcpu [CPU]     (default: the last CPU)
 */
#include <sched.h>

#include "mstate.h"
#include "mslot.h"
#include "procstat.h"

#define NTHREADS	3
#define SPIN_NS		(600 * MS_MS)
#define MAX_RUNS	(1 << 16)

struct spinner {
	struct ms_worker w;
	const struct lwprof_ustate *us;
	struct ms_reading a, b;
	uint64_t cpu_a, cpu_b;
	struct ms_trail trail;
	bool ok;
	uint64_t cpu_gate;			/* without a slot */
	unsigned long long wait_gate;
};

static uint64_t gate_time, deadline;
static sem_t ready, gate;
static int pin_cpu;
static const struct lwprof_ustate *area;

/*
 * The time CPU cpu gave to no task so far: its interrupts, softirqs and
 * what the hypervisor took (/proc/stat's irq, softirq and steal, in ns of
 * USER_HZ ticks).  With interrupt-time and steal accounting, a thread
 * running then has it in neither its CPU time nor its run-queue wait, so
 * the truth's "off the CPU" must leave it out.
 */
static uint64_t cpu_lost(int cpu)
{
	uint64_t v[cpu + 1][PS_N];

	if (proc_stat(v, cpu + 1) <= cpu)
		return 0;
	return v[cpu][PS_IRQ] + v[cpu][PS_SOFTIRQ] + v[cpu][PS_STEAL];
}

static void *spin(void *arg)
{
	struct spinner *s = arg;

	ms_worker_begin(&s->w);
	ms_pin(pin_cpu);
	s->us = ms_slot_claim(area);
	if (!s->us) {
		unsigned long long run;

		ms_schedstat(&run, &s->wait_gate);
		s->cpu_gate = ms_cpu();
	}
	sem_post(&ready);
	while (sem_wait(&gate))
		;
	if (s->us) {
		s->cpu_a = ms_cpu();
		s->ok = ms_read(s->us, &s->a);
		ms_spin_watch(s->us, deadline, &s->trail);
		s->ok = ms_read(s->us, &s->b) && s->ok;
		s->cpu_b = ms_cpu();
	} else {
		ms_spin_until(deadline);
	}
	ms_worker_park(&s->w);
	return NULL;
}

static void report(struct spinner *s, int n, int i)
{
	const struct ms_reading *a = &s[i].a, *b = &s[i].b;
	const char *nm = s[i].w.name;
	uint64_t own, sib = 0, blocked = 0, sum = 0;
	int j;

	if (!s[i].us) {
		const struct ms_worker *w = &s[i].w;

		printf("truth %s_offcpu_ns %llu\n", nm,
		       (unsigned long long)(w->end - gate_time -
					    (w->cpu - s[i].cpu_gate) + s[i].wait_gate));
		printf("truth %s_cpu_ns %llu\n", nm, (unsigned long long)w->cpu);
		printf("truth %s_late_ns %lld\n", nm, (long long)(w->end - deadline));
		return;
	}
	if (!s[i].ok || s[i].trail.full) {
		fprintf(stderr, "%s: %s\n", nm,
			!s[i].ok ? "slot not readable" : "too many breaks");
		return;
	}
	own = ms_trail_within(&s[i].trail, a->t, b->t);
	for (j = 0; j < n; j++)
		if (j != i)
			sib += ms_trail_within(&s[j].trail, a->t, b->t);
	for (j = LWPROF_MS_TFAULT; j <= LWPROF_MS_STOPPED; j++)
		blocked += ms_delta(a, b, j);
	for (j = 0; j < LWPROF_MS_COUNT; j++)
		sum += b->v[j];
	printf("truth %s_window_ns %llu\n", nm, (unsigned long long)(b->t - a->t));
	printf("truth %s_covered_ns %llu\n", nm, (unsigned long long)own);
	printf("truth %s_breaks_ns %llu\n", nm, (unsigned long long)(b->t - a->t - own));
	printf("truth %s_siblings_ns %llu\n", nm, (unsigned long long)sib);
	printf("truth %s_cpu_ns %llu\n", nm, (unsigned long long)(s[i].cpu_b - s[i].cpu_a));
	printf("truth %s_late_ns %lld\n", nm, (long long)(b->t - deadline));
	printf("lwprof %s_lat_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_WAIT_CPU));
	printf("lwprof %s_user_ns %lld\n", nm, (long long)ms_delta(a, b, LWPROF_MS_USER));
	printf("lwprof %s_blocked_ns %lld\n", nm, (long long)blocked);
	printf("lwprof %s_end_lat_ns %llu\n", nm, (unsigned long long)b->v[LWPROF_MS_WAIT_CPU]);
	printf("lwprof %s_end_sum_ns %llu\n", nm, (unsigned long long)sum);
}

int main(int argc, char **argv)
{
	struct spinner s[NTHREADS] = { 0 };
	uint64_t overlap = 0, lost;
	char name[16];
	int i, j;

	ms_no_thp();
	pin_cpu = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	/* Main on another CPU: waking the spinners, it never takes theirs. */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		ms_pin(pin_cpu ? 0 : 1);
	ms_tid("main");
	area = ms_area_map();
	sem_init(&ready, 0, 0);
	sem_init(&gate, 0, 0);
	for (i = 0; i < NTHREADS; i++) {
		/* Touched now: no page fault while they spin. */
		s[i].trail.run = calloc(MAX_RUNS, sizeof(*s[i].trail.run));
		if (!s[i].trail.run)
			return 2;
		memset(s[i].trail.run, 0xff, MAX_RUNS * sizeof(*s[i].trail.run));
		s[i].trail.max = MAX_RUNS;
		snprintf(name, sizeof(name), "spin%d", i);
		if (ms_worker_start(&s[i].w, name, spin))
			return 2;
	}
	for (i = 0; i < NTHREADS; i++)
		while (sem_wait(&ready))
			;
	for (i = 0; i < NTHREADS; i++)
		while (ms_task_state(s[i].w.tid) != 'S')
			usleep(1000);
	lost = cpu_lost(pin_cpu);
	gate_time = ms_now();
	deadline = gate_time + SPIN_NS;
	for (i = 0; i < NTHREADS; i++)
		sem_post(&gate);
	for (i = 0; i < NTHREADS; i++)
		ms_worker_reap(&s[i].w);
	printf("truth lost_ns %llu\n",
	       (unsigned long long)(cpu_lost(pin_cpu) - lost));
	for (i = 0; i < NTHREADS; i++)
		report(s, NTHREADS, i);
	for (i = 0; i < NTHREADS; i++)
		for (j = i + 1; j < NTHREADS; j++)
			overlap += ms_trail_overlap(&s[i].trail, &s[j].trail);
	printf("truth overlap_ns %llu\n", (unsigned long long)overlap);
	return 0;
}
