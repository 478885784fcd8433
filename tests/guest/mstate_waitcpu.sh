#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# WAIT_CPU: three threads spinning on one CPU for 600 ms each wait about
# 400 ms for it.  Each thread reads its own microstates from the module's
# slot when it starts spinning and when it stops, and watches itself spin
# (tests/lib/mslot.h); it never blocks in between, so over that window:
#  - WAIT_CPU lies between the time its two siblings were seen running
#    their own user code (it was off the CPU) and the time it was not seen
#    running its own (its breaks: interrupts, switches, waits);
#  - USER lies between the time it was seen running its own code and its
#    CPU time by the kernel's clock;
#  - no time is in a blocked state;
#  - the three threads were never seen running at once, and each one's
#    siblings were seen running at least as long as itself (they shared
#    its CPU: the lower bound above is not empty);
#  - ptime's WAIT_CPU continues the slot's: at least the slot's at the
#    window's end, at most that plus all the thread's time after it.
# These bounds are exact whatever the host does: every reading is the
# thread's own, in user mode, where the module's figures and the clocks
# describe the same instant.  (The kernel's run-queue wait, schedstat, is
# no truth here: it stamps each switch at the __schedule() entry, and a
# host stall between that and the module's tracepoint moves milliseconds
# between one thread's wait and another's run.  The old truth, wall time
# less CPU time since the gate plus schedstat's wait before it, also
# missed the wait of a thread that a sibling arriving on the CPU preempted
# between its schedstat read and its sleep at the gate: 9 to 21 ms under
# load.)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup waitcpu
ms_ptime "$ms_progs/ms_waitcpu"

for s in spin0 spin1 spin2; do
	t=$(ms_tid $s)
	w=$(ms_truth ${s}_window_ns)
	sl=$(ms_clocks "${w:-0}")
	echo "# $s: window $(ms_ms "${w:-0}"), ended $(ms_ms "$(ms_truth ${s}_late_ns)") after the deadline"
	ms_between "$s: WAIT_CPU over its spin, between its siblings' time seen running and its breaks" \
		"$(ms_lwprof ${s}_lat_ns)" "$(ms_truth ${s}_siblings_ns)" "$(ms_truth ${s}_breaks_ns)" "$sl"
	ms_between "$s: USER over its spin, between its time seen running and its CPU time" \
		"$(ms_lwprof ${s}_user_ns)" "$(ms_truth ${s}_covered_ns)" "$(ms_truth ${s}_cpu_ns)" "$sl"
	check "$(ms_lwprof ${s}_blocked_ns)" -eq 0 "$s: no blocked state over its spin"
	check "$(ms_truth ${s}_siblings_ns)" -ge "$(ms_truth ${s}_covered_ns)" \
		"$s: its siblings were seen running at least as long as itself (they shared the CPU)"
	echo "# $s: by the kernel's CPU clock off the CPU $(ms_ms $((w - $(ms_truth ${s}_cpu_ns))))"
	ms_check_continues $s "$t" lat lat
done
check "$(ms_truth overlap_ns)" -eq 0 "the three were never seen running at once (one CPU)"
ms_check_sums
done_testing
