#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flight recorder on the real module (collect --flight): the
# snapshot holds the last window of records and nothing older, on the
# snapshot signal and at the end; by size, the records fit the size and
# are the newest ones.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_flight

# times EXP: the times of its SAMPLE records, sorted.
times() { "$LWPROF" dump "$1" 2>/dev/null | sed -n 's/.*: SAMPLE [a-z]* t=\([0-9.]*\) .*/\1/p' | sort -n; }

# 1. By time: the last 1.5 s of a 4 s loop; a snapshot on SIGUSR2 mid-run,
# then one at the end.
"$LWPROF" collect --flight 1.5s -o fl.er "$progs/cpu_burn" 4 >/dev/null 2>err.txt & cpid=$!
# mid-run: once the loop has run 2.5 s of CPU (its clock, /proc/PID/stat)
pid=
for i in $(seq 600); do
	pid=$(pgrep -n -x cpu_burn) && break
	sleep 0.1
done
tck=$(getconf CLK_TCK)
while [ -n "$pid" ] && [ -e /proc/$pid ]; do
	ut=$(awk '{ print $14 + $15 }' /proc/$pid/stat 2>/dev/null) || break
	[ "$ut" -ge $((tck * 5 / 2)) ] && break
	sleep 0.05
done
read -r sig _ </proc/uptime
kill -USR2 $cpid
wait $cpid
check $? -eq 0 "collect --flight 1.5s cpu_burn 4 exits 0 ($(tail -1 err.txt))"
check -d fl.er "the snapshot on SIGUSR2: fl.er"
check -d fl.2.er "the one at the end: fl.2.er"
grep -q '^flight = the last 1.5 s: ' fl.er/log.txt
check $? -eq 0 "log.txt says it is a flight recorder's window"
for e in fl.er fl.2.er; do
	st=$(key $e start_ns) en=$(key $e end_ns)
	times $e >$e.t
	first=$(head -1 $e.t) last=$(tail -1 $e.t)
	check "$(wc -l <$e.t)" -gt 20 "$e: $(wc -l <$e.t) samples"
	# nothing older than the window (a packet's time is its end)
	check "$(awk -v f="$first" -v e="$en" 'BEGIN { print (f >= e / 1e9 - 1.5 - 0.001) }')" -eq 1 \
		"$e: its oldest sample ($first) is within 1.5 s of its end ($en ns)"
	# and the window is full: samples from its start on
	check "$(awk -v f="$first" -v s="$st" 'BEGIN { print (f <= s / 1e9 + 0.1) }')" -eq 1 \
		"$e: and its start ($st ns) is where the samples begin"
	# -thread_list reads the records too (-header alone reads none).
	"$LWPROF" print -header -thread_list $e >/dev/null 2>$e.err
	check $? -eq 0 "$e: print reads it ($(head -1 $e.err))"
done
check "$(awk -v l="$(tail -1 fl.er.t)" -v s="$sig" 'BEGIN { print (l <= s + 2) }')" -eq 1 \
	"fl.er ends at the signal ($sig)"
"$LWPROF" print -functions fl.2.er 2>/dev/null | grep -q ' burn$'
check $? -eq 0 "the loop's function is in the window"

# 2. By size: the last 1 MB of full 8 KiB stack copies at 1 ms.
"$LWPROF" collect --flight 1M -p 1ms --stack-delta off -o sz.er "$progs/cpu_burn" 1.5 \
	>/dev/null 2>err.txt
check $? -eq 0 "collect --flight 1M exits 0"
bytes=$(cat sz.er/cpu.*.rec | wc -c)
check "$bytes" -le $(((1 << 20) + 512 * 1024)) "the window's files: $bytes bytes (1 MB of records, the processes' maps and headers)"
n=$(times sz.er | wc -l)
check "$n" -ge 90 "$n samples of about 8.6 KB"
let_go=$(sed -n 's/.* \([0-9]*\) records before it let go/\1/p' sz.er/log.txt)
check "$let_go" -gt 0 "older records were let go ($let_go)"
en=$(key sz.er end_ns)
check "$(awk -v l="$(times sz.er | tail -1)" -v e="$en" 'BEGIN { print (l >= e / 1e9 - 0.5) }')" -eq 1 \
	"the newest ones"

# 3. Paused: the collector API's paused phase is not kept in memory.
"$LWPROF" collect --flight 8M -S off -o ps.er "$progs/phases" 300 300 300 >/dev/null 2>err.txt
check $? -eq 0 "collect --flight 8M phases exits 0"
n=$(key ps.er flight_paused_out)
check "${n:-0}" -gt 10 "samples wholly in the pause were not kept (${n:-0})"
"$LWPROF" print -printmode csv -metrics i.totalcpu:name -functions ps.er 2>/dev/null >ps.csv
got=$(awk -F, '$2 == "burn2" { v = $1 } END { print v + 0 }' ps.csv)
check "$(awk -v g="$got" 'BEGIN { print (g <= 0.012) }')" -eq 1 "the paused phase is in no metric (burn2 $got s)"
got=$(awk -F, '$2 == "burn3" { v = $1 } END { print v + 0 }' ps.csv)
check "$(awk -v g="$got" 'BEGIN { print (g >= 0.25) }')" -eq 1 "the phase after it is (burn3 $got s)"

collect_done
