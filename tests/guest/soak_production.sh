#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The production soak (scripts/soak runs it, make check skips
# it): a machine-wide session (collect -a -S 10) of $LWPROF_SOAK_SECS
# seconds over a mixed workload (a CPU loop, process churn, file writes,
# sleepers), then a flight recorder (--flight 16M) for $LWPROF_SOAK_FLIGHT
# seconds (default as long).  Every
# $LWPROF_SOAK_STEP seconds it notes collect's resident memory and the
# experiment's size; at the end, records and losses, and how long print
# takes to read the result.  Checks: nothing lost, the recorder's memory
# flat (its last quarter's peak within 10% + 2 MB of its first quarter's),
# the experiment's growth steady (the last half's rate within 25% of the
# first half's), the flight recorder's memory within its 16 MB and its
# start-up size.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

[ -n "${LWPROF_SOAK_SECS:-}" ] || skip "a soak: scripts/soak runs it (LWPROF_SOAK_SECS)"
secs=$LWPROF_SOAK_SECS
step=${LWPROF_SOAK_STEP:-10}
fsecs=${LWPROF_SOAK_FLIGHT:-$secs}
collect_setup soak_production

# the workload, until stopped (each a job of this shell, ended by pid)
"$progs/cpu_burn" 100000 >/dev/null & wl=$!
while :; do sh -c 'true'; sleep 0.05; done & wl="$wl $!"
while :; do dd if=/dev/zero of=io.tmp bs=64k count=32 2>/dev/null; sleep 0.2; done & wl="$wl $!"
"$progs/nap" 1000000 >/dev/null 2>&1 & wl="$wl $!"

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# watch PID EXP SECS: "t rss_kb bytes" every step while PID runs
watch() {
	local t=0 size kb
	while kill -0 "$1" 2>/dev/null; do
		size=$(du -sb --exclude=archives "$2" 2>/dev/null | cut -f1)
		kb=$(rss "$1")
		# not once it is gone (or going)
		[ -n "$kb" ] && echo "$t $kb ${size:-0}"
		sleep "$step"; t=$((t + step))
	done
}

# 1. collect -a -S 10 for secs
"$LWPROF" collect -a -S 10 -t "$secs" -o soak.er 2>collect.err & cp=$!
sleep 1
watch $cp soak.er >soak.t
wait $cp
check $? -eq 0 "collect -a -t $secs exits 0 ($(tail -1 collect.err))"
check "$(key soak.er lost)" -eq 0 "nothing lost ($(key soak.er records) records)"
n=$(wc -l <soak.t)
q=$((n / 4 > 0 ? n / 4 : 1))
first=$(head -n "$q" soak.t | awk '$2 > m { m = $2 } END { print m }')
last=$(tail -n "$q" soak.t | awk '$2 > m { m = $2 } END { print m }')
check "$last" -le $((first * 11 / 10 + 2048)) "collect's memory flat: first quarter's peak $first KB, last quarter's $last KB"
rates=$(awk -v h=$((n / 2)) 'NR == 1 { t0 = $1; s0 = $3 } NR == h { t1 = $1; s1 = $3 } { t2 = $1; s2 = $3 }
	END { if (t1 > t0 && t2 > t1) printf "%.0f %.0f", (s1 - s0) / (t1 - t0), (s2 - s1) / (t2 - t1) }' soak.t)
read -r r1 r2 <<<"$rates"
check "$(awk -v a="${r1:-0}" -v b="${r2:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; print (a > 0 && d <= a / 4) }')" -eq 1 \
	"the experiment grows steadily: ${r1:-?} B/s, then ${r2:-?} B/s"
size=$(du -sb --exclude=archives soak.er | cut -f1)
t0=$(date +%s.%N)
"$LWPROF" print -functions soak.er >/dev/null 2>print.err
rc=$?
t1=$(date +%s.%N)
check $rc -eq 0 "print reads it"
echo "# soak: $secs s, $(key soak.er records) records, $size bytes ($(awk -v s="$size" -v t="$secs" 'BEGIN { printf "%.0f", s / t }') B/s), collect's RSS $first -> $last KB, print -functions $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s ($(awk -v a="$t0" -v b="$t1" -v s="$size" 'BEGIN { printf "%.2f", (b - a) / (s / 1048576) }') s per MB)"

# 2. the flight recorder, 16 MB, for fsecs
"$LWPROF" collect -a -S 10 --flight 16M -t "$fsecs" -o fl.er 2>flight.err & cp=$!
sleep 1
watch $cp fl.er >fl.t
wait $cp
check $? -eq 0 "collect --flight 16M exits 0 ($(tail -1 flight.err))"
base=$(awk 'NR == 1 { print $2 }' fl.t)
peak=$(awk '$2 > m { m = $2 } END { print m }' fl.t)
check "$peak" -le $((base + 16 * 1024 + 4096)) "the flight recorder's memory: $base KB at the start, at most $peak KB (16 MB window)"
check -d fl.er "its window at the end"
echo "# flight: RSS $base -> $peak KB; $(sed -n 's/^flight = //p' fl.er/log.txt)"

kill $wl 2>/dev/null
wait $wl 2>/dev/null
collect_done
