#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's microstates over each traced call (ABI 1.5, docs/design/tracing.md):
# collect -s all -i on of tests/progs/trace_ms, each of whose calls is the
# one thing a thread of its own does.  The thread blocks nowhere but in
# its call, so each of the record's blocked states (User Lock, Sleep, the
# faults, Stopped) is exactly the thread's whole in the module's precise
# totals (usage.txt): the same accumulators, read by the library at the
# call's ends; its CPU and Wait CPU are at most the thread's.  Each
# record's microstates sum to its time exactly, within the thread's own
# measure of the call (the vDSO's clock around it).  The mutex another
# thread holds 300 ms is at least 100 ms of User Lock, the pipe written
# after 200 ms at least 100 ms of Sleep (the waits' lengths, less what
# the threads' starts took); a 64 MiB read from /dev/zero is System CPU
# and never blocked.  print -statistics lists the longest waits (the
# mutex's, main's joins) with the module's microstates over each: the
# mutex wait's line says exactly what its record holds (its length, User
# Lock, the sum).  How much of a wait is User Lock is the record's check
# above, over the time blocked: its CPU and Wait CPU grow with the host's
# load (a stalled vCPU there stretches whatever state the thread is in),
# so no share of the whole call is known.  (The scheduler's own
# statistics are no truth at this grain under TCG: they stamp a switch
# with the run-queue clock of the __schedule() entry, and a vCPU stall in
# between moves milliseconds from one side to the other.)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

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

# rec EVENT KEY=VALUE TID: the microstates of thread TID's traced call
# EVENT whose field KEY is VALUE, as "user system trap tflt dflt kflt lock
# sleep stop wait sum start t" (ns), from dump's TRACE line and the
# microstates' line after it (none: nothing).
rec() {
	awk -v ev="$1" -v kv="$2" -v tid="$3" '
	function f(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function ns(v) { sub(/^t=/, "", v); split(v, p, "."); return p[1] * 1e9 + p[2] }
	$2 == "TRACE" && $3 == ev && index(" " $0 " ", " " kv " ") && f("tid") == tid {
		t = ns(f("t")); s = ns(f("start")); want = 1; next
	}
	want && $1 ~ /^user=/ {
		split("user system trap tflt dflt kflt lock sleep stop wait", n, " ")
		for (i = 1; i <= 10; i++) {
			v[i] = f(n[i]); sum += v[i]
			printf "%.0f ", v[i]
		}
		printf "%.0f %.0f %.0f\n", sum, s, t
		exit
	}
	want { exit }' dump
}

# usage TID: the thread's user system trap tflt dflt kflt lock sleep stop
# wait in usage.txt.
usage() {
	awk -v tid="$1" '$1 == "#" { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
		$2 == tid { print $col["user"], $col["system"], $col["trap"], $col["tflt"],
			$col["dflt"], $col["kflt"], $col["lock"], $col["sleep"],
			$col["stop"], $col["wait"]; exit }' t.er/usage.txt
}

n=0
while read -r _ kind id tid wall; do
	n=$((n + 1))
	case $kind in
	lock) what="pthread_mutex_lock addr=$(printf '0x%x' "$id")" ;;
	read) what="read fd=$id" ;;
	esac
	read -r u s tr tf df kf lk sl st w sum t0 t1 < <(rec ${what%% *} "${what#* }" "$tid")
	echo "# call $n ($what, tid $tid): user $u system $s trap $tr tflt $tf dflt $df kflt $kf lock $lk sleep $sl stop $st wait $w (ns)"
	check -n "$sum" "call $n: a trace record with microstates"
	[ -n "$sum" ] || continue
	check "$sum" -eq $((t1 - t0)) "call $n: the microstates sum to the call's time ($sum ns)"
	check $((t1 - t0)) -le "$wall" "call $n: the call's time within the thread's measure of it ($wall ns)"
	read -r uu us ut utf udf ukf ulk usl ust uw < <(usage "$tid")
	echo "# thread $tid in usage.txt: user $uu system $us trap $ut tflt $utf dflt $udf kflt $ukf lock $ulk sleep $usl stop $ust wait $uw (ns)"
	check "$tf $df $kf $lk $sl $st" = "$utf $udf $ukf $ulk $usl $ust" \
		"call $n: blocked states (tflt dflt kflt lock sleep stop) = the thread's in usage.txt"
	check $((u + s + tr)) -le $((uu + us + ut)) "call $n: CPU within the thread's"
	check "$w" -le "$uw" "call $n: Wait CPU within the thread's"
	off=$((sum - u - s - tr - w))
	case $n in
	1) mtx_rec="$what $tid $((t1 - t0)) $lk $sum"
	   check $((lk * 100)) -ge $((off * 99)) "call 1: blocked as User Lock ($lk of $off ns)"
	   check "$off" -ge 100000000 "call 1: blocked 100 ms or more (the holder holds it 300 ms)" ;;
	2) check $((sl * 100)) -ge $((off * 99)) "call 2: blocked as Sleep ($sl of $off ns)"
	   check "$off" -ge 100000000 "call 2: blocked 100 ms or more (the writer waits 200 ms)" ;;
	3) check $((s * 10)) -ge $(((u + s + tr) * 8)) "call 3: System CPU ($s of $((u + s + tr)) ns CPU)"
	   check "$off" -eq 0 "call 3: never blocked" ;;
	esac
done < <(grep '^call ' out)
check "$n" -eq 3 "three calls measured"

st=$("$LWPROF" print -statistics t.er 2>/dev/null)
grep -A8 '^Sync wait tracing' <<<"$st"
check "$(grep -c '^  Microstates of the [0-9]* waits the module accounted:' <<<"$st")" -eq 1 \
	"-statistics: the traced waits' microstates"
top=$(grep -A5 'The longest traced waits' <<<"$st" | tail -n +2 | grep ' s .* of 0x')
check "$(grep -c ', over the call$' <<<"$top")" -eq "$(grep -c . <<<"$top")" \
	"-statistics: each of the longest waits with its microstates over the call"
# The mutex wait's line (not a join's: the joins are longer) against its
# record: the same length, User Lock and sum, to the microsecond printed.
read -r _ addr tid len lk sum <<<"$mtx_rec"
line=$(grep -F " pthread_mutex_lock of ${addr#addr=} (tid $tid):" <<<"$top")
echo "# the mutex wait: $line"
want=$(awk -v l="$len" -v k="$lk" -v s="$sum" 'BEGIN { printf "%.6f s %.6f s %.6f s", l / 1e9, k / 1e9, s / 1e9 }')
got=$(awk '{ d = $1; for (i = 1; i < NF; i++) { if ($i == "Lock") l = $(i + 1); if ($i == "all") a = $(i + 1) }
	printf "%s s %s s %s s", d, l, a }' <<<"$line")
check "$got" = "$want" \
	"-statistics: the mutex wait's length, User Lock and sum over the call are its record's"
done_testing
