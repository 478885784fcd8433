#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Counters obey perf's policy (docs/design/security.md): the module makes them
# with perf_event_create_kernel_counter(), which skips perf_event_open()'s
# checks, so it applies them itself.  At kernel.perf_event_paranoid 3
# (Debian's default: no perf for users) uid 65534's collect -h is refused
# as perf stat is refused to it, and root's is not; at 2 both work for
# uid 65534.  lwprof's own clock samples follow the module parameter
# user_access instead (2: as before).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_counters
knob=/proc/sys/kernel/perf_event_paranoid
orig=$(cat $knob)
restore() { local r=$?; echo "$orig" >$knob; (exit $r); unload_lwprof; }
trap restore EXIT
perf=$(command -v perf) || perf=

# counted WHO: collect -h page-faults as WHO ("nobody" or ""); 0 if it ran.
counted() {
	$1 "$LWPROF" collect -p off -h page-faults,100 -o "c$RANDOM.er" \
		"$progs/spin" 0.2 >/dev/null 2>err.txt
}
# perf_counts WHO: 0 if perf stat -e page-faults runs for WHO.
perf_counts() {
	$1 "$perf" stat -e page-faults true >/dev/null 2>&1
}

echo 3 >$knob
counted nobody
rc=$?
check $rc -eq 1 "paranoid 3: uid 65534's collect -h is refused ($(cat err.txt))"
grep -q "perf_event_paranoid" err.txt
check $? -eq 0 "  and the message names perf_event_paranoid"
if [ -n "$perf" ]; then
	perf_counts nobody
	check $? -ne 0 "  as perf stat is refused to uid 65534"
fi
counted ""
check $? -eq 0 "paranoid 3: root's collect -h runs ($(cat err.txt))"
nobody "$LWPROF" collect -p 1ms -o clock.er "$progs/spin" 0.2 >/dev/null 2>err.txt
check $? -eq 0 "paranoid 3: uid 65534's clock profiling (lwprof's own) runs ($(cat err.txt))"

echo 2 >$knob
counted nobody
check $? -eq 0 "paranoid 2: uid 65534's collect -h runs ($(cat err.txt))"
if [ -n "$perf" ]; then
	perf_counts nobody
	check $? -eq 0 "  as perf stat does"
fi
collect_done
