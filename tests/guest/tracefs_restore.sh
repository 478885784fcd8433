#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/lib/schedtrace.sh leaves tracefs as it found it: it traces in an
# instance of its own, which st_stop removes.  From global settings that
# are not the defaults (tracing_on 0, trace_clock global, a filter on
# sched_switch, sched_wakeup enabled, another buffer size), st_start and
# st_stop change none, leave no instance behind, and the scheduler trace
# between them holds the traced task's switch into its sleep.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

[ "$(id -u)" = 0 ] || skip "needs root (tracefs)"
[ -r $st_dir/trace ] || mount -t tracefs nodev $st_dir 2>/dev/null
[ -w $st_dir/trace ] || skip "no tracefs at $st_dir"
work=$(mktemp -d /tmp/tracefs_restore.XXXXXX) || exit 1
files="tracing_on trace_clock buffer_size_kb
	events/sched/sched_switch/filter events/sched/sched_switch/enable
	events/sched/sched_wakeup/filter events/sched/sched_wakeup/enable"

# tr_get FILE: a tracefs setting, in val, as it is written: the chosen
# word of a list ("local global [mono] ..."), the size buffer_size_kb
# grows to ("7 (expanded: 1408)"), the first character of an event's
# enable ("0*": soft-disabled), 0 for an event's filter "none".  Shell
# builtins only: a process costs a good part of a second in a loaded
# TCG guest.
tr_get() {
	IFS= read -r val <$st_dir/$1
	case $1 in
	trace_clock) val=${val#*\[} val=${val%%\]*} ;;
	buffer_size_kb)
		case $val in
		*expanded:*) val=${val##*expanded: } val=${val%)} ;;
		esac ;;
	*/enable) val=${val:0:1} ;;
	*/filter) [ "$val" != none ] || val=0 ;;
	esac
}

# What this test found, as "FILE VALUE" lines, put back at its end in the
# reverse order (tracing_on last); an unreadable value ("X": CPUs with
# buffers of different sizes) is left alone.
found=""
for f in $files; do
	tr_get $f
	found+="$f"$'\t'"$val"$'\n'
done
restore() {
	local lines i f v

	readarray -t lines <<<"${found%$'\n'}"
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		f=${lines[i]%%$'\t'*} v=${lines[i]#*$'\t'}
		tr_get "$f"
		[ "$v" = X ] || [ "$val" = "$v" ] || echo "$v" >$st_dir/$f
	done
	rm -rf "$work"
}
trap restore EXIT

# settings: the files this test sets and expects back, as tracefs shows
# them, one per line.
settings() {
	local f v

	for f in $files; do
		IFS= read -r v <$st_dir/$f
		echo "$f: $v"
	done
}

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
check "$(settings)" = "$before" "st_start and st_stop changed no global setting"
check ! -e $st_dir/instances/lwprof_st "st_stop removed its instance"
n=$(grep -c 'sched_switch: prev_comm=tr_restore .*prev_state=S' "$work/sched.trace")
check "$n" -ge 1 "the trace between them holds the task's switch into its sleep ($n)"
done_testing
