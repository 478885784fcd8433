#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/lib/schedtrace.sh leaves tracefs as it found it: from settings
# that are not the defaults (tracing_on 0, trace_clock global, a filter on
# sched_switch, sched_wakeup enabled, another buffer size), st_start and
# st_stop put back every one, and the scheduler trace between them still
# holds the traced task's switch into its sleep.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

[ "$(id -u)" = 0 ] || skip "needs root (tracefs)"
[ -r $st_dir/trace ] || mount -t tracefs nodev $st_dir 2>/dev/null
[ -w $st_dir/trace ] || skip "no tracefs at $st_dir"
work=$(mktemp -d /tmp/tracefs_restore.XXXXXX) || exit 1

# settings: the files this test sets and expects back, as tracefs shows
# them, one per line.
settings() {
	local f v

	for f in tracing_on trace_clock buffer_size_kb \
		events/sched/sched_switch/filter events/sched/sched_switch/enable \
		events/sched/sched_wakeup/filter events/sched/sched_wakeup/enable; do
		IFS= read -r v <$st_dir/$f
		echo "$f: $v"
	done
}

# What this test found, put back at its end.
st_save
found=$st_saved
trap 'st_saved=$found; st_restore; rm -rf "$work"' EXIT
echo 0 >$st_dir/tracing_on
echo global >$st_dir/trace_clock
echo 2048 >$st_dir/buffer_size_kb
echo 'prev_pid == 1' >$st_dir/events/sched/sched_switch/filter
echo 1 >$st_dir/events/sched/sched_wakeup/enable
before=$(settings)
echo "$before" | sed 's/^/# /'
check "$(grep -c 'tracing_on: 0\|trace_clock: .*\[global\]\|prev_pid == 1' <<<"$before")" -eq 3 \
	"the unusual settings are in place"

# A task named tr_restore (its comm is the name it was run by) that sleeps.
ln -s "$(command -v sleep)" "$work/tr_restore"
st_start tr_restore
"$work/tr_restore" 0.2
st_stop "$work/sched.trace"
check "$(settings)" = "$before" "st_stop put back every setting st_start found"
n=$(grep -c 'sched_switch: prev_comm=tr_restore .*prev_state=S' "$work/sched.trace")
check "$n" -ge 1 "the trace between them holds the task's switch into its sleep ($n)"
done_testing
