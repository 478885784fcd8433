// SPDX-License-Identifier: GPL-2.0
/*
 * phases [MS...]: CPU-bound phases of known CPU time around the collector
 * API (include/lwprof/collector.h).  Phase i burns MS[i] ms of its own
 * thread CPU time in a function of its own after collector_sample("phaseI");
 * phase 2 (the second) runs between collector_pause() and
 * collector_resume(), so no metric may hold it.  Default: 300 200 400.
 * Each point is preceded by a 20 ms sleep (point()).
 * (noipa: three identical bodies, which gcc would otherwise fold into one.
 * The clock is a system call, read every 2M additions: the loop stays in
 * the phase's function, whose caller a frame-pointer walk from inside
 * libc's clock_gettime would skip.)
 * Prints each phase's measured CPU time: "phase N MS".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lwprof/collector.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

#define BURN(name)							\
	static __attribute__((noipa)) double name(double ms)	\
	{								\
		double t0 = cpu_ms(), t;				\
		unsigned long i = 0;					\
									\
		while ((t = cpu_ms()) - t0 < ms)			\
			for (int k = 0; k < 2000000; k++)			\
				i += k ^ i;				\
		sink = i;						\
		return t - t0;						\
	}
BURN(burn1)
BURN(burn2)
BURN(burn3)

/*
 * A short sleep before each sample point: the module sends a thread's
 * time since its last packet when it wakes (the return to user mode), so
 * the packet holding the time before the point is stamped before it, and
 * each phase's samples begin with a fresh interval, however late the
 * clock's ticks come (a busy TCG guest's).
 */
static void point(const char *name)
{
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	collector_sample(name);
}

int main(int argc, char **argv)
{
	double ms[3] = { 300, 200, 400 }, got[3];
	int i;

	for (i = 0; i < 3 && i + 1 < argc; i++)
		ms[i] = atof(argv[i + 1]);
	point("phase1");
	got[0] = burn1(ms[0]);
	point("phase2");
	collector_pause();
	got[1] = burn2(ms[1]);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	collector_resume();
	point("phase3");
	got[2] = burn3(ms[2]);
	point("done");
	for (i = 0; i < 3; i++)
		printf("phase %d %.3f\n", i + 1, got[i]);
	return 0;
}
