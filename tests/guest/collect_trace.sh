#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tracing beside the module's clock profiling (docs/design/tracing.md):
# collect -s on -H on records tests/progs/trace_sync with both; the
# experiment has the module's cpu.N.rec files and the library's trace
# file (and no task or mapping records of its own: the module's say it),
# print shows both kinds of metric, and -statistics puts the traced Sync
# Wait Time beside User Lock time, as Oracle's collector does.  A traced wait is spent
# blocked on a futex (User Lock) or, once woken, waiting for a CPU (Wait
# CPU): precise User Lock plus Wait CPU hold at least 90% of it.  At the
# mutex waiter (a 300 ms wait), the clock's sampled User Lock and Wait CPU
# and the traced wait agree within 30 ms (three 10 ms ticks), and
# -statistics shows that wait, the longest, as at least 90% User Lock in
# the clock packets taken during it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
work=$(mktemp -d /tmp/collect_trace.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -s on -H on -o t.er "$LWPROF_BUILD/tests/progs/trace_sync" >out 2>err
check $? -eq 0 "collect -s on -H on trace_sync (clock profiling on) ($(tail -n 1 err))"
check "$(ls t.er | grep -c '^cpu\.[0-9]*\.rec$')" -ge 1 "the module's cpu.N.rec files"
check "$(ls t.er | grep -c '^trace\.[0-9]*\.rec$')" -eq 1 "the library's trace file"
st=$("$LWPROF" print -statistics t.er 2>/dev/null)
line=$(grep -A2 '^Sync wait tracing' <<<"$st")
echo "$line"
sync=$(sed -n 's/.*Sync Wait Time \([0-9.]*\) s$/\1/p' <<<"$line")
lock=$(sed -n 's/^  User Lock Time: \([0-9.]*\) s precise.*/\1/p' <<<"$line")
check -n "$lock" "-statistics: precise User Lock beside the traced waits"
wcpu=$(grep -A12 '^Process ' <<<"$st" | sed -n 's/^ *Wait CPU *\([0-9.]*\) .*/\1/p' | head -n 1)
check "$(awk -v l="${lock:-0}" -v w="${wcpu:-0}" -v s="${sync:-1}" 'BEGIN { print (l + w >= 0.9 * s) }')" = 1 \
	"User Lock ${lock}s + Wait CPU ${wcpu}s hold the traced Sync Wait Time ${sync}s"
check "$("$LWPROF" dump t.er 2>/dev/null | grep -c 'trace\.[0-9]*\.rec+[0-9]*: \(TASK\|MMAP\)')" -eq 0 \
	"no TASK or MMAP records in the trace file"
top=$(grep -A1 'The longest traced waits' <<<"$st" | tail -n 1)
echo "$top"
check "$(awk '{ d = $1; for (i = 1; i < NF; i++) if ($i == "Lock") l = $(i + 1);
	print ($0 ~ /pthread_mutex_lock/ && l >= 0.9 * d) }' <<<"$top")" = 1 \
	"-statistics: the longest wait, the mutex's, is at least 90% User Lock"
csv=$("$LWPROF" print -printmode csv -metrics i.lock:i.wait:i.sync:name -functions t.er 2>&1)
head -n 12 <<<"$csv"
l=$(awk -F, '$NF == "mutex_waiter" { print $1 + $2 }' <<<"$csv")
s=$(awk -F, '$NF == "mutex_waiter" { print $3 }' <<<"$csv")
check "$(awk -v l="${l:-0}" -v s="${s:-9}" 'BEGIN { d = l - s; print (d <= 0.03 && d >= -0.03) }')" = 1 \
	"mutex_waiter: sampled User Lock + Wait CPU ${l}s, traced wait ${s}s"
done_testing
