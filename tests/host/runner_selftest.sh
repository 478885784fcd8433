#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run itself: a passing, failing and skipping test are counted as
# such, a guest test that leaves a WARNING in the kernel log fails even
# though it exits 0, as does one that leaves tracefs's tracing_on changed
# (one that changes it and puts it back passes) or leaves a process running
# (killed: the next test passes), and the summary line and exit status say
# so.  A tier runs alone when asked to (-U, -T TIER).  A guest tier of 16
# tests or more runs in two boots sharing its tests, the results numbered
# in the tests' order all the same.
. "$(dirname "$0")/../lib/test.sh"

dir=$LWPROF_OUT/runner_selftest
rm -rf "$dir"
mkdir -p "$dir/tests/host" "$dir/tests/guest" "$dir/out"
printf '#!/bin/sh\necho fine\n' >"$dir/tests/host/passes.sh"
printf '#!/bin/sh\necho broken; exit 3\n' >"$dir/tests/host/fails.sh"
printf '#!/bin/sh\necho "skip: no frobnicator"; exit 77\n' >"$dir/tests/host/skips.sh"
printf '#!/bin/sh\nexit 0\n' >"$dir/tests/guest/clean.sh"
printf '#!/bin/sh\necho "WARNING: CPU: 0 PID: 1 at selftest" >/dev/kmsg\nexit 0\n' \
	>"$dir/tests/guest/splat.sh"
printf '#!/bin/sh\necho 0 >/sys/kernel/tracing/tracing_on\nexit 0\n' \
	>"$dir/tests/guest/tracefs_left.sh"
printf '#!/bin/sh\n(sleep 1000 &)\nexit 0\n' >"$dir/tests/guest/leaves_proc.sh"
cat >"$dir/tests/guest/tracefs_restored.sh" <<'EOF'
#!/bin/sh
t=/sys/kernel/tracing
clock=$(sed 's/.*\[\(.*\)\].*/\1/' $t/trace_clock)
on=$(cat $t/tracing_on)
echo 0 >$t/tracing_on; echo mono >$t/trace_clock
echo "$clock" >$t/trace_clock; echo "$on" >$t/tracing_on
EOF

# Enough guest tests (17) for the main guest to boot in two halves.
for i in $(seq -w 1 12); do
	printf '#!/bin/sh\necho "$LWPROF_OUT"\n' >"$dir/tests/guest/more$i.sh"
done

out=$(LWPROF_TESTS_DIR=$dir/tests LWPROF_OUT=$dir/out "$LWPROF_TOP/tests/run" -t 60 -v)
rc=$?
echo "$out" | sed 's/^/  | /'
check $rc -eq 1 "runner exits 1 when a test failed"
check "$(tail -n 1 <<<"$out")" = "15 passed, 4 failed, 1 skipped" "summary line counts"
want=$(cd "$dir/tests" && printf "%s\n" host/*.sh guest/*.sh | sed 's/\.sh$//' | nl -w1 -s' ' | sed 's/^/ok /;s/ \([a-z]*\/\)/ - \1/')
check "$(grep -o '^\(not \)\{0,1\}ok [0-9]* - [a-z]*/[a-z_0-9]*' <<<"$out" | sed 's/^not //')" = "$want" \
	"results numbered 1..20, host then guest, each tier in its tests' order"
check "$(ls "$dir"/out/lanes/main.[01]/vm-console.log 2>/dev/null | wc -l)" -eq 2 \
	"17 guest tests: the main guest in two boots"
check "$(ls "$dir/out/lanes/queue" | wc -l) $(grep -o "$dir/out/lanes/main\.[01]" <<<"$out" | wc -l)" = "17 12" \
	"the two boots took the 17 tests from one queue, each once (12 print where)"
check "$(ls "$dir/out/log" | grep -c '^guest_')" -eq 17 "every guest test's log (17) in tests/out/log"
grep -q '^not ok [0-9]* - host/fails (exit 3' <<<"$out"; check $? -eq 0 "failing test reported with its status"
grep -q '^#   broken$' <<<"$out"; check $? -eq 0 "failing test's output shown"
grep -q '^ok [0-9]* - host/skips # SKIP no frobnicator$' <<<"$out"; check $? -eq 0 "skip reported with reason"
grep -q '^ok [0-9]* - guest/clean' <<<"$out"; check $? -eq 0 "clean guest test passes"
grep -q '^not ok [0-9]* - guest/splat' <<<"$out"; check $? -eq 0 "kernel WARNING fails the guest test that exited 0"
grep -q '^# kernel log splat: .*WARNING: CPU: 0 PID: 1 at selftest' <<<"$out"
check $? -eq 0 "the splat line is shown"
grep -q '^not ok [0-9]* - guest/tracefs_left' <<<"$out"
check $? -eq 0 "a guest test that exited 0 but left tracing_on 0 fails"
grep -q '^#   + tracing_on 0$' <<<"$out"; check $? -eq 0 "the change is shown"
grep -q '^not ok [0-9]* - guest/leaves_proc' <<<"$out"
check $? -eq 0 "a guest test that exited 0 but left a process running fails"
grep -q '^#   [0-9]* sleep 1000 $' <<<"$out"; check $? -eq 0 "the process is shown"
grep -q '^ok [0-9]* - guest/tracefs_restored' <<<"$out"
check $? -eq 0 "one that changed tracing_on and trace_clock and put them back passes"

# One tier alone: -U (make unit) and -T host run that tier's tests and no
# other's; -H runs the unit tier, then the host tier.
mkdir -p "$dir/tests/unit"
printf '#!/bin/sh\necho quick\n' >"$dir/tests/unit/quick.sh"
run_tiers() { LWPROF_TESTS_DIR=$dir/tests LWPROF_OUT=$dir/out "$LWPROF_TOP/tests/run" -t 60 "$@"; }
out=$(run_tiers -U)
check "$(grep -c '^ok\|^not ok' <<<"$out") $(tail -n 1 <<<"$out")" = "1 1 passed, 0 failed, 0 skipped" \
	"-U: the unit test alone"
out=$(run_tiers -T host)
check "$(grep -c 'unit/' <<<"$out") $(tail -n 1 <<<"$out")" = "0 1 passed, 1 failed, 1 skipped" \
	"-T host: the host tests alone"
out=$(run_tiers -H 'host/passes' 'unit/*')
check "$(grep -o '^ok [0-9]* - [a-z]*/[a-z]*' <<<"$out" | tr '\n' ' ')" = "ok 1 - unit/quick ok 2 - host/passes " \
	"-H: the unit tier first, then the host tier"
rm -rf "$dir"
done_testing
