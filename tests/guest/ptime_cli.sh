#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof ptime on the real module: exit statuses, the documented lines, a
# sleep's time in slp, one -L row per thread, and -p on a running process.
# Ground truth only: what the programs are known to do (sleep 0.3 s...).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

progs=$LWPROF_BUILD/tests/progs
load_lwprof

# val OUTPUT LABEL: the seconds on LABEL's line of ptime's output.
val() { awk -v l="$2" '$1 == l { print $2 }' <<<"$1"; }
# within A B PCT: A is within PCT percent of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }

"$LWPROF" ptime sh -c 'exit 3' 2>/dev/null
check $? -eq 3 "exit status 3 passes through"
"$LWPROF" ptime sh -c 'kill -KILL $$' 2>/dev/null
check $? -eq 137 "killed by SIGKILL -> 137"
err=$("$LWPROF" ptime /nonexistent/cmd 2>&1); rc=$?
check $rc -eq 127 "exec failure -> 127"
grep -q '^lwprof ptime: /nonexistent/cmd: No such file or directory$' <<<"$err"
check $? -eq 0 "exec failure says why"
"$LWPROF" ptime sh -c 'kill -INT $PPID; exit 5' 2>/dev/null
check $? -eq 5 "ptime ignores SIGINT while the command runs"

out=$("$LWPROF" ptime true 2>&1 >/dev/null)
check "$(sed -n 1p <<<"$out")" = "" "output starts with a blank line"
check "$(sed 1d <<<"$out" | awk '{ printf "%s ", $1 }')" = "real user sys " \
	"without -m: 3 lines, real user sys"
grep -Eq '^real +[0-9]+\.[0-9]{9}$' <<<"$out"
check $? -eq 0 "seconds with 9 decimals"

# A nap of 0.3 s under ptime -m: the process totals include what exec
# costs (the guest reads the host's files over 9p), which the test cannot
# know and which varies from run to run by more than 5% of the nap, so
# here only the bounds it does know: real at least the nap, the states
# summing to real, and asleep for the nap less the time nanosleep runs
# between arming its timer and switching out (the timer counts from the
# arming, the sleep from the switch; that time is SYSTEM, TRAP or, if the
# thread is preempted there, LAT), so slp + sys + trap + lat >= 0.3 s.
# SLEEP against a nanosleep's own measured duration (2% or 5 ms) is
# mstate_sleep's check.
out=$("$LWPROF" ptime -m "$progs/nap" 0.3 2>&1 >"$LWPROF_OUT/nap.out"); rc=$?
slept=$(awk '{ print $2 }' "$LWPROF_OUT/nap.out"); rm -f "$LWPROF_OUT/nap.out"
echo "$out" | sed 's/^/    /'
check $rc -eq 0 "ptime -m nap 0.3 exits 0 (it slept $slept s)"
check "$(sed 1d <<<"$out" | awk '{ printf "%s ", $1 }')" = \
	"real user sys trap tflt dflt kflt lock slp lat stop " "with -m: 11 lines"
real=$(val "$out" real) slp=$(val "$out" slp)
awk -v r="$real" -v s="$slept" 'BEGIN { exit !(r >= s && s >= 0.3) }'
check $? -eq 0 "real $real >= the nap $slept >= 0.3 s"
awk -v s="$slp" -v y="$(val "$out" sys)" -v t="$(val "$out" trap)" \
	-v l="$(val "$out" lat)" 'BEGIN { exit !(s + y + t + l >= 0.3) }'
check $? -eq 0 "slp $slp plus sys, trap and lat >= 0.3 s"
sum=$(awk 'NR > 2 && NF == 2 { s += $2 } END { printf "%.9f", s }' <<<"$out")
within "$sum" "$real" 0.001
check $? -eq 0 "one thread: the ten states sum to real ($sum vs $real)"

