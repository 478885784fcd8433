#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel lock waits, against the scheduler's own trace (as
# mstate_identity): ms_rtlock's SCHED_FIFO waiter and ordinary holder,
# pinned to one CPU, take their process's signal lock (a spinlock_t; the
# holder walks 256 parked threads under it).  On
# PREEMPT_RT that lock is an rt_mutex and the waiter, preempting the
# holder inside it, sleeps on it ("D" in the trace, TASK_RTLOCK_WAIT):
# that sleep is the waiter's Sleep (a system call's), its wait for the
# CPU after it Wait CPU, so its blocked states lie within its time
# switched out asleep in the traces, its run states within its run time,
# and the lock sleeps are more than those brackets' width (the check
# tells them from Wait CPU or System).  Without RT the lock keeps
# preemption off: the waiter never sleeps on it (its only sleeps are its
# 2 ms naps), and the same bounds hold.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

rt=0
case $(uname -v) in *PREEMPT_RT*) rt=1 ;; esac
st_ptime ms_rtlock rtlock "$ms_progs/ms_rtlock"

st_check holder "$(ms_tid holder)"
st_check waiter "$(ms_tid waiter)"
width=$((st_block_width > st_run_width ? st_block_width : st_run_width))

# The waiter's sleeps on the lock: switched out "D" within its loop (its
# output to a 9p file sleeps "D" too, outside), to its wakeup.
w=$(ms_tid waiter)
read -r l0 l1 < <(ms_window loop)
read -r dn dns < <(awk -v P="$w" -v l0="${l0:-0}" -v l1="${l1:-0}" "$st_awk_lib"'
	/^#/ || !/ [0-9]+\.[0-9]+: / { next }
	{ e = event() }
	e == "sched_switch" && field("prev_pid") == P {
		d = field("prev_state") ~ /^D/ && stamp() >= l0 && stamp() <= l1
		if (d) { n++; t0 = stamp() }
	}
	e == "sched_wakeup" && field("pid") == P && d { ns += stamp() - t0; d = 0 }
	END { printf "%d %.0f\n", n, ns }' "$ms_dir/before.trace")
check -n "$l0" "the waiter's loop window"
echo "# the waiter slept on the lock $dn times, $(ms_ms "$dns") in all; SLEEP $(ms_ms "$(ms_get "$w" slp)"), LAT $(ms_ms "$(ms_get "$w" lat)")"
if [ $rt = 1 ]; then
	check "$dn" -ge 10 "PREEMPT_RT: the waiter slept on the held spinlock ($dn times)"
	check "$dns" -gt "$width" \
		"the lock sleeps ($(ms_ms "$dns")) are more than the waiter's blocked and run brackets are wide ($(ms_ms "$width")): the checks above tell Sleep from Wait CPU or System"
else
	check "$dn" -eq 0 "no PREEMPT_RT: the waiter never slept on the lock (its waits spin: System)"
fi
ms_check_sums
done_testing
