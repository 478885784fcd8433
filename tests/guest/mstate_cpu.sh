#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# USER and SYSTEM: a thread spinning in user mode for 300 ms has USER equal
# to its CPU time; a thread reading /dev/zero in a loop is mostly SYSTEM.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup cpu
ms_ptime "$ms_progs/ms_cpu"

spin=$(ms_tid spin)
sys=$(ms_tid sys)
ms_near "spin: USER vs its CPU time over the spin" \
	"$(ms_get "$spin" user)" "$(ms_truth spin_cpu_ns)"
ms_check_sched spin run

su=$(ms_get "$sys" user)
ss=$(ms_get "$sys" sys)
check "${ss:-0}" -gt "${su:-0}" "sys: SYSTEM ($(ms_ms "${ss:-0}")) dominant over USER ($(ms_ms "${su:-0}"))"
ms_near "sys: USER+SYS+TRAP vs its CPU time over the loop" \
	"$(ms_cpu "$sys")" "$(ms_truth sys_cpu_ns)"
ms_check_sched sys run
ms_check_sums
done_testing
