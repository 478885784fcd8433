#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf backend on the guest's Debian 6.1 kernel with lwprof.ko not
# loaded (as on a machine where it cannot be): the host tests' checks,
# unchanged, on another kernel (its PERF_RECORD_SWITCH, its futex entry
# points, no hardware PMU): microstates against the ground-truth workloads
# and the scheduler's trace (host/perf_mstate; PB_TCG: under TCG a context
# switch is too long to split a thread's run from its wait against the
# trace, their sum is checked), stacks, fork/exec and
# attach (host/perf_stacks),
# absent metrics and refusals (host/perf_absent), flight snapshots
# (host/perf_flight).  Not host/perf_wakewait: in the TCG guest its
# sleeper is often preempted on its way to sleep (between setting its
# state and schedule(), hundreds of microseconds there), a wait perf
# reports and schedstat, its truth, does not count.
. "$(dirname "$0")/../lib/test.sh"

grep -q '^lwprof ' /proc/modules && rmmod lwprof
test -e /dev/lwprof && skip "lwprof.ko is loaded and will not unload"
for t in perf_mstate perf_stacks perf_absent perf_flight; do
	echo "# host/$t on this kernel:"
	PB_TCG=1 LWPROF_OUT=$LWPROF_OUT/guest "$LWPROF_TESTS_DIR/host/$t.sh" 2>&1 | sed 's/^/#   /;s/^#   ok:/ok:/;s/^#   FAIL:/FAIL:/;s/^#   skip:/# skip:/'
	rc=${PIPESTATUS[0]}
	check "$rc" -ne 1 "host/$t passes (or skips) on this kernel (exit $rc)"
done
done_testing
