#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Java with the module: every Java sample carries its thread's exact
# microstate, so a Java method's time splits into User CPU, System CPU,
# User Lock, Sleep and Wait CPU as the kernel counted it.  The truth is
# the workload's own (tests/progs/java/JStates, phases in methods of their
# own, timed by the program), in user mode: the CPU spin's CPU time
# within 3% of ThreadMXBean's; Thread.sleep(), the contended monitor and
# LockSupport.parkNanos() User Lock and FileInputStream.readBytes() on a
# pipe Sleep, each the phase's time off CPU within 2%, all of it that
# state but the Wait CPU after the wake-up.  Short phases: a JVM under
# TCG is slow.  The spin holds under a loaded TCG, where the agent's
# CPU-time timer fires late and merged, because a sample in compiled
# code is named by its own pc.  The allocation loop is checked on the
# host (tests/host/java_views.sh) only: under TCG most of its CPU is
# the JVM's allocation path zeroing memory, where AsyncGetCallTrace
# cannot walk the stack (the thread is in the VM) and the native stack
# does not always reach a compiled frame that names the method (a run
# gave the phase 554 of its 625 ms).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
load_lwprof
need_sampling
work=$(mktemp -d /tmp/java_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
ms=600
"$LWPROF" collect -o j.er java -cp "$java_progs" JStates $ms cpu,sleep,monitor,park,read >out 2>err
check $? -eq 0 "collect (module) java JStates $ms cpu,sleep,monitor,park,read"
sed 's/^/# /' out err
check "$(grep -c '^backend = module' j.er/log.txt)" -eq 1 "recorded by the module"
tid=$("$LWPROF" dump j.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list j.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
check -n "$thr" "the main thread ($tid)"
"$LWPROF" print -thread_select "$thr" -printmode csv -metrics $java_metrics -functions j.er >f.csv 2>/dev/null
java_cpu_check j.er out "$thr" 'JStates.cpu()' cpu
java_block_check f.csv out 'java.lang.Thread.sleep()' i lock sleep
java_block_check f.csv out 'JStates.monitor()' e lock monitor
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.park()")' -printmode csv \
	-metrics $java_metrics -functions j.er >p.csv 2>/dev/null
java_block_check p.csv out 'jdk.internal.misc.Unsafe.park()' i lock park
# the pipe's read under read() (the JVM reads its own files too)
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.read()")' -printmode csv \
	-metrics $java_metrics -functions j.er >r.csv 2>/dev/null
java_block_check r.csv out 'java.io.FileInputStream.readBytes()' i sleep read
# what failed, kept for a look (tests/out is the host's)
[ "$t_failed" = 0 ] || { rm -rf "$LWPROF_OUT/java_mstate"; mkdir -p "$LWPROF_OUT/java_mstate" &&
	cp -r j.er out "$LWPROF_OUT/java_mstate/"; }
cd / && rm -rf "$work"
done_testing
