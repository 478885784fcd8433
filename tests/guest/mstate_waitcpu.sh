#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# WAIT_CPU: three threads spinning on one CPU for 600 ms each wait about
# 400 ms for it.  Each thread's WAIT_CPU equals the time it was not running
# from the start gate to its end (wall time minus CPU time) plus its
# run-queue wait before the gate, and its schedstat run-queue wait;
# USER+SYS+TRAP is at least its CPU time.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup waitcpu
ms_ptime "$ms_progs/ms_waitcpu"

for s in spin0 spin1 spin2; do
	t=$(ms_tid $s)
	ms_near "$s: WAIT_CPU vs its time off CPU since the gate + its wait before" \
		"$(ms_get "$t" lat)" "$(ms_truth ${s}_offcpu_ns)"
	echo "# $s: ended $(ms_ms "$(ms_truth ${s}_late_ns)") after the deadline"
	ms_check_sched $s wait
	ms_check_parked $s
done
ms_check_sums
done_testing
