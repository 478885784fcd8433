/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU time each function of tests/progs/seed_example took, measured
 * by the program itself: the Makefile builds it with -finstrument-functions
 * and forces this header in, so that every function's entry and exit read
 * the thread's CPU clock, the clock its units of work end by.  A
 * function's time is inclusive and counted over its outermost call (the
 * inner calls of a recursion are inside it), as er_print counts inclusive
 * metrics.  At exit, one line per function: "seed_cpu NAME NS".
 *
 * A unit ends at the first clock read past its length, so a function
 * takes its nominal units only as long as nothing lengthens that read: a
 * vCPU stall or a preemption that spans it adds its length to the CPU
 * clock of the function it ends.  The tests' truth is these figures.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#define SEED_FNS	16
#define SEED_NOTRACE	__attribute__((no_instrument_function, noinline))

struct seed_fn {
	void *fn;
	int depth;
	unsigned long long t0, ns;
};

static struct seed_fn seed_fns[SEED_FNS];

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static SEED_NOTRACE unsigned long long seed_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static SEED_NOTRACE struct seed_fn *seed_find(void *fn)
{
	int i;

	for (i = 0; i < SEED_FNS; i++) {
		if (!seed_fns[i].fn)
			seed_fns[i].fn = fn;
		if (seed_fns[i].fn == fn)
			return &seed_fns[i];
	}
	return NULL;
}

SEED_NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	struct seed_fn *f = seed_find(fn);

	if (f && !f->depth++)
		f->t0 = seed_cpu_ns();
}

SEED_NOTRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	unsigned long long now = seed_cpu_ns();
	struct seed_fn *f = seed_find(fn);

	if (f && f->depth && !--f->depth)
		f->ns += now - f->t0;
}

/* After main has returned: its exit has been counted. */
static SEED_NOTRACE __attribute__((destructor)) void seed_report(void)
{
	Dl_info d;
	int i;

	for (i = 0; i < SEED_FNS && seed_fns[i].fn; i++)
		if (dladdr(seed_fns[i].fn, &d) && d.dli_sname)
			printf("seed_cpu %s %llu\n", d.dli_sname, seed_fns[i].ns);
	fflush(stdout);
}
