#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# USER_LOCK: a thread blocked in pthread_mutex_lock() for 300 ms (another
# thread holds the mutex) and one in pthread_cond_wait() for 300 ms have
# USER_LOCK equal to the blocking call's time asleep, by the scheduler's own
# statistics (not its wall time: that also holds the call's time on CPU,
# where a busy host may stall the vCPU).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup lock
ms_ptime "$ms_progs/ms_lock"

w=$(ms_tid waiter)
cv=$(ms_tid cvwaiter)
ms_near "waiter: USER_LOCK vs its pthread_mutex_lock's time asleep" \
	"$(ms_get "$w" lock)" "$(ms_asleep waiter_lock)"
ms_near "cvwaiter: USER_LOCK vs its pthread_cond_wait's time asleep" \
	"$(ms_get "$cv" lock)" "$(ms_asleep cv_wait)"
ms_check_sums
done_testing
