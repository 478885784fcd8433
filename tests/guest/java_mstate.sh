#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Java with the module: every Java sample carries its thread's exact
# microstate, so each method's time splits into User CPU, System CPU,
# User Lock, Sleep and Wait CPU as the kernel counted it.  The truth is
# the workload's own (tests/progs/java/JStates, phases in methods of their
# own, timed by the program): JStates.cpu()'s CPU time within 3% of its
# ThreadMXBean CPU time; Thread.sleep() and the contended synchronized in
# JStates.monitor() User Lock, FileInputStream.readBytes() on a pipe
# Sleep: each the phase's wall time within 2%, all of it that state but
# the Wait CPU after the wake-up, in user mode.  Short phases: a JVM
# under TCG is slow.  (<no Java callstack recorded> is checked on the
# host, tests/host/java_views.sh: under TCG the module's clock packets
# hold tens of ms of CPU each and HotSpot's runtime, emulated, is where
# the agent's ticks fail, beyond what the host sees.)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
load_lwprof
need_sampling
work=$(mktemp -d /tmp/java_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
ms=300
"$LWPROF" collect -o j.er java -cp "$java_progs" JStates $ms cpu,sleep,monitor,read >out 2>err
check $? -eq 0 "collect (module) java JStates $ms"
sed 's/^/# /' out err
check "$(grep -c '^backend = module' j.er/log.txt)" -eq 1 "recorded by the module"
tid=$("$LWPROF" dump j.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list j.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
check -n "$thr" "the main thread ($tid)"
"$LWPROF" print -thread_select "$thr" -printmode csv -metrics $java_metrics -functions j.er >f.csv 2>/dev/null
java_cpu_check j.er out "$thr" 'JStates.cpu()' cpu
java_block_check f.csv out 'java.lang.Thread.sleep()' i lock sleep
java_block_check f.csv out 'JStates.monitor()' e lock monitor
# the pipe's read under read() (the JVM reads its own files too)
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.read()")' -printmode csv \
	-metrics $java_metrics -functions j.er >r.csv 2>/dev/null
java_block_check r.csv out 'java.io.FileInputStream.readBytes()' i sleep read
# what failed, kept for a look (tests/out is the host's)
[ "$t_failed" = 0 ] || { rm -rf "$LWPROF_OUT/java_mstate"; mkdir -p "$LWPROF_OUT/java_mstate" &&
	cp -r j.er out "$LWPROF_OUT/java_mstate/"; }
cd / && rm -rf "$work"
done_testing
