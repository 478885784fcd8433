#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Java's view modes against the workload's own measures: JStates
# (tests/progs/java) runs its phases in methods of their own and times
# each itself (ThreadMXBean CPU time, System.nanoTime); lwprof print in
# user mode (the default) must give, on the main thread, each method its
# time in the right microstate: the spin's and the allocation loop's CPU
# within 3% (and the machine's steal time, which perf counts as CPU); Thread.sleep, the contended monitor, LockSupport.parkNanos
# (User Lock: futex waits) and the read of a pipe (Sleep) the phase's
# wall time within 2%, all of it that state but the Wait CPU after the
# wake-up (and CPU), within 2%.  And: the JVM's own threads are <JVM-System>,
# <no Java callstack recorded> is under 1% of the main thread's samples,
# the workload's methods are on their source lines, expert mode shows
# the native read below FileInputStream.readBytes(), machine mode the
# native stacks with compiled code named by method; the exports (folded,
# pprof, Perfetto, html) carry the Java names.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
pb_need
work=$(mktemp -d /tmp/java_views.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

ms=400
steal=$(pb_steal)
"$LWPROF" collect --backend perf --stack-bytes 2048 -o j.er java -cp "$java_progs" JStates $ms >out 2>err
check $? -eq 0 "collect java JStates $ms"
steal=$(($(pb_steal) - steal))
sed 's/^/# /' out err
# every record kept: a lost one takes its thread's time with it
check "$(sed -n 's/^lost = //p' j.er/log.txt)" = 0 "no record lost (2 KiB stack copies: a JVM's many threads switch often)"

# the main thread's number in -thread_list (its tid: the agent's "main")
tid=$("$LWPROF" dump j.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list j.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
check -n "$thr" "the main thread ($tid) in -thread_list"
"$LWPROF" print -thread_select "$thr" -printmode csv -metrics $java_metrics -functions j.er >f.csv 2>f.err
sed 's/^/# /' f.err
java_cpu_check j.er out "$thr" 'JStates.cpu()' cpu "$steal"
java_cpu_check j.er out "$thr" 'JStates.alloc()' alloc "$steal"
java_block_check f.csv out 'java.lang.Thread.sleep()' i lock sleep
java_block_check f.csv out 'JStates.monitor()' e lock monitor
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.park()")' -printmode csv \
	-metrics $java_metrics -functions j.er >p.csv 2>/dev/null
java_block_check p.csv out 'jdk.internal.misc.Unsafe.park()' i lock park
# the pipe's read under read() (the JVM reads its own files too)
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.read()")' -printmode csv \
	-metrics $java_metrics -functions j.er >r.csv 2>/dev/null
java_block_check r.csv out 'java.io.FileInputStream.readBytes()' i sleep read

# from the phases' start: what came before is the JVM starting
"$LWPROF" print -thread_select "$thr" -filters "TSTAMP >= $(java_since_main j.er out)" \
	-printmode csv -metrics $java_metrics -functions j.er >m.csv 2>/dev/null
total=$(java_col m.csv '<Total>' i total)
none=$(java_col m.csv '<no Java callstack recorded>' i total)
echo "# main thread: $((total / 1000000)) ms, <no Java callstack recorded> $((none / 1000000)) ms"
check $((none * 100)) -lt "$total" "<no Java callstack recorded> under 1% of the main thread's time from the phases' start"

"$LWPROF" print -printmode csv -metrics e.total:name -functions j.er >all.csv 2>/dev/null
gc=$("$LWPROF" print -thread_list j.er 2>/dev/null | awk '$5 == "GC" { print $1; exit }')
if [ -n "$gc" ]; then
	"$LWPROF" print -thread_select "$gc" -printmode csv -metrics e.total:name -functions j.er >gc.csv 2>/dev/null
	check "$(awk -F, 'NR > 2 && $1 > 0 && $NF != "<JVM-System>"' gc.csv | wc -l)" -eq 0 \
		"a GC thread's time is all <JVM-System>"
fi
"$LWPROF" print -thread_select "$thr" -lines j.er >lines 2>/dev/null
check "$(grep -c 'JStates.spinStep(), line [0-9]* in "JStates.java"' lines)" -ge 1 "-lines: spinStep on its source lines"
check "$(grep -c '<Function: JStates\.' lines)" -eq 0 "-lines: no JStates method without line numbers"

"$LWPROF" print -viewmode expert -thread_select "$thr" -printmode csv -metrics i.total:name -calltree j.er >tree 2>/dev/null
grep -A4 'FileInputStream.readBytes()' tree | sed 's/^/# /'
check "$(grep -A4 'FileInputStream.readBytes()' tree | grep -c '+-read$')" -ge 1 \
	"expert: the native read below FileInputStream.readBytes()"
check "$(grep -c 'w_read\|w_sleep\|w_park' tree)" -eq 0 "expert: not the agent's wrappers"
"$LWPROF" print -viewmode machine -functions j.er >mach 2>/dev/null
check "$(grep -c 'JStates.spinStep()' mach)" -ge 1 "machine: the compiled spinStep named by method"
check "$(grep -c '__futex_abstimed_wait_common\|clock_nanosleep\|pthread_cond' mach)" -ge 1 "machine: native frames"
check "$(grep -c '<JVM-System>' mach)" -eq 0 "machine: no <JVM-System>"

# the exports read the same (user mode) stacks
"$LWPROF" export folded -o j.folded j.er 2>/dev/null
check "$(grep -c '^[^ ]*JStates.main();JStates.cpu();JStates.spinCpu();JStates.spinStep() [0-9]' j.folded)" -ge 1 "folded: JStates.main();JStates.cpu();JStates.spinCpu();JStates.spinStep()"
"$LWPROF" export pprof -o j.pb.gz j.er 2>/dev/null
check "$(zcat j.pb.gz | grep -ac 'JStates.spinStep()')" -ge 1 "pprof: the Java method names"
"$LWPROF" export perfetto -o j.pftrace j.er 2>/dev/null
check "$(grep -ac 'JStates.spinStep()' j.pftrace)" -ge 1 "perfetto: the Java method names"
"$LWPROF" export html -o j.html j.er 2>/dev/null
check "$(grep -c 'JStates.spinStep()' j.html)" -ge 1 "html: the Java method names"
done_testing
