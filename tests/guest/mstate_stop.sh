#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# STOPPED: a child stopped by SIGSTOP for 300 ms, then continued, has
# STOPPED equal to the time from its stop being reported to SIGCONT.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup stop
ms_ptime "$ms_progs/ms_stop"

c=$(ms_tid child)
st=$(ms_get "$c" stop)
ms_near "child: STOPPED vs stop reported .. SIGCONT" "$st" "$(ms_truth stop_min_ns)"
check "${st:-0}" -le $(($(ms_truth stop_max_ns) + 5000000)) \
	"child: STOPPED ($(ms_ms "${st:-0}")) <= SIGSTOP sent .. SIGCONT sent + 5 ms"
ms_check_sums
done_testing
