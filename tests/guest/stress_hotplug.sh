#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug during a whole-machine session (the reliability battery):
# collect -a -p 1ms runs while CPU 1 goes offline and online ROUNDS times
# (LWPROF_STRESS_ROUNDS, default 3); then a spinner pinned to CPU 1 runs
# for a second.  collect must exit 0, every file must read back, and the
# spinner must have clock packets taken on CPU 1: its timer came back with
# the CPU.  The runner fails the test on any splat.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/collect.sh"

cpu1=/sys/devices/system/cpu/cpu1/online
[ -w $cpu1 ] || skip "CPU 1 cannot go offline here"
load_lwprof
need_sampling
rounds=${LWPROF_STRESS_ROUNDS:-3}
work=$(mktemp -d /tmp/stress_hotplug.XXXXXX) || exit 1
cd "$work" || exit 1
trap 'r=$?; echo 1 >$cpu1; (exit $r); unload_lwprof' EXIT

# Until SIGINT after the spinner: a -t guessed from the rounds ran out
# before the spinner at 40 rounds (each takes 1 to 2 s under TCG).
"$LWPROF" collect -a -p 1ms -o h.er -t 3600 >/dev/null 2>collect.err &
rec=$!
sleep 1
ok=0
for i in $(seq "$rounds"); do
	echo 0 >$cpu1 && sleep 0.3 && echo 1 >$cpu1 && ok=$((ok + 1))
	sleep 0.3
done
check $ok -eq "$rounds" "CPU 1 went offline and online $ok times"
taskset -c 1 "$LWPROF_BUILD/tests/progs/spin" 1 >/dev/null & sp=$!
wait $sp
kill -INT $rec
wait $rec
check $? -eq 0 "collect -a exits 0 ($(head -n 2 collect.err))"
"$LWPROF" dump h.er >dump.out 2>dump.err
check $? -eq 0 "dump reads every file ($(head -n 2 dump.err))"
n=$(grep -c "^.*SAMPLE clock .*pid=$sp tid=$sp cpu=1 " dump.out)
check "$n" -gt 0 "the spinner has clock packets on CPU 1 after the last online ($n)"
echo "# lost: $(key h.er lost)"
done_testing
