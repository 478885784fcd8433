#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Java with the module: every Java sample carries its thread's exact
# microstate, so a Java method's time splits into User CPU, System CPU,
# User Lock, Sleep and Wait CPU as the kernel counted it.  The truth is
# the workload's own (tests/progs/java/JStates, phases in methods of their
# own, timed by the program): Thread.sleep() User Lock and
# FileInputStream.readBytes() on a pipe Sleep, each the phase's time off
# CPU within 2%, all of it that state but the Wait CPU after the wake-up,
# in user mode.  Short phases: a JVM under TCG is slow.  The CPU phases,
# the contended monitor and <no Java callstack recorded> are checked on
# the host (tests/host/java_views.sh): under a loaded TCG the guest's
# timer ticks come late and bunched, so the agent's CPU-time timer of a
# spinning thread expires several times per signal and stretches of 100
# ms of its CPU go without a Java stack, and a clock packet of tens of ms
# can span the short CPU between two waits.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
load_lwprof
need_sampling
work=$(mktemp -d /tmp/java_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
ms=1000
"$LWPROF" collect -o j.er java -cp "$java_progs" JStates $ms sleep,read >out 2>err
check $? -eq 0 "collect (module) java JStates $ms sleep,read"
sed 's/^/# /' out err
check "$(grep -c '^backend = module' j.er/log.txt)" -eq 1 "recorded by the module"
tid=$("$LWPROF" dump j.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list j.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
check -n "$thr" "the main thread ($tid)"
"$LWPROF" print -thread_select "$thr" -printmode csv -metrics $java_metrics -functions j.er >f.csv 2>/dev/null
java_block_check f.csv out 'java.lang.Thread.sleep()' i lock sleep
# the pipe's read under read() (the JVM reads its own files too)
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JStates.read()")' -printmode csv \
	-metrics $java_metrics -functions j.er >r.csv 2>/dev/null
java_block_check r.csv out 'java.io.FileInputStream.readBytes()' i sleep read
# what failed, kept for a look (tests/out is the host's)
[ "$t_failed" = 0 ] || { rm -rf "$LWPROF_OUT/java_mstate"; mkdir -p "$LWPROF_OUT/java_mstate" &&
	cp -r j.er out "$LWPROF_OUT/java_mstate/"; }
cd / && rm -rf "$work"
done_testing
