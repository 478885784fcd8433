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
# session holds them attached), so the bounds hold whatever the host does (the module's clock and the traces'
# CLOCK_MONOTONIC may differ by 100 ppm + 2 us: mstate.sh, ms_clocks).
# They used to be 1% and 2% around the first trace alone, which a host
# stall between two probes of one event is not bound by (848 us against
# 781 us, and 20.6 ms once).  The brackets' widths are logged: about 1 ms
# per child on a quiet host, lwprof's probe and the second trace's for
# each of its hundred-odd events.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

st_start ms_ident lwprof_st_before
trap st_cleanup EXIT
ms_setup identity
trap 'st_cleanup; release_session; unload_lwprof' EXIT
hold_session
st_start ms_ident lwprof_st_after
ms_ptime "$ms_progs/ms_ident"
release_session
st_stop "$ms_dir/before.trace" lwprof_st_before
st_stop "$ms_dir/after.trace" lwprof_st_after
read -r n m bad < <(st_pair "$ms_dir/before.trace" "$ms_dir/after.trace")
check "${bad:-1}" -eq 0 -a "${n:-0}" -gt 0 "the two traces hold the same events ($n and $m)"

for c in child0 child1 child2; do
	tid=$(ms_tid $c)
	read -r rlo rhi wlo whi llo lhi blo bhi woken forked < \
		<(st_bounds "$ms_dir/before.trace" "$ms_dir/after.trace" "$tid")
	echo "# $c ($tid): forked $(ms_ms $((woken - forked))) before its sched_wakeup_new; brackets: run $(ms_ms $((rhi - rlo))), wait $(ms_ms $((whi - wlo))), life $(ms_ms $((lhi - llo)))"
	ms_between "$c: USER+SYS+TRAP within its run time in the traces" \
		"$(ms_cpu "$tid")" "$rlo" "$rhi" "$(ms_clocks "$rhi")"
	ms_between "$c: WAIT_CPU within its run-queue wait in the traces" \
		"$(ms_get "$tid" lat)" "$wlo" "$whi" "$(ms_clocks "$whi")"
	ms_between "$c: REAL within its life from sched_wakeup_new in the traces" \
		"$(ms_get "$tid" real)" "$llo" "$lhi" "$(ms_clocks "$lhi")"
	ms_between "$c: its blocked states within its time blocked in the traces" \
		"$(ms_blocked "$tid")" "$blo" "$bhi" "$(ms_clocks "$bhi")"
done
ms_check_sums
done_testing
