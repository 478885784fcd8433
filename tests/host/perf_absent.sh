#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the perf backend cannot measure is shown as absent, never as 0, and
# said: without the module (auto picks perf and says why), log.txt and
# print -header name the backend and list the ten microstates as exact,
# approximate or absent; -overview and every metric column show the
# absent ones as "absent".  As an ordinary user at perf_event_paranoid 2
# (no kernel samples) System CPU and User Lock are absent too, and the
# refusals (-K, -a, -P of another user's process) name the setting or
# the right that is missing and leave no experiment behind.  dump reads
# the experiment, and -statistics shows its sampled totals alone.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
work=$(mktemp -d /tmp/perf_absent.XXXXXX) || exit 1
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" collect -o auto.er "$ms_progs/ms_lock" 2>&1 >/dev/null)
check $? -eq 0 "no module: collect (auto) records"
grep -q "recording with the perf backend" <<<"$err"
check $? -eq 0 "and says it records with the perf backend, and why"
check "$(grep -c '^backend = perf$' auto.er/log.txt)" -eq 1 "log.txt: backend = perf"
check "$(grep -c '^metric = ' auto.er/log.txt)" -eq 10 "log.txt: ten metric lines"
h=$("$LWPROF" print -header auto.er 2>&1)
echo "$h" | sed 's/^/# /'
grep -q "^  Backend: *perf" <<<"$h"
check $? -eq 0 "-header names the backend"
check "$(grep -Ec '^  Metric: .* (exact|approximate|absent):' <<<"$h")" -eq 10 "-header: each microstate exact, approximate or absent"
for m in "Trap CPU" "Text Page Fault" "Data Page Fault" "Kernel Page Fault" "Stopped"; do
	grep -Eq "^  Metric: +$m +absent:" <<<"$h"
	check $? -eq 0 "-header: $m absent"
done
"$LWPROF" dump auto.er >auto.dump 2>auto.derr
check "$?/$(cat auto.derr)" = "0/" "dump reads it (no usage.txt is no error for this backend)"
check "$(grep -c ': SAMPLE ' auto.dump)" -gt 0 "  its samples"
st=$("$LWPROF" print -statistics auto.er 2>&1)
grep -q '^No precise totals: the perf backend keeps none' <<<"$st"
check $? -eq 0 "-statistics: no precise totals, said"
check "$(grep -cE '(^| )0\.000000( |$)' <<<"$st")" -eq 0 "  no Precise column of 0.000000"
o=$("$LWPROF" print -overview auto.er 2>&1)
echo "$o" | sed 's/^/# /'
for m in "Trap CPU Time" "Text Page Fault Time" "Stopped Time"; do
	grep -Eq "^ +$m +absent" <<<"$o"
	check $? -eq 0 "-overview: $m absent"
done
grep -Eq "(Trap CPU|Page Fault|Stopped) Time +0\.000" <<<"$o"
check $? -ne 0 "-overview: no absent metric as 0.000"
f=$("$LWPROF" print -printmode csv -metrics e.trap:e.%textpfault:e.user:name -functions auto.er 2>/dev/null)
echo "$f" | head -4 | sed 's/^/# /'
rows=$(tail -n +2 <<<"$f" | wc -l)
check "$(tail -n +2 <<<"$f" | grep -c '^absent,absent,absent,[0-9.]*,')" -eq "$rows" "-functions: trap and textpfault absent in all $rows rows, user a number"
grep -Eq "^ +[*] +User Lock Time +[0-9.]+ sec" <<<"$o"
check $? -eq 0 "root: User Lock measured (kernel stacks at switch-out)"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] || [ "$paranoid" -ne 2 ] || ! command -v setpriv >/dev/null; then
	echo "# the ordinary user's part needs root, setpriv and perf_event_paranoid 2 (it is $paranoid)"
	done_testing
fi
user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"
}
chmod 777 "$work"
user "$LWPROF" collect --backend perf -o user.er "$ms_progs/ms_lock" >/dev/null 2>user.err
check $? -eq 0 "nobody at paranoid 2: collect --backend perf records"
h=$(user "$LWPROF" print -header -overview user.er 2>&1)
echo "$h" | sed 's/^/# /'
for m in "System CPU" "User Lock"; do
	grep -Eq "^  Metric: +$m +absent:" <<<"$h"
	check $? -eq 0 "nobody: -header: $m absent"
	grep -Eq "^ +$m Time +absent" <<<"$h"
	check $? -eq 0 "nobody: -overview: $m Time absent"
done
grep -q "perf_event_paranoid is 2: no kernel samples" <<<"$h"
check $? -eq 0 "nobody: a warning says why, and what gives them"
refused() {	# refused OPTS WANT: collect OPTS fails, naming WANT
	local err rc

	# shellcheck disable=SC2086
	err=$(user "$LWPROF" collect --backend perf $1 -o refused.er 2>&1)
	rc=$?
	echo "# $1: $err"
	check "$rc" -eq 1 "nobody: $1 refused (exit 1)"
	grep -q "$2" <<<"$err"
	check $? -eq 0 "nobody: $1: the message names $2"
	check ! -e refused.er "nobody: $1 left no experiment"
}
refused "-K true" "perf_event_paranoid at 1 or below"
refused "-a -t 1" "perf_event_paranoid at 0 or below"
refused "-P 1 -t 1" "ptrace rights"
done_testing
