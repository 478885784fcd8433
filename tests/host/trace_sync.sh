#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sync wait tracing without the module (docs/design/tracing.md): collect -s on
# calibrates the threshold (as Oracle's: mean uncontended lock times 6, in
# log.txt); tests/progs/trace_sync times its own waits (mutex, condition,
# semaphore, rwlock, barrier, join, a semaphore's clock wait that times
# out) around each call, and the traced wait
# at each function must lie within 2 ms below that (print shows ms), and
# the time it waited for a CPU meanwhile (a preemption between its clock
# read and the library's, on a loaded machine: its schedstat); of
# its 20,000 uncontended locks, only those it saw take at least the
# threshold may be traced.  -s all traces every call: exactly 20,000 there,
# each granted at its request (0 s: a try took the free lock).
# -s N: a wait shorter than N us is never traced, one well over it is.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

prog=$LWPROF_BUILD/tests/progs/trace_sync
m=i.sync:i.syncn:name
run() {	# run NAME OPTS...: the experiment; the program's output in NAME.out
	local n=$1
	shift
	"$LWPROF" collect -p off "$@" -o "$PRINT_OUT/$n.er" "$prog" >"$PRINT_OUT/$n.out" \
		2>"$PRINT_OUT/$n.err"
}

# check_waits NAME LABEL: each wait the program timed ("truth FUNC NS" in
# NAME.out) is traced at FUNC in $csv within 2 ms (print shows ms) and
# the CPU wait meanwhile below what it saw, and at least once.
check_waits() {
	local f ns d got ok

	while read -r _ f ns d; do
		got=$(csv_field "$csv" "$f" 1)
		ok=$(awk -v g="$got" -v w="$ns" -v d="$d" 'BEGIN { w /= 1e9; d /= 1e9; print (g != "" && g <= w + 0.0005 && g >= w - d - 0.002) }')
		check "$ok" = 1 "$2$f: traced wait ${got}s, the program saw $(awk -v w="$ns" -v d="$d" 'BEGIN { printf "%.6f (%.6f of it waiting for a CPU)", w / 1e9, d / 1e9 }')s"
		check "$(csv_field "$csv" "$f" 2)" -ge 1 "$2$f: at least one wait counted"
	done < <(grep '^truth ' "$PRINT_OUT/$1.out")
}

run on -s on; check $? -eq 0 "collect -p off -s on"
exp=$PRINT_OUT/on.er
grep -Eq '^sync_calibration = 20000 uncontended pthread_mutex_lock calls, mean [0-9.]+ ns, times 6$' \
	"$exp/log.txt"; check $? -eq 0 "log.txt: the calibration, times 6"
thr=$(sed -n 's/^sync_threshold_ns = //p' "$exp/log.txt")
check "${thr:-0}" -gt 0 "log.txt: the calibrated threshold ($thr ns)"
csv=$("$LWPROF" print -printmode csv -metrics $m -functions "$exp" 2>/dev/null)
check_waits on ""
check "$(grep -c '^truth ' "$PRINT_OUT/on.out")" -eq 7 "seven kinds of wait measured"
over=$(sed -n 's/^over //p' "$PRINT_OUT/on.out")
n=$(csv_field "$csv" uncontended 2)
check "${n:-0}" -le "$over" "uncontended: ${n:-0} traced, the program saw $over of 20000 at or over the threshold"
check "$over" -le 200 "uncontended: at most 1% of the locks took the threshold"
grep -q '^trace = sync$' "$exp/log.txt"; check $? -eq 0 "log.txt: trace = sync"
grep -Eq '^  Sync threshold: [0-9.]+ us \(calibrated: 20000 uncontended' <<<"$("$LWPROF" print -header "$exp" 2>/dev/null)"
check $? -eq 0 "-header: the threshold and its calibration"
st=$("$LWPROF" print -statistics "$exp" 2>/dev/null)
grep -Eq "^Sync wait tracing \(threshold [0-9.]+ us\): [0-9]+ waits, Sync Wait Time [0-9.]+ s$" <<<"$st"
check $? -eq 0 "-statistics: the sync wait summary"
grep -q '^  User Lock Time: not measured (no clock profiling)$' <<<"$st"
check $? -eq 0 "-statistics: no User Lock without clock profiling"

run all -s all --stack-bytes 512; check $? -eq 0 "collect -s all"
grep -q '^sync_threshold_ns = 0$' "$PRINT_OUT/all.er/log.txt"; check $? -eq 0 "log.txt: threshold 0"
csv=$("$LWPROF" print -printmode csv -metrics $m -functions "$PRINT_OUT/all.er" 2>/dev/null)
check "$(csv_field "$csv" uncontended 2)" = 20000 "-s all: all 20000 uncontended locks"
# The lock was free each time: granted at its request (taken by a try,
# no wait), so their Sync Wait Time is exactly 0; the contended waits
# above are still timed around the call.
got=$(csv_field "$csv" uncontended 1)
check "$(awk -v g="$got" 'BEGIN { print (g != "" && g == 0) }')" = 1 "-s all: their waits are 0, granted at request (${got}s)"
check_waits all "-s all: "

run thr -s 150000; check $? -eq 0 "collect -s 150000 (150 ms)"
grep -q '^sync_threshold_ns = 150000000$' "$PRINT_OUT/thr.er/log.txt"; check $? -eq 0 "log.txt: 150 ms"
csv=$("$LWPROF" print -printmode csv -metrics $m -functions "$PRINT_OUT/thr.er" 2>/dev/null)
while read -r _ f ns; do
	n=$(csv_field "$csv" "$f" 2)
	if [ "$ns" -lt 150000000 ]; then
		check "${n:-0}" -eq 0 "$f: a wait of $((ns / 1000000)) ms is under 150 ms: not traced"
	elif [ "$ns" -gt 152000000 ]; then
		check "${n:-0}" -ge 1 "$f: a wait of $((ns / 1000000)) ms is traced"
	fi
done < <(grep '^truth ' "$PRINT_OUT/thr.out")
"$LWPROF" collect -p off -s sometimes true 2>/dev/null; check $? -eq 2 "-s sometimes: a usage error"
done_testing
