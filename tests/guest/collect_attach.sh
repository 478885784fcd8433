#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect -P on a busy process 0.5 s into its run (cpu_burn: 6
# threads that spin until it is killed, 1 s into the recording): every thread has one TASK start, nothing is lost, and per
# thread the clock packets' microstates sum to its final totals in
# usage.txt exactly, state by state, and to its end_ns - start_ns: every
# nanosecond from the attach is in exactly one packet.  start_ns is after
# the process began (its thread's time before the attach is not counted).
# The identity against the kernel's CPU time is guest/sample_attach.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_attach

# Niced, so that the test's own commands are not starved on the 2 vCPUs
# (the threads still take every idle cycle); killed once collect has run
# for a while, so that every thread ends with its exit packet.
nice -n 10 "$progs/cpu_burn" 100 6 >burn.out &
pid=$!
began=$(awk '{ print $22 }' /proc/$pid/stat)	# clock ticks after boot
sleep 0.5
"$LWPROF" collect -p 1ms -o att.er -P $pid 2>err.txt &
cpid=$!
while [ ! -s att.er/log.txt ] && kill -0 $cpid 2>/dev/null; do sleep 0.1; done
sleep 1
kill -9 $pid
wait $cpid
check $? -eq 0 "collect -P on a running process exits 0"
sed 's/^/#   /' err.txt | head -n 20
check -z "$(grep -Ei 'records lost|[1-9][0-9]* lost' err.txt)" "  nothing lost"
wait $pid 2>/dev/null
"$LWPROF" dump att.er >att.dump 2>&1; check $? -eq 0 "  a sound experiment"

tids=$(awk -v p=$pid '$1 == p { print $2 }' att.er/usage.txt)
check "$(echo $tids | wc -w)" -eq 6 "  usage.txt has its 6 threads ($(echo $tids))"
for t in $tids; do
	n=$(grep -c ": TASK start .* pid=$pid tid=$t " att.dump)
	check "$n" -eq 1 "  tid $t: one TASK start ($n)"
	pk=$(grep ": SAMPLE clock .* pid=$pid tid=$t " att.dump | awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
		if (kv[1] ~ /^(user|system|trap|tflt|dflt|kflt|lock|sleep|stop|wait)$/) s[kv[1]] += kv[2] } }
	END { printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", s["user"], s["system"], s["trap"],
		s["tflt"], s["dflt"], s["kflt"], s["lock"], s["sleep"], s["stop"], s["wait"] }')
	us=$(awk -v t=$t '$2 == t { print $7, $8, $9, $10, $11, $12, $13, $14, $15, $16 }' att.er/usage.txt)
	check "$pk" = "$us" "  tid $t: its packets' ten states ($pk) are its totals ($us)"
	life=$(awk -v t=$t '$2 == t { printf "%.0f", $6 - $5 }' att.er/usage.txt)
	sum=$(echo "$pk" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.0f", s }')
	check "$sum" = "$life" "  tid $t: packets hold end_ns - start_ns ($sum ns)"
done
# start_ns (CLOCK_MONOTONIC ns) is after the process began plus the 0.5 s.
hz=$(getconf CLK_TCK)
first=$(awk -v p=$pid '$1 == p { print $5 }' att.er/usage.txt | sort -n | head -n 1)
after=$(awk -v b="$began" -v hz="$hz" -v f="$first" 'BEGIN { printf "%.0f", f / 1e6 - b * 1000 / hz }')
check "$after" -ge 400 "  accounting began at the attach, $after ms after the process (>= 400 ms)"
collect_done
