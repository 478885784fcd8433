#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# USER and SYSTEM.  A thread spinning in user mode for 300 ms: its USER lies
# between the time its loop was seen running (the spin minus every break of
# more than 10 us: interrupts are TRAP, not USER) and its CPU time over the
# spin, each within 2% or 5 ms.  A thread reading /dev/zero in a loop is
# mostly SYSTEM.  Both: USER+SYS+TRAP at least their CPU time over the busy
# phase and their schedstat run time before they exit; together, within 1%
# of their CPU time up to their release, exit included (the process CPU
# clock minus main's).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup cpu
ms_ptime "$ms_progs/ms_cpu"

spin=$(ms_tid spin)
sys=$(ms_tid sys)
u=$(ms_get "$spin" user)
run=$(ms_truth spin_run_ns)
cpu=$(ms_truth spin_cpu_ns)
echo "# spin: wall $(ms_ms "$(ms_truth spin_wall_ns)"), $(ms_truth spin_breaks) breaks, TRAP $(ms_ms "$(ms_get "$spin" trap)"), SYS $(ms_ms "$(ms_get "$spin" sys)")"
lo=$(awk -v v="$run" 'BEGIN { t = v * 0.02; if (t < 5e6) t = 5e6; printf "%.0f", v - t }')
hi=$(awk -v v="$cpu" 'BEGIN { t = v * 0.02; if (t < 5e6) t = 5e6; printf "%.0f", v + t }')
check "${u:-0}" -ge "$lo" "spin: USER $(ms_ms "${u:-0}") >= its loop's running time $(ms_ms "$run") - 2%/5 ms"
check "${u:-0}" -le "$hi" "spin: USER $(ms_ms "${u:-0}") <= its CPU time over the spin $(ms_ms "$cpu") + 2%/5 ms"
c=$(ms_cpu "$spin")
check "${c:-0}" -ge $((cpu - 5000000)) "spin: USER+SYS+TRAP $(ms_ms "${c:-0}") >= its CPU time over the spin $(ms_ms "$cpu") - 5 ms"
ms_check_parked spin

su=$(ms_get "$sys" user)
ss=$(ms_get "$sys" sys)
check "${ss:-0}" -gt "${su:-0}" "sys: SYSTEM ($(ms_ms "${ss:-0}")) dominant over USER ($(ms_ms "${su:-0}"))"
c=$(ms_cpu "$sys")
cpu=$(ms_truth sys_cpu_ns)
check "${c:-0}" -ge $((cpu - 5000000)) "sys: USER+SYS+TRAP $(ms_ms "${c:-0}") >= its CPU time over the loop $(ms_ms "$cpu") - 5 ms"
ms_check_parked sys
both=$(( $(ms_cpu "$spin") + $(ms_cpu "$sys") ))
ms_near "spin+sys: USER+SYS+TRAP vs their CPU time up to their release (process CPU clock)" \
	"$both" "$(ms_truth dead_threads_cpu_ns)" 1 0
ms_check_sums
done_testing
