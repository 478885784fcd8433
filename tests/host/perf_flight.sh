#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flight recorder on the perf backend (collect --backend perf
# --flight): its converter turns perf's records into lwprof's once a
# second (docs/design/perf-backend.md), so a snapshot first asks it for a pass
# (the recording source's sync).  Two snapshots on SIGUSR2, 1.2 s and
# 1.7 s into cpu_burn, must each hold every sample up to 0.1 s before
# their end (the converter's 20 ms hold, a 10 ms interval, the wait for
# the pass on a loaded host): all those of the snapshot at the end, which
# has the whole run, within its window.  A converter left to its passes a
# second apart would leave some out of one of them, at least.  cpu_burn
# runs until the test has both snapshots and ends it (SIGTERM, so collect
# exits 143): in the TCG guest on a loaded host, timers fire seconds late,
# and a run of fixed length once ended before the first signal was sent.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
dir=$LWPROF_OUT/perf_flight
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1

key() { sed -n "s/^$2 = //p" "$1/log.txt"; }
times() { "$LWPROF" dump "$1" 2>/dev/null | sed -n 's/.*: SAMPLE clock t=\([0-9.]*\) .*/\1/p' | sort -n; }
# upto FROM_NS END_NS: the times of stdin from FROM_NS to 0.1 s before END_NS
upto() { awk -v f="$1" -v e="$2" '$1 >= f / 1e9 && $1 <= e / 1e9 - 0.1'; }

# wait_snap NAME: until collect has written snapshot NAME (its log.txt
# is written last), 120 s at most
wait_snap() {
	for i in $(seq 1200); do
		grep -qs '^records = ' "$1/log.txt" && return
		sleep 0.1
	done
}
"$LWPROF" collect --backend perf --flight 60s -p 10ms -o fl.er \
	"$LWPROF_BUILD/tests/progs/cpu_burn" 600 >/dev/null 2>err.txt & cpid=$!
for i in $(seq 1200); do	# the command runs: collect's signals are its own
	pgrep -P $cpid -x cpu_burn >/dev/null && break
	sleep 0.1
done
sleep 1.2
kill -USR2 $cpid
wait_snap fl.er
sleep 0.5
kill -USR2 $cpid
wait_snap fl.2.er
pkill -P $cpid -x cpu_burn
wait $cpid
check $? -eq 143 "collect --backend perf --flight 60s cpu_burn, ended by SIGTERM: exits 143 ($(tail -1 err.txt))"
check -d fl.3.er "the snapshot at the end: fl.3.er"
times fl.3.er >all.t
for e in fl.er fl.2.er; do
	check -d $e "a snapshot on SIGUSR2: $e"
	en=$(key $e end_ns)
	want=$(upto "$(key fl.3.er start_ns)" "$en" <all.t | wc -l)
	got=$(times $e | upto "$(key fl.3.er start_ns)" "$en" | wc -l)
	echo "# $e: snapshot at $en ns; $got of the $want samples up to 0.1 s before it"
	check "$want" -ge 10 "$e: there were samples before it ($want)"
	check "$got" -eq "$want" "$e: it has every one of them"
done
done_testing
