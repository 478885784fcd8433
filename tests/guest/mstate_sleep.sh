#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SLEEP: a thread in nanosleep(300 ms) has SLEEP equal to the time the call
# took (measured by the thread).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup sleep
ms_ptime "$ms_progs/ms_sleep"

t=$(ms_tid sleeper)
ms_near "sleeper: SLEEP vs the nanosleep call's duration" \
	"$(ms_get "$t" slp)" "$(ms_truth sleep_ns)"
ms_check_sums
done_testing
