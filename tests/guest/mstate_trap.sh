#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# TRAP: a thread spinning while an interval timer interrupts its CPU every
# 200 us has TRAP > 0; its SIG count equals the SIGALRMs it handled, and
# USER+SYS+TRAP is at least its CPU time over the spin.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup trap
ms_ptime "$ms_progs/ms_trap"

t=$(ms_tid spinner)
ms_pos "spinner: TRAP under timer-interrupt load" "$(ms_get "$t" trap)"
check "$(ms_get "$t" sig)" = "$(ms_truth alarms)" \
	"spinner: SIG ($(ms_get "$t" sig)) = SIGALRMs handled ($(ms_truth alarms))"
c=$(ms_cpu "$t")
cpu=$(ms_truth spin_cpu_ns)
check "${c:-0}" -ge $((cpu - 5000000)) "spinner: USER+SYS+TRAP $(ms_ms "${c:-0}") >= its CPU time over the spin $(ms_ms "$cpu") - 5 ms"
ms_check_sums
done_testing
