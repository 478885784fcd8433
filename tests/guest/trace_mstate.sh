#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's microstates over each traced call (ABI 1.5, docs/tracing.md):
# collect -s all -i on of tests/progs/trace_ms, whose thread measures each
# call around it with the kernel's own statistics: its CPU time, its
# run-queue wait (schedstat) and its time blocked (the scheduler's
# sum_sleep_runtime, schedstats on).  The library's window lies inside
# the program's, whose edges (clock and /proc reads) never block.  So:
# each record's microstates sum to its time exactly; its blocked time
# (User Lock + Sleep) is the scheduler's within 0.5 ms (the two stamp a
# switch-out and a wake-up a few instructions apart, microseconds under
# TCG: a tenth of the bound); its CPU time is at most the thread's CPU
# time + 0.2 ms and its Wait CPU at most the run-queue wait + 0.5 ms (the
# same stamps; schedstat's run-queue clock also skips updates).  The 300
# ms mutex wait is User Lock, the pipe's 200 ms read Sleep, the 64 MiB
# read from /dev/zero System CPU.  print -statistics shows the wait's
# microstates as the module's.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

[ -w /proc/sys/kernel/sched_schedstats ] && echo 1 >/proc/sys/kernel/sched_schedstats
load_lwprof
need_sampling
feat=$("$LWPROF" version | sed -n 's/.*features 0x\([0-9a-f]*\)).*/\1/p' | tail -n 1)
[ $((0x${feat:-0} & 0x100)) -ne 0 ] || skip "the module has no LWPROF_FEAT_USTATE"
work=$(mktemp -d /tmp/trace_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -s all -i on -o t.er "$LWPROF_BUILD/tests/progs/trace_ms" >out 2>err
check $? -eq 0 "collect -s all -i on trace_ms ($(tail -n 1 err))"
cat out
"$LWPROF" dump t.er >dump 2>&1
check $? -eq 0 "dump reads the experiment"

# rec EVENT KEY=VALUE: the microstates of the main thread's traced call
# EVENT whose field KEY is VALUE, as "user system trap lock sleep wait
# sum start t" (ns), from dump's TRACE line and the SAMPLE line after it.
rec() {
	awk -v ev="$1" -v kv="$2" '
	function f(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function ns(v) { sub(/^t=/, "", v); split(v, p, "."); return p[1] * 1e9 + p[2] }
	$2 == "TRACE" && $3 == ev && index(" " $0 " ", " " kv " ") && f("pid") == f("tid") {
		t = ns(f("t")); s = ns(f("start")); want = 1; next
	}
	want && $1 == "SAMPLE" {
		printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", f("user"), f("system"), f("trap"),
			f("lock"), f("sleep"), f("wait"), f("value"), s, t
		exit
	}' dump
}

# near NAME GOT TRUTH BELOW ABOVE (ns): TRUTH - BELOW <= GOT <= TRUTH + ABOVE
near() {
	check "$(awk -v g="$2" -v t="$3" -v b="$4" -v a="$5" 'BEGIN { print (g >= t - b && g <= t + a) }')" = 1 \
		"$1: $(awk -v g="$2" -v t="$3" -v b="$4" -v a="$5" 'BEGIN {
			printf "%.3f ms, truth %.3f ms (-%.3f, +%.3f)", g / 1e6, t / 1e6, b / 1e6, a / 1e6 }')"
}

n=0
while read -r _ kind id wall cpu runq slept; do
	n=$((n + 1))
	case $kind in
	lock) what="pthread_mutex_lock addr=$(printf '0x%x' "$id")" ;;
	read) what="read fd=$id" ;;
	esac
	read -r u s tr lk sl w sum t0 t1 < <(rec ${what%% *} "${what#* }")
	check -n "$sum" "call $n ($what): a trace record with microstates"
	[ -n "$sum" ] || continue
	check "$sum" -eq $((t1 - t0)) "call $n: the microstates sum to the call's time ($sum ns)"
	check "$slept" -ge 0 "call $n: schedstats give the time blocked"
	near "call $n $kind: blocked (lock+sleep)" $((lk + sl)) "$slept" 500000 500000
	# at most the thread's own (the program's window holds the library's)
	near "call $n $kind: CPU (user+system+trap)" $((u + s + tr)) "$cpu" "$cpu" 200000
	near "call $n $kind: Wait CPU" "$w" "$runq" "$runq" 500000
	case $n in
	1) check "$lk" -ge $((slept * 99 / 100)) "call 1: blocked as User Lock ($lk of $slept ns)" ;;
	2) check "$sl" -ge $((slept * 99 / 100)) "call 2: blocked as Sleep ($sl of $slept ns)" ;;
	3) check "$s" -ge $((cpu * 8 / 10)) "call 3: System CPU ($s of $cpu ns CPU)" ;;
	esac
done < <(grep '^call ' out)
check "$n" -eq 3 "three calls measured"

st=$("$LWPROF" print -statistics t.er 2>/dev/null)
grep -A4 '^Sync wait tracing' <<<"$st"
check "$(grep -c '^  Microstates of the [0-9]* waits the module accounted:' <<<"$st")" -eq 1 \
	"-statistics: the traced waits' microstates"
top=$(grep -A1 'The longest traced waits' <<<"$st" | tail -n 1)
check "$(awk '{ d = $1; for (i = 1; i < NF; i++) if ($i == "Lock") l = $(i + 1);
	print ($0 ~ /pthread_mutex_lock/ && $0 ~ /, over the call$/ && l >= 0.99 * d) }' <<<"$top")" = 1 \
	"-statistics: the longest wait, the mutex's, at least 99% User Lock over the call"
done_testing
