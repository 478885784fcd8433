#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# collect -j: a `java` command gets the JVMTI agent by default and its
# java.PID.rec holds what the JVM ran, checked against the workload
# (tests/progs/java/JStates): its methods with their source file and
# lines, the main thread by its Java name, clock ticks of Java stacks
# whose leaf is the spinning method about as often as its own CPU time
# says (ThreadMXBean), the sleep as a block with its stack and its end;
# -j off gives none; -j on with a command that is not java reaches the
# JVM it starts through JAVA_TOOL_OPTIONS; the exit status is the JVM's.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
pb_need
work=$(mktemp -d /tmp/java_collect.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$LWPROF" collect --backend perf -o j.er java -cp "$java_progs" JStates 400 cpu,sleep >out 2>err
check $? -eq 0 "collect java JStates exits 0"
sed 's/^/# /' out err
files=$(ls j.er | grep -c '^java\.[0-9]*\.rec$')
check "$files" -eq 1 "one java.PID.rec"
check "$(grep -c '^java = command line: -agentpath:.*liblwprof_jvmti.so=interval=10000000 -XX:+PreserveFramePointer ' j.er/log.txt)" -eq 1 \
	"log.txt: the agent on java's command line"
check "$(grep -c '^warning = java' j.er/log.txt)" -eq 0 "log.txt: no warning of the agent"
check "$(grep -c 'Re-registering' err)" -eq 0 "no JVM warning of the natives the agent wraps"
"$LWPROF" print -functions j.er >/dev/null 2>print.err
"$LWPROF" dump j.er >dump 2>&1
check $? -eq 0 "dump reads it whole"
java_methods j.er >methods
check "$(grep -c ' JStates\.\(cpu\|spinStep\|sleep\|main\)$' methods)" -eq 4 "the workload's methods recorded"
check "$(grep 'class=LJStates; name=spinStep ' dump | grep -c 'file=JStates.java lines=[1-9]')" -eq 1 \
	"spinStep: its source file and line table"
mainpid=$(grep -m1 'JTHREAD.* name="main"' dump | sed 's/.* tid=\([0-9]*\).*/\1/')
check -n "$mainpid" "the main thread named main"
spin=$(awk '/ JStates\.spinStep$/ { print $1 }' methods)
cpu=$(awk '/ JStates\.cpu$/ { print $1 }' methods)
ms=$(awk '$2 == "cpu" { printf "%d", $3 / 1000000 }' out)
"$LWPROF" dump -s j.er >dumps 2>&1
ticks=$(awk -v tid="tid=$mainpid" -v m1="method=$spin" -v m2="method=$cpu" '
	$2 == "JSTACK" { want = ($5 == tid && $6 == "tick"); first = 1; next }
	want && first && $1 == "#0" { n += ($2 == m1 || $2 == m2); first = 0 }
	END { print n + 0 }' dumps)
echo "# cpu phase: $ms ms of thread CPU time; ticks in it: $ticks"
check "$ticks" -ge $((ms * 8 / 100)) "ticks with the spin at the leaf: at least 80% of its CPU time / 10 ms"
check "$ticks" -le $((ms * 12 / 100 + 1)) "... and at most 120%"
check "$(grep -c "JSTACK.* tid=$mainpid sleep frames=[1-9]" dump)" -eq 1 "Thread.sleep: a block with its stack"
check "$(grep -c "JSTACK.* tid=$mainpid sleep end" dump)" -eq 1 "... and its end"
# a thread parked for the whole run is never signalled (its CPU clock stands)
cleaner=$(grep -m1 'JTHREAD.* name="Common-Cleaner"' dump | sed 's/.* tid=\([0-9]*\).*/\1/')
check -n "$cleaner" "the Common-Cleaner thread (parked throughout)"
check "$(grep -c "JSTACK.* tid=$cleaner tick" dump)" -eq 0 "no tick of the parked Common-Cleaner: an idle thread gets no signal"
check "$(grep -c "records were written" print.err)" -eq 0 "print: the records log.txt counts are the files' (with the agent's)"

"$LWPROF" collect --backend perf -j off -o off.er java -cp "$java_progs" JStates 50 cpu >/dev/null 2>&1
check $? -eq 0 "collect -j off"
check "$(ls off.er | grep -c '^java\.')" -eq 0 "-j off: no java file"

printf '#!/bin/sh\nexec java -cp "%s" JStates 50 cpu\n' "$java_progs" >run.sh
chmod +x run.sh
"$LWPROF" collect --backend perf -o sh.er ./run.sh >/dev/null 2>&1
check "$(ls sh.er | grep -c '^java\.')" -eq 0 "a script is not a JVM: no agent by default"
"$LWPROF" collect --backend perf -j on -o shj.er ./run.sh >/dev/null 2>shj.err
check "$(ls shj.er | grep -c '^java\.')" -eq 1 "-j on: the JVM the script runs gets it (JAVA_TOOL_OPTIONS)"
check "$(grep -c '^java = JAVA_TOOL_OPTIONS: ' shj.er/log.txt)" -eq 1 "log.txt says how"

"$LWPROF" collect --backend perf -o x.er java -cp "$java_progs" NoSuchClass >/dev/null 2>&1
check $? -eq 1 "the JVM's exit status (1: no such class)"
done_testing
