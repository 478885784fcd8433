#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# collect -s on with a JVM: the waits the tracing library records in it
# (the JVM's own pthread_cond_wait under LockSupport.park, a contended
# synchronized, Thread.sleep) are on the Java stack where the thread
# blocked, in user mode; the JVM's threads' own waits are <JVM-System>.
# The truth: tests/progs/java/JStates times each phase itself; on its
# main thread, the Sync Wait Time of JStates.monitor() (the contended
# synchronized), of Unsafe.park() (under parkNanos) and of Thread.sleep()
# are each within 2% of the phase's time off CPU.  (Not the phases'
# methods inclusive: a safepoint may hold the thread in a wait of its
# own during the CPU the workload spins before each phase.)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
pb_need
work=$(mktemp -d /tmp/java_sync.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$LWPROF" collect --backend perf --stack-bytes 2048 -s on -o s.er java -cp "$java_progs" JStates 300 sleep,monitor,park >out 2>err
check $? -eq 0 "collect -s on java JStates"
sed 's/^/# /' out err
check "$(sed -n 's/^lost = //p' s.er/log.txt)" = 0 "no record lost"
check "$(ls s.er | grep -c '^trace\.[0-9]*\.rec$')" -ge 1 "the tracing library's file"
check "$(ls s.er | grep -c '^java\.[0-9]*\.rec$')" -eq 1 "the agent's file"
tid=$("$LWPROF" dump s.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list s.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
"$LWPROF" print -thread_select "$thr" -printmode csv -metrics i.sync:e.sync:name -functions s.er >f.csv 2>/dev/null
sed 's/^/# /' f.csv | head -12
col() {
	awk -F, -v n="$1" -v c="$2" '$NF == n { printf "%.0f", $c * 1e9; f = 1 }
		END { if (!f) print 0 }' f.csv
}
blocked() { echo $(($(java_wall out "$1") - $(java_cpu out "$1"))); }
java_within "$(col 'java.lang.Thread.sleep()' 1)" "$(blocked sleep)" 2 "Thread.sleep() Sync Wait Time"
java_within "$(col 'JStates.monitor()' 2)" "$(blocked monitor)" 2 "JStates.monitor()'s own Sync Wait Time (the synchronized)"
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.park()")' -printmode csv \
	-metrics i.sync:e.sync:name -functions s.er >p.csv 2>/dev/null
java_within "$(awk -F, '$NF == "jdk.internal.misc.Unsafe.park()" { printf "%.0f", $1 * 1e9 }' p.csv)" \
	"$(blocked park)" 2 "Unsafe.park() under JStates.park(): Sync Wait Time"
"$LWPROF" print -printmode csv -metrics e.sync:name -functions s.er >all.csv 2>/dev/null
check "$(grep -c 'OMP' all.csv)" -eq 0 "no OpenMP pseudo function in a JVM"
check "$(awk -F, '$NF == "<JVM-System>" { print ($1 > 0) }' all.csv)" = 1 "the JVM's own threads' waits: <JVM-System>"
done_testing
