#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-thread identities, against the kernel's own trace of the scheduler
# (tests/lib/schedtrace.sh says why not schedstat), for three
# single-threaded children pinned to one CPU that spin, make system calls,
# sleep and wait for the CPU: the ten states sum to the thread's REAL within
# 0.1%, USER+SYS+TRAP is within 1% of its run time in the trace, WAIT_CPU
# within 2% of its run-queue wait there (counted from the child's
# sched_wakeup_new, not its fork: until then it is on no run queue).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

# The trace's probes first: lwprof.ko registers its own at load, so the
# module is loaded after the trace starts and each tracepoint then runs
# the trace's probe before lwprof's, as when the truth was validated.
st_start ms_ident
ms_setup identity
ms_ptime "$ms_progs/ms_ident"
st_stop "$ms_dir/sched.trace"

for c in child0 child1 child2; do
	tid=$(ms_tid $c)
	read -r run wait woken forked end < <(st_thread "$ms_dir/sched.trace" "$tid")
	echo "# $c ($tid): trace run $(ms_ms "$run"), wait $(ms_ms "$wait"), forked $(ms_ms $((woken - forked))) before its sched_wakeup_new"
	ms_near "$c: USER+SYS+TRAP vs its run time in the trace" \
		"$(ms_cpu "$tid")" "$run" 1 0
	ms_near "$c: WAIT_CPU vs its run-queue wait in the trace" \
		"$(ms_get "$tid" lat)" "$wait" 2 0
	# REAL against the life from sched_wakeup_new, for the log only: the
	# fork comes 50-150 us before it, and two probes' clock readings of
	# one event differ by up to 155 us in TCG (seen), so which of the two
	# lives REAL is nearer cannot be told here.  WAIT_CPU above catches a
	# child counted from its fork when the gap is large (2.3 and 4.5 ms
	# in the failures of issue 10).
	echo "# $c: REAL $(ms_ms "$(ms_get "$tid" real)"), trace from sched_wakeup_new $(ms_ms $((end - woken))), from the fork $(ms_ms $((end - forked)))"
done
ms_check_sums
done_testing
