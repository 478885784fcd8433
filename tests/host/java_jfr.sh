#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof's Java methods against JFR's: JHot (tests/progs/java) spends its
# main thread in six methods of known weight, inlined into main's loop,
# for 6 s of its CPU time, and runs under lwprof collect -p 1ms with JFR's execution sampler at
# 1 ms in the same JVM, so both see the same compiled code.  Each of the
# top ten methods of either (the leaf's share of the main thread's
# samples under JHot.main()) is within 3 points of JFR's
# jdk.ExecutionSample, and the six are the top six of both.  Samples in
# native code called from compiled code without a transition (the clock
# read of System.nanoTime) are main()'s for lwprof and not sampled by
# JFR: JHot reads its clock seldom.  With some 6000 samples a side, 3
# points are more than three standard deviations of the difference.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/java.sh"

java_need
command -v jfr >/dev/null 2>&1 || skip "no jfr (openjdk-17-jdk-headless)"
pb_need
work=$(mktemp -d /tmp/java_jfr.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$LWPROF" collect --backend perf -p 1ms -o h.er java \
	-XX:StartFlightRecording:filename=h.jfr,jdk.ExecutionSample#period=1ms \
	-cp "$java_progs" JHot 6 1 >out 2>err
check $? -eq 0 "collect java JHot"
sed 's/^/# /' out err | grep -v 'Started recording\|Use jcmd'

# JFR: the main thread's samples whose bottom frame is JHot.main()
jfr print --stack-depth 64 --events jdk.ExecutionSample h.jfr | awk '
	/^jdk.ExecutionSample/ { thr = ""; want = 0; top = "" }
	/sampledThread = / { thr = $3 }
	/stackTrace = \[/ { want = thr == "\"main\""; next }
	want && /^ *\]/ { if (last == "JHot.main") { c[top]++; n++ } want = 0 }
	want { m = $1; sub(/\(.*/, "", m); if (top == "") top = m; last = m }
	END { for (k in c) printf "%.2f %s %d\n", 100 * c[k] / n, k, n }' |
	sort -rn >jfr.top
tid=$("$LWPROF" dump h.er | grep -m1 'JTHREAD.* name="main"' | sed 's/.* tid=\([0-9]*\).*/\1/')
thr=$("$LWPROF" print -thread_list h.er 2>/dev/null | awk -v t="$tid" '$4 == t { print $1 }')
check -n "$thr" "the main thread ($tid) in -thread_list"
"$LWPROF" print -thread_select "$thr" -filters 'inStack("JHot.main()")' -printmode csv \
	-metrics e.totalcpu:name -functions h.er 2>/dev/null | awk -F, '
	NR > 2 && $2 != "<Total>" { m = $2; sub(/\(.*/, "", m); v[m] += $1; t += $1; n++ }
	END { for (k in v) printf "%.2f %s %d\n", 100 * v[k] / t, k, t * 1000 }' |
	sort -rn >lw.top
paste <(head -10 jfr.top) <(head -10 lw.top) | sed 's/^/# jfr lwprof: /'
check "$(head -1 jfr.top | cut -d' ' -f3)" -ge 4000 "JFR took 4000 samples or more"
check "$(head -1 lw.top | cut -d' ' -f3)" -ge 4000 "lwprof took 4000 samples (ms) or more"
want="JHot.alpha JHot.beta JHot.delta JHot.epsilon JHot.gamma JHot.zeta"
check "$(head -6 jfr.top | cut -d' ' -f2 | sort | tr '\n' ' ')" = "$want " "JFR's top six: JHot's six"
check "$(head -6 lw.top | cut -d' ' -f2 | sort | tr '\n' ' ')" = "$want " "lwprof's top six: JHot's six"
for m in $( (head -10 jfr.top; head -10 lw.top) | cut -d' ' -f2 | sort -u); do
	a=$(awk -v m="$m" '$2 == m { print $1 }' jfr.top)
	b=$(awk -v m="$m" '$2 == m { print $1 }' lw.top)
	check "$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { d = a - b; print (d < 0 ? -d : d) <= 3 }')" = 1 \
		"$m: lwprof ${b:-0}%, JFR ${a:-0}% (within 3 points)"
done
done_testing
