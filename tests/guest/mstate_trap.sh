#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# TRAP: a thread spinning while an interval timer interrupts its CPU every
# 200 us has TRAP > 0; its SIG count equals the SIGALRMs it handled, and
# USER+SYS+TRAP its CPU time over the spin.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup trap
ms_ptime "$ms_progs/ms_trap"

t=$(ms_tid spinner)
ms_pos "spinner: TRAP under timer-interrupt load" "$(ms_get "$t" trap)"
check "$(ms_get "$t" sig)" = "$(ms_truth alarms)" \
	"spinner: SIG ($(ms_get "$t" sig)) = SIGALRMs handled ($(ms_truth alarms))"
ms_near "spinner: USER+SYS+TRAP vs its CPU time over the spin" \
	"$(ms_cpu "$t")" \
	"$(ms_truth spin_cpu_ns)"
ms_check_sums
done_testing
