#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guard under churn (docs/design/security.md): ROUNDS rounds, on one load
# of the module, of: uid 65534 records a target of its own that keeps
# forking 64-thread children (collect -P, 1 ms clock, delta stack
# copies) while another of its recordings watches a program go
# non-dumpable; at a random moment root takes the target (an attach:
# every live thread of the user's session taken out while it runs,
# forks and exits) or the whole machine (lwprof top).  Asserts: every
# recorder exits 0, the user's saying that its recording ended early;
# every experiment reads back; no secret in the non-dumpable one; no
# ring memory of the module left once all are gone.  The runner fails
# the test on any splat and checks, at the unload, that no thread entry
# is left.  LWPROF_STRESS_ROUNDS (default 3) and LWPROF_STRESS_SEED
# (default: random, printed) size and replay it; scripts/stress runs it
# long.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

rounds=${LWPROF_STRESS_ROUNDS:-3}
seed=${LWPROF_STRESS_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "# seed $seed, $rounds rounds"
RANDOM=$seed
sec_setup stress_guard
chown 65534 secret

for ((r = 1; r <= rounds; r++)); do
	bg_nobody "$progs/churn_target" 60 >/dev/null
	tp=$bg_pid
	started "$tp" churn_target
	nobody "$LWPROF" collect -p 1ms -P "$tp" -o "t$r.er" >/dev/null 2>"t$r.err" & t=$!
	nobody "$LWPROF" collect -p 1ms -o "n$r.er" "$progs/secret_spin" \
		-p 0.$((RANDOM % 5 + 1)) -n secret 1 >/dev/null 2>"n$r.err" & n=$!
	for ((i = 0; i < 1200; i++)); do	# the user's session is there
		[ -e "t$r.er/cpu.0.rec" ] || ! kill -0 "$t" 2>/dev/null && break
		sleep 0.05
	done
	sleep 0.$((RANDOM % 9 + 1))
	if ((RANDOM % 2)); then
		what="root attaches to the target"
		"$progs/hold_session" "$tp" 1 >"r$r.txt"
	else
		what="root's lwprof top"
		"$LWPROF" top -b -n 1 -d 0.5 >"r$r.txt" 2>&1
	fi
	rc=$?
	check $rc -eq 0 "round $r: $what ($(head -c 200 "r$r.txt"))"
	kill "$tp"	# its recording ended already: -P ends with it
	wait "$t"
	check $? -eq 0 "  the user's collect -P exits 0 ($(tr '\n' ' ' <"t$r.err"))"
	grep -q "recording ended early: a privileged session or another user took it" "t$r.err"
	check $? -eq 0 "  and says its recording ended"
	wait "$n"
	check $? -eq 0 "  the user's collect secret_spin -n exits 0 ($(tr '\n' ' ' <"n$r.err"))"
	check "$(leaked "n$r.er")" -eq 0 "  with none of its secret"
	for e in "t$r.er" "n$r.er"; do
		"$LWPROF" dump "$e" >/dev/null 2>"dump.err"
		check $? -eq 0 "  $e reads back ($(head -n 2 dump.err))"
	done
	wait "$tp" 2>/dev/null
	rm -rf "t$r.er" "n$r.er"
done
m=$(grep -c '\[lwprof\]' /proc/vmallocinfo)
check "$m" -eq 0 "no ring memory of the module left ($m areas)"
collect_done
