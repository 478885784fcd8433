#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof.ko patches kernel text only when its first session starts and its
# last one ends.  With no session open nothing of lwprof's is in the
# kernel; the first session attaches the tracepoint probes, the ftrace
# hooks and the mmap kprobe (text_poke_bp_batch() patches their sites);
# more sessions, and sessions ending while another is open, change
# nothing; the last session's end detaches everything.  The function
# tracer counts the calls of text_poke_bp_batch() and of the tracepoint
# (un)registration functions, and enabled_functions shows the ftrace
# hooks, at each step: loading, the first session (held by
# tests/progs/ms_hold), sessions of every kind while it is open (ptime,
# ptime -p, collect with clock packets, a SIGKILLed recorder; clock
# packets flip their hooks' static key, which patches, but attaches
# nothing: the tracepoints and enabled_functions say so), its end, a
# SIGKILLed recorder as the last session, unloading.  With resident=1 the probes attach at load and
# detach at unload, and no session patches.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

tr=/sys/kernel/tracing
[ -r $tr/trace ] || mount -t tracefs nodev $tr 2>/dev/null
[ -w $tr/set_ftrace_filter ] || skip "no function tracer (tracefs)"
grep -qx text_poke_bp_batch $tr/available_filter_functions ||
	skip "text_poke_bp_batch is not traceable here"
[ "$(id -u)" = 0 ] || skip "needs root (insmod)"
grep -q '^lwprof ' /proc/modules && rmmod lwprof
progs=$LWPROF_BUILD/tests/progs
work=$(mktemp -d /tmp/session_nopatch.XXXXXX) || exit 1
cd "$work" || exit 1

# The ring buffer's switch and size as found, put back at exit (tests/run
# fails a test that leaves tracefs changed).  A step's trace must keep
# every call (the first session alone is over 150): 6.1 sizes the top
# buffer only at its first use, and a tracefs instance made by an earlier
# test marks it sized, at a page per CPU (about 200 events), so it gets
# 1408 KiB per CPU here if it has less.
was_on=$(cat $tr/tracing_on)
was_kb=$(awk '{ print $1; exit }' $tr/buffer_size_kb)
[ "${was_kb:-0}" -ge 1408 ] 2>/dev/null || echo 1408 >$tr/buffer_size_kb
tracer_off() {
	echo nop >$tr/current_tracer
	echo >$tr/set_ftrace_filter
	[ "$(awk '{ print $1; exit }' $tr/buffer_size_kb)" = "$was_kb" ] ||
		echo "$was_kb" >$tr/buffer_size_kb
	echo "$was_on" >$tr/tracing_on
}
trap 'r=$?; tracer_off; release_session; (exit $r); unload_lwprof' EXIT

# count FUNCTION: its calls in the trace since it was last cleared.
count() {
	grep -c -E " $1 <-" $tr/trace
}

# step NAME POKES REGS UNREGS: the trace since the last step shows POKES
# text_poke_bp_batch() calls (">0" for some) and REGS and UNREGS tracepoint
# probe (un)registrations; then clear it.
step() {
	local name=$1 n p r u

	sleep 0.3	# a recorder's end: its file released
	# "# entries-in-buffer/entries-written: 174/174   #P:2"
	n=$(awk '/entries-in-buffer\/entries-written:/ { print $3; exit }' $tr/trace)
	check "${n%/*}" = "${n#*/}" "$name: the trace kept every call ($n)"
	p=$(count text_poke_bp_batch)
	r=$(count tracepoint_probe_register)
	u=$(count tracepoint_probe_unregister)
	if [ "$2" = ">0" ]; then
		check "$p" -gt 0 "$name: kernel text patched ($p text_poke_bp_batch calls)"
	elif [ "$2" = any ]; then
		echo "# $name: $p text_poke_bp_batch calls"
	else
		check "$p" -eq "$2" "$name: no kernel text patched ($p text_poke_bp_batch calls)"
	fi
	check "$r/$u" = "$3/$4" "$name: $3 tracepoint probes registered, $4 unregistered (got $r/$u)"
	echo >$tr/trace
}