# N threads that sleep 100 ms: N + 1 rows.  Each worker's blocked states
# (SLP, and any lock or fault) lie within its time switched out asleep by
# the kernel's trace of the scheduler, taken twice: one trace started
# before lwprof attaches its probes and one after (a held session keeps
# them attached), whose readings of each switch and wakeup come before
# and after lwprof's own
# (tests/lib/schedtrace.sh), so the bounds hold whatever a loaded host
# does (the scheduler's sleep statistics, +- 1 ms, failed there: they
# stamp a sleep's ends a few instructions from lwprof's, and the host may
# stall the vCPU in between).  Its SLP is also at most as long as its
# sleep took by its own clock (100 ppm + 2 us for the clocks:
# tests/lib/mstate.sh, ms_clocks), and SLP + SYS + TRAP + LAT >= 0.1 s
# (see the nap above).
st_start nthreads lwprof_st_before
trap 'st_cleanup; release_session; unload_lwprof' EXIT
hold_session	# lwprof's probes after the first trace's
st_start nthreads lwprof_st_after
out=$("$LWPROF" ptime -m -L "$progs/nthreads" 5 100 2>&1 >"$LWPROF_OUT/nthreads.out"); rc=$?
release_session
slept=$(cat "$LWPROF_OUT/nthreads.out"); rm -f "$LWPROF_OUT/nthreads.out"
st_stop "$LWPROF_OUT/nthreads.before" lwprof_st_before
st_stop "$LWPROF_OUT/nthreads.after" lwprof_st_after
echo "$out" | sed 's/^/    /'
echo "$slept" | sed 's/^/    /'
check $rc -eq 0 "ptime -m -L nthreads 5 100 exits 0"
read -r n m bad < <(st_pair "$LWPROF_OUT/nthreads.before" "$LWPROF_OUT/nthreads.after")
check "${bad:-1}" -eq 0 -a "${n:-0}" -gt 0 "the two traces hold the same events ($n and $m)"
rows=$(awk 'f && NF { n++ } /^ *PID / { f = 1 } END { print n + 0 }' <<<"$out")
check "$rows" -eq 6 "-L: 6 rows for main + 5 threads"
tids=$(awk 'f && NF { print $2 } /^ *PID / { f = 1 }' <<<"$out" | sort -u | wc -l)
check "$tids" -eq 6 "6 different tids"
pid=$(awk 'f && NF { print $1; exit } /^ *PID / { f = 1 }' <<<"$out")
check "$(awk -v p="$pid" 'f && NF && $2 == p { print $20 } /^ *PID / { f = 1 }' <<<"$out")" \
	= nthreads "the main thread's row (TID == PID) is nthreads"
bad=0 n=0
while read -r tid slp blocked run; do
	took=$(awk -v t="$tid" '$1 == "tid" && $2 == t { print $4 }' <<<"$slept")
	read -r _ _ _ _ _ _ blo bhi _ < <(st_bounds "$LWPROF_OUT/nthreads.before" \
		"$LWPROF_OUT/nthreads.after" "$tid")
	n=$((n + 1))
	awk -v s="$slp" -v b="$blocked" -v r="$run" -v t="${took:--1}" \
		-v lo="${blo:--1}" -v hi="${bhi:--1}" \
		'BEGIN { exit !(t >= 0 && s <= t + 2e-6 + t / 1e4 && s + r >= 0.1 &&
				b * 1e9 >= lo - 2000 - b * 1e5 && b * 1e9 <= hi + 2000 + b * 1e5) }' ||
		{ echo "    thread $tid: SLP $slp (+ SYS/TRAP/LAT $run), blocked $blocked, asleep in the traces $blo..$bhi ns, its sleep took ${took:-?}"
		  bad=$((bad + 1)); }
done < <(awk -v p="$pid" 'f && NF && $2 != p { printf "%s %s %.9f %.9f\n", $2, $11,
	$7 + $8 + $9 + $10 + $11 + $13, $5 + $6 + $12 } /^ *PID / { f = 1 }' <<<"$out")
rm -f "$LWPROF_OUT/nthreads.before" "$LWPROF_OUT/nthreads.after"
check $n -eq 5 "5 worker rows"
check $bad -eq 0 "every worker's blocked time within its time asleep in the traces, SLP at most its sleep and at least 0.1 s with SYS/TRAP/LAT"
out=$("$LWPROF" ptime -L "$progs/nthreads" 3 10 2>&1)
check "$(grep -m1 '^ *PID ' <<<"$out" | xargs)" = "PID TID REAL USER SYS NAME" \
	"-L header without -m"

# -p: a process that ends (killed), then ptime stopped with SIGTERM.
# started_ptime: wait (up to 30 s) until ptime blocks SIGTERM (bit 15 of
# SigBlk): then it is attached and waiting.
started_ptime() {
	local i blk
	for i in $(seq 300); do
		blk=$(awk '$1 == "SigBlk:" { print $2 }' /proc/"$1"/status 2>/dev/null)
		[ -n "$blk" ] && (( 0x$blk & 0x4000 )) && return 0
		sleep 0.1
	done
	return 1
}
err=$LWPROF_OUT/ptime_p.err
sleep 30 & spid=$!
"$LWPROF" ptime -m -p $spid 2>"$err" & ppid=$!
started_ptime $ppid; check $? -eq 0 "ptime -p attaches"
kill $spid
wait $ppid; rc=$?
out=$(cat "$err")
echo "$out" | sed 's/^/    /'
check $rc -eq 0 "ptime -p on a process that ends: exit 0"
real=$(val "$out" real) slp=$(val "$out" slp)
awk -v r="$real" -v s="$slp" 'BEGIN { exit !(r > 0 && s > 0 && s <= r) }'
check $? -eq 0 "real $real and slp $slp: 0 < slp <= real"

sleep 30 & spid=$!
"$LWPROF" ptime -p $spid 2>"$err" & ppid=$!
started_ptime $ppid
kill -TERM $ppid
wait $ppid; rc=$?
out=$(cat "$err"); rm -f "$err"
check $rc -eq 0 "ptime -p stopped by SIGTERM: exit 0"
real=$(val "$out" real)
awk -v r="$real" 'BEGIN { exit !(r > 0 && r < 30) }'
check $? -eq 0 "and reports real $real from attach to then"
kill $spid
done_testing
