#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Idle time and CPU hotplug: collect -a of an idle guest,
# twice, the run covering a script that does the hotplug.  First CPU 1 is
# offline when the run starts and comes online 1 s in: its idle time
# counts from then (the start's IPI cannot reach an offline CPU: it had
# none).  Then CPU 1 goes offline 1 s into the run for 1.5 s: that time is
# not idle time (the idle task "runs" through it).  In both, CPU 1's -cpu_list Sum (user +
# system + interrupt + idle) is at most the run's time less the time CPU 1
# was surely offline (CLOCK_MONOTONIC, log.txt's clock, from
# /proc/timer_list), and its Idle at least a quarter of that.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

cpu1=/sys/devices/system/cpu/cpu1/online
[ -w $cpu1 ] || skip "CPU 1 cannot go offline here"
collect_setup collect_hotidle
need_kprof
trap 'r=$?; echo 1 >$cpu1; (exit $r); unload_lwprof' EXIT
# CLOCK_MONOTONIC in seconds, as log.txt's start_ns and end_ns.
now() { awk '/^now at/ { printf "%.3f\n", $3 / 1e9; exit }' /proc/timer_list; }
export -f now
export cpu1

# run NAME on|off: collect -a of a script that brings CPU 1 online 1 s in
# (on: it is offline at the start), or takes it offline 1 s in for 1.5 s
# (off).  NAME.off: the times (now) between which it was surely offline,
# from the end of its offlining (or the run's start) to the start of its
# onlining: both take a while under TCG.
run() {
	local script
	if [ "$2" = on ]; then
		echo 0 >$cpu1
		script='sleep 1; echo 0 $(now) >$W; echo 1 >$cpu1; sleep 1.5'
	else
		script='sleep 1; echo 0 >$cpu1; o=$(now); sleep 1.5; echo $o $(now) >$W; echo 1 >$cpu1; sleep 1'
	fi
	W=$PWD/$1.off "$LWPROF" collect -a -o "$1.er" bash -c "$script" >/dev/null 2>"$1.err"
	check $? -eq 0 "collect -a ($1)"
}

for r in "onlined on" "offlined off"; do
	set -- $r
	run "$1" "$2"
	read -r off on <"$1.off"
	read -r el offs < <(awk -v off="$off" -v on="$on" '/^(start|end)_ns = / { v[$1] = $3 / 1e9 }
		END { if (off < v["start_ns"]) off = v["start_ns"]
		      printf "%.3f %.3f", v["end_ns"] - v["start_ns"], on - off }' "$1.er/log.txt")
	row=$("$LWPROF" print -cpu_list "$1.er" | awk '$1 == 1')
	echo "# $1: run $el s, CPU 1 surely offline $offs s of it; CPU 1: $row"
	read -r _ _ _ _ _ idle sum <<<"$row"
	online=$(awk -v e="$el" -v o="$offs" 'BEGIN { printf "%.3f", e - o }')	# at most
	awk -v s="${sum:-0}" -v o="$online" 'BEGIN { exit !(s <= o * 1.02 + 0.02) }'
	check $? -eq 0 "$1: CPU 1's Sum ${sum:-0} s is within its online time ($online s)"
	awk -v i="${idle:-0}" -v o="$online" 'BEGIN { exit !(i >= o / 4) }'
	check $? -eq 0 "$1: CPU 1's Idle ${idle:-0} s is at least a quarter of it"
done
collect_done
