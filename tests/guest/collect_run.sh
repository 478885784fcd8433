#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect on the real module: clock-sample rates (a 2 s CPU loop at
# 10 ms and 1 ms), nothing lost, every nanosecond of each exited thread in
# exactly one packet (the packets' microstates sum to usage.txt), exit
# statuses, a target killed by SIGSEGV, and a recorder SIGKILLed mid-run
# (the module frees its session; dump shows the records up to the cut).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_run

# clock PID TID DUMP: the clock packets of thread TID of process PID.
clock() { grep -c ": SAMPLE clock t=[0-9.]* pid=$1 tid=$2 " "$3"; }
# sums EXP DUMP: for every exited thread of usage.txt, "tid OK|MISMATCH":
# its clock packets' ten microstates summed, against its final totals.
sums() {
	awk '
	BEGIN { split("user system trap tflt dflt kflt lock sleep stop wait", n, " ")
		for (j = 1; j <= 10; j++) col[n[j]] = j - 1 }
	FNR == NR { if ($0 ~ /: SAMPLE clock /) {
			tid = ""
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "tid") tid = kv[2]
				else if (kv[1] in col) s[tid, col[kv[1]]] += kv[2]
			}
		}
		next }
	/^#/ { next }
	$4 ~ /[13579bdf]$/ { ok = 1
	  for (j = 0; j < 10; j++) if (s[$2, j] + 0 != $(7 + j) + 0) ok = 0
	  print $2, ok ? "OK" : "MISMATCH" }
	' "$2" "$1/usage.txt"
}

# Rates: a 2 s CPU loop; its thread's packets = its time / the interval,
# 200 at 10 ms and 2000 at 1 ms, +- 5%.  A timer ticks only while the vCPU
# runs, and a TCG guest on a busy host stalls at times, so it loses ticks
# that no profiler can take: perf's cpu-clock sampling the same thread at
# the same period (perf runs the loop, under collect) tells whether the
# guest kept time.  The guest is trusted when perf's count is within 2% of
# nominal (lost ticks alone then cannot push lwprof out of its 5%); if not,
# lwprof's count is only reported.  (One packet per expiry of lwprof's
# timer is the module's own test, guest/sample_clock; perf's count is no
# match for lwprof's beyond that: a packet also carries the time the
# thread did not run, e.g. its wait for perf to let it exec.)  Whatever
# the timing, nothing may be lost on the way to the files, and each
# thread's packets sum to its final totals.
command -v perf >/dev/null || skip "no perf in the guest"
for p in 10ms:200:10000000 1ms:2000:1000000; do
	IFS=: read -r iv want ns <<<"$p"
	e=rate$iv.er
	"$LWPROF" collect -o $e -p $iv perf record -q -e cpu-clock -c "$ns" \
		-o $e.perf -- "$progs/cpu_burn" 2 >pid.txt 2>err.txt
	rc=$?; pid=$(cat pid.txt)
	check $rc -eq 0 "collect -p $iv perf record cpu_burn 2 exits 0"
	"$LWPROF" dump $e >$e.dump 2>$e.err
	check $? -eq 0 "  dump reads it cleanly"
	n=$(clock "$pid" "$pid" $e.dump)
	pn=$(perf script -i $e.perf -F tid 2>/dev/null | awk -v t="$pid" '$1 == t' | wc -l)
	if within "$pn" "$want" 2; then
		within "$n" "$want" 5; check $? -eq 0 "  $n clock packets, $want +- 5% (perf's cpu-clock: $pn)"
	else
		echo "# the guest lost ticks: perf took $pn samples, not $want +- 2%; lwprof made $n packets"
	fi
	check "$(key $e records)" -eq "$(sed -n 's/^total: \([0-9]*\) records.*/\1/p' $e.dump)" \
		"  the files hold every record the module wrote ($(key $e records))"
	check "$(key $e lost)" = 0 "  lost 0"
	check -z "$(grep '^warning' $e/log.txt)" "  no warnings"
	check "$(key $e exit)" = "status 0" "  exit = status 0"
	check "$(key $e clock_interval_ns)" = "$ns" "  clock_interval_ns = $ns"
	bad=$(sums $e $e.dump | grep -vc ' OK$')
	check "$bad" -eq 0 "  each exited thread: packets' microstates sum to usage.txt ($(sums $e $e.dump | xargs))"
done

# Exit statuses pass through.
"$LWPROF" collect -o st3.er sh -c 'exit 3' 2>/dev/null
check $? -eq 3 "exit status 3 passes through"
"$LWPROF" collect -o kill.er sh -c 'kill -KILL $$' 2>/dev/null
check $? -eq 137 "killed by SIGKILL -> 137"
err=$("$LWPROF" collect -o nx.er /nonexistent/cmd 2>&1); rc=$?
check $rc -eq 127 "exec failure -> 127"
grep -q '^lwprof collect: /nonexistent/cmd: No such file or directory$' <<<"$err"
check $? -eq 0 "  and says why"

# A target that crashes: a complete experiment with the cause in the log.
"$LWPROF" collect -o segv.er sh -c 'ulimit -c 0; kill -SEGV $$' >/dev/null 2>&1
check $? -eq 139 "SIGSEGV -> 139"
check "$(key segv.er exit)" = "signal 11 SIGSEGV" "  log: exit = signal 11 SIGSEGV"
"$LWPROF" dump segv.er >segv.dump 2>&1; check $? -eq 0 "  a sound experiment"
t=$(key segv.er target)
grep -q ": TASK exit .* pid=$t tid=$t " segv.dump; check $? -eq 0 "  with its TASK exit"
awk -v t="$t" '$2 == t && $4 ~ /[13579bdf]$/' segv.er/usage.txt | grep -q .
check $? -eq 0 "  and its final usage"

# The recorder SIGKILLed mid-run: the module frees its session (another
# session can take the target), and the experiment reads up to the cut.
"$LWPROF" collect -o cut.er "$progs/cpu_burn" 60 >pid.txt 2>/dev/null & cpid=$!
for i in $(seq 1 100); do [ -s pid.txt ] && break; sleep 0.1; done
sleep 2
kill -KILL $cpid; wait $cpid 2>/dev/null
t=$(cat pid.txt)
"$LWPROF" collect -o again.er -P "$t" -t 0.5 2>err.txt
check $? -eq 0 "after the kill, a new session attaches to the target: the old one was freed ($(cat err.txt))"
kill "$t"
"$LWPROF" dump cut.er >cut.dump 2>cut.err; rc=$?
check $rc -eq 1 "dump of the killed recording exits 1"
grep -q 'the recording did not finish' cut.err; check $? -eq 0 "  and says it did not finish"
grep -q 'cpu\.[0-9]*\.rec: offset [0-9]*: the recording was cut here' cut.err
check $? -eq 0 "  naming file and offset"
n=$(clock "$t" "$t" cut.dump)
check "$n" -ge 20 "  $n clock packets were flushed before the kill"

collect_done