# hooks: the functions that call into lwprof through ftrace.
hooks() {
	awk '/^[^ \t]/ { fn = $1 } /lwprof/ { print fn }' $tr/enabled_functions |
		sort -u | tr '\n' ' '
}

printf 'text_poke_bp_batch\ntracepoint_probe_register\ntracepoint_probe_unregister\n' \
	>$tr/set_ftrace_filter
echo function >$tr/current_tracer
# Whatever another test left: with tracing_on 0 the tracer would record
# nothing and every count be 0.
echo 1 >$tr/tracing_on
echo >$tr/trace

# Loading patches the module's own static calls (as for any module), and
# attaches nothing.
insmod "$LWPROF_KO" || { echo "FAIL: insmod"; exit 1; }
step "load" any 0 0
check -z "$(hooks)" "loaded, no session: no ftrace hook of lwprof's ($(hooks))"

hold_session
ntp=$(count tracepoint_probe_register)
step "the first session" ">0" "$ntp" 0
check "$ntp" -gt 20 "the first session registers lwprof's tracepoint probes ($ntp)"
check -n "$(hooks)" "the first session: ftrace hooks on $(hooks)"
first_hooks=$(hooks)

"$LWPROF" ptime true 2>/dev/null
check $? -eq 0 "ptime true, a second session"
"$progs/spin" 0.5 >/dev/null & sp=$!
"$LWPROF" ptime -p $sp 2>/dev/null
check $? -eq 0 "ptime -p, attached to a running process"
wait $sp 2>/dev/null
step "sessions while the first is open" 0 0 0
"$LWPROF" collect -o a.er -p 1ms "$progs/spin" 0.3 >/dev/null 2>&1
check $? -eq 0 "collect -p 1ms: clock packets"
"$LWPROF" collect -o c.er -p 1ms "$progs/spin" 3 >/dev/null 2>&1 & rec=$!
sleep 1
kill -9 $rec; wait $rec 2>/dev/null
pkill -f "$progs/spin"
step "sessions with clock packets (their hooks' static key)" ">0" 0 0
check "$(hooks)" = "$first_hooks" "the same ftrace hooks while the first session is open"

release_session
step "the last session's end" ">0" 0 "$ntp"
check -z "$(hooks)" "the last session's end: no ftrace hook left ($(hooks))"

"$LWPROF" collect -o d.er -p 1ms "$progs/spin" 3 >/dev/null 2>&1 & rec=$!
sleep 1
check -n "$(hooks)" "a recorder's session: ftrace hooks on"
kill -9 $rec; wait $rec 2>/dev/null
pkill -f "$progs/spin"
step "a session from start to its recorder's SIGKILL" ">0" "$ntp" "$ntp"
check -z "$(hooks)" "the SIGKILLed recorder's end: no ftrace hook left ($(hooks))"

err=$(rmmod_lwprof 2>&1)
check $? -eq 0 "rmmod lwprof ($err$(lsmod | grep -w '^lwprof'))"
step "unload" 0 0 0

insmod "$LWPROF_KO" resident=1 || { echo "FAIL: insmod resident=1"; exit 1; }
step "load, resident: everything attaches" ">0" "$ntp" 0
check -n "$(hooks)" "resident: ftrace hooks on from load"
"$LWPROF" ptime true 2>/dev/null
check $? -eq 0 "resident: ptime true"
"$LWPROF" collect -o e.er -p 1ms "$progs/spin" 0.3 >/dev/null 2>&1
check $? -eq 0 "resident: collect -p 1ms"
step "resident: sessions, clock packets among them" 0 0 0
rmmod_lwprof
check $? -eq 0 "rmmod lwprof, resident"
step "unload, resident" ">0" 0 "$ntp"
check -z "$(hooks)" "resident, unloaded: no ftrace hook left ($(hooks))"
done_testing
