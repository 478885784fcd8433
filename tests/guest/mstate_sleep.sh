#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SLEEP: a thread in nanosleep(300 ms) has SLEEP equal to the time the call
# slept, by the scheduler's own statistics (its wall time, measured by the
# thread, also holds the call's time on CPU, where a busy host may stall
# the vCPU).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup sleep
ms_ptime "$ms_progs/ms_sleep"

t=$(ms_tid sleeper)
echo "# nanosleep: $(ms_truth sleep_ns) ns wall, $(ms_truth sleep_slept_ns) ns asleep"
ms_near "sleeper: SLEEP vs the nanosleep call's time asleep" \
	"$(ms_get "$t" slp)" "$(ms_asleep sleep)"
ms_check_sums
done_testing
