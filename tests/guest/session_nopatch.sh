#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sessions never patch kernel text.  Registering a
# tracepoint, an ftrace hook or a kprobe, or flipping a static key, writes
# live kernel code through text_poke(), with an int3 on the site and an
# IPI to every CPU; done for every session, that hung guests.  lwprof.ko
# does it at load and unload only.  The function tracer counts the calls
# of text_poke() and text_poke_bp_batch() while sessions of every kind
# open and close (clock profiling, attach, ptime, the whole machine, a
# SIGKILLed recorder), and for two seconds after the last one (the old
# module unregistered its probes one second after the last session).
# The control: unloading the module does patch, and the tracer sees it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

tr=/sys/kernel/tracing
[ -r $tr/trace ] || mount -t tracefs nodev $tr 2>/dev/null
[ -w $tr/set_ftrace_filter ] || skip "no function tracer (tracefs)"
grep -qx text_poke_bp_batch $tr/available_filter_functions ||
	skip "text_poke_bp_batch is not traceable here"
load_lwprof
progs=$LWPROF_BUILD/tests/progs
work=$(mktemp -d /tmp/session_nopatch.XXXXXX) || exit 1
cd "$work" || exit 1

# The ring buffer's switch as found, put back at exit (tests/run fails a
# test that leaves tracefs changed).
was_on=$(cat $tr/tracing_on)
tracer_off() {
	echo nop >$tr/current_tracer
	echo >$tr/set_ftrace_filter
	echo "$was_on" >$tr/tracing_on
}
trap 'r=$?; tracer_off; (exit $r); unload_lwprof' EXIT

# pokes: text_poke calls in the trace since it was last cleared.
pokes() {
	grep -c -E 'text_poke(_bp_batch)?[^_a-z]' $tr/trace
}

printf 'text_poke\ntext_poke_bp_batch\n' >$tr/set_ftrace_filter
echo function >$tr/current_tracer
# Whatever another test left: with tracing_on 0 the tracer would record
# nothing and every count be 0
echo 1 >$tr/tracing_on
echo >$tr/trace
sleep 0.5
n=$(pokes)
check "$n" -eq 0 "no text patched with the module loaded and no session ($n)"

"$LWPROF" ptime true 2>/dev/null
check $? -eq 0 "ptime true"
"$LWPROF" collect -o a.er -p 1ms "$progs/spin" 0.3 >/dev/null 2>&1
check $? -eq 0 "collect -p 1ms spin"
"$progs/spin" 5 >/dev/null & sp=$!
"$LWPROF" collect -o b.er -P $sp -t 0.3 >/dev/null 2>&1
check $? -eq 0 "collect -P"
kill $sp; wait $sp 2>/dev/null
"$LWPROF" top -b -n 1 -d 0.2 >/dev/null 2>&1
check $? -eq 0 "top (a whole-machine session)"
"$LWPROF" collect -o c.er -p 1ms "$progs/spin" 3 >/dev/null 2>&1 & rec=$!
sleep 0.5
kill -9 $rec; wait $rec 2>/dev/null
pkill -f "$progs/spin"
sleep 2
n=$(pokes)
check "$n" -eq 0 "no text patched while sessions opened and closed ($n text_poke calls)"
grep -m 5 -E 'text_poke' $tr/trace

echo >$tr/trace
err=$(rmmod lwprof 2>&1)
check $? -eq 0 "control: rmmod lwprof ($err$(lsmod | grep -w '^lwprof'))"
n=$(pokes)
check "$n" -gt 0 "control: unloading the module patches text, and the tracer sees it ($n)"
done_testing
