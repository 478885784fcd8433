#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where threads block, through collect -a -K and print:
# tests/progs/kblock's threads block 1 s each, at once: "napper" in
# nanosleep(), "piper" in read() of an empty pipe, "futexer" in
# FUTEX_WAIT; each prints its blocking call's wall time.  In the functions
# view of that thread, the call's time is on the kernel function that
# blocked (the scheduler's frames folded): Sleep on do_nanosleep and on
# pipe_read, User Lock on futex_wait* (futex_wait_queue in 6.1); at
# least 95% of the wall time (the rest: the wake-up's Wait CPU and the
# call's own CPU) and no more than all of it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
need_kprof
work=$(mktemp -d /tmp/collect_kblock.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -a -K -o b.er "$LWPROF_BUILD/tests/progs/kblock" 1000 >out 2>collect.err
check $? -eq 0 "collect -a -K kblock 1000"
cat out
tl=$("$LWPROF" print -thread_list b.er)
kb=(napper:sleep:do_nanosleep piper:sleep:pipe_read futexer:lock:futex_wait)
if module_gap "no allocation in probes"; then
	# No kernel stack where off-CPU time began on this kernel (lwprof
	# version says so, PREEMPT_RT): the time is the blocking call's.
	echo "# the module keeps no kernel frames where threads block here"
	kb=(napper:sleep:clock_nanosleep piper:sleep:read futexer:lock:syscall)
fi
for t in "${kb[@]}"; do
	IFS=: read -r name metric fn <<<"$t"
	n=$(awk -v t="$name" '$5 == t { print $1 }' <<<"$tl")
	check -n "$n" "thread $name in -thread_list"
	[ -n "$n" ] || continue
	wall=$(awk -v t="$name" '$1 == t { printf "%.3f", $2 / 1e9 }' out)
	f=$("$LWPROF" print -printmode csv -metrics e.$metric:name -thread_select "$n" -functions b.er)
	got=$(awk -F, -v f="$fn" '$2 == f || (f == "futex_wait" && $2 ~ /^futex_wait/) { s += $1 } END { printf "%.3f", s }' <<<"$f")
	top=$(awk -F, 'NR > 1 && $2 != "<Total>" { print $2; exit }' <<<"$f")
	echo "# $name: blocked $wall s, $metric on $fn $got s; first: $top"
	awk -v g="$got" -v w="$wall" 'BEGIN { exit !(g >= 0.95 * w && g <= w + 0.0005) }'
	check $? -eq 0 "$name: $metric $got s on $fn, of its call's $wall s"
	case $top in "$fn"*) r=0 ;; *) r=1 ;; esac
	check $r -eq 0 "$name: $fn heads the thread's $metric ($top)"
done
if [ "${kb[1]}" = piper:sleep:pipe_read ]; then
	c=$("$LWPROF" print -csingle pipe_read b.er)
	grep -q 'vfs_read' <<<"$c"
	check $? -eq 0 "callers-callees: vfs_read calls pipe_read"
fi
rm -rf "$LWPROF_OUT/collect_kblock.er"; cp -r b.er "$LWPROF_OUT/collect_kblock.er" 2>/dev/null
cd / && rm -rf "$work"
done_testing
