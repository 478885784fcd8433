#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-thread identities, against the kernel's own trace of the scheduler
# (tests/lib/schedtrace.sh says why not schedstat), for three
# single-threaded children pinned to one CPU that spin, make system calls,
# sleep and wait for the CPU: the ten states sum to the thread's REAL
# within 0.1%, and USER+SYS+TRAP, WAIT_CPU, REAL and the blocked states
# lie within what the trace makes of its run time, its run-queue wait,
# its life (counted from the child's sched_wakeup_new, not its fork:
# until then it is on no run queue) and its time switched out asleep.
# Two traces bracket every one of lwprof's clock readings: one whose
# probes run before lwprof's on each tracepoint (started before lwprof
# attaches its probes), one whose probes run after (started after a
# session holds them attached), so the bounds hold whatever the host does
# (the module's clock and the traces'
# CLOCK_MONOTONIC may differ by 100 ppm + 2 us: mstate.sh, ms_clocks).
# A fixed percentage around one trace would not bound a host stall
# between two probes of one event; the brackets' widths are logged.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

st_ptime ms_ident identity "$ms_progs/ms_ident"

for c in child0 child1 child2; do
	st_check $c "$(ms_tid $c)"
done
ms_check_sums
done_testing
