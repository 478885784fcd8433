// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof's clock: nanoseconds on CLOCK_MONOTONIC's time line, read in a
 * handful of instructions.  Every probe reads it (a system call takes two
 * readings, a context switch one), so its cost is much of the module's.
 *
 * Where the kernel keeps time with the TSC, the TSC is scaled to ns with a
 * multiply and a shift, and anchored to CLOCK_MONOTONIC when the probes
 * are attached.  It then differs from CLOCK_MONOTONIC only by NTP's
 * frequency correction since the anchor (parts per million).  Elsewhere
 * it is ktime_get_mono_fast_ns(), several times dearer.
 *
 * The anchor changes only in lwprof_clock_anchor(), called while no probe
 * is attached and no session exists, so no reader sees it move.
 */
#include <linux/clocksource.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <asm/cpufeature.h>
#include <asm/tsc.h>

#include "internal.h"

struct lwprof_clock lwprof_clock __read_mostly;

/*
 * Trust the TSC where the kernel's own timekeeping runs on it (and has not
 * found it unstable): then CLOCK_MONOTONIC is the TSC scaled, and so is
 * this clock.  6.1 does not name the current clocksource to modules, but
 * a timekeeping snapshot carries its counter: if that lies between two
 * TSC readings around it, the counter is the TSC.
 */
static bool lwprof_tsc_trusted(void)
{
	struct system_time_snapshot snap;
	unsigned long flags;
	u64 t0, t1;

	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz || check_tsc_unstable())
		return false;
	local_irq_save(flags);
	t0 = rdtsc_ordered();
	ktime_get_snapshot(&snap);
	t1 = rdtsc_ordered();
	local_irq_restore(flags);
	return t0 <= snap.cycles && snap.cycles <= t1;
}

void lwprof_clock_anchor(void)
{
	struct lwprof_clock c = { };
	unsigned long flags;
	u64 mono, cyc;

	if (lwprof_tsc_trusted()) {
		/*
		 * kHz to ns per cycle, rounded, in 32.32 fixed point: within
		 * half a unit of 2^-32 ns per cycle, under a part per billion
		 * for any TSC from a few MHz to tens of GHz.
		 */
		c.mult = div_u64(((u64)NSEC_PER_MSEC << LWPROF_CLOCK_SHIFT) +
				 tsc_khz / 2, tsc_khz);
		local_irq_save(flags);
		cyc = rdtsc_ordered();
		mono = ktime_get_mono_fast_ns();
		local_irq_restore(flags);
		c.offset = mono - lwprof_tsc_ns(cyc, c.mult);
		c.tsc = true;
	}
	lwprof_clock = c;
}
