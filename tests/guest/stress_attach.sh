#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sessions that start and end at once, from many processes (the
# reliability battery): lwprof.ko attaches its probes when the first
# session starts and detaches them when the last one ends, so every round
# here races attaching against detaching.  CYCLES rounds of: NPROC
# recorders started together (ptime of a short program or of a process
# that forks threads, collect with clock packets, a bare session held
# open), a random choice of them SIGKILLed at a random moment, the others
# ending on their own.  With LWPROF_STRESS_HOTPLUG=1, CPU 1 goes offline
# and online all along, so CPUs come and go while the probes attach and
# detach.  After each round, every session gone: nothing of lwprof's in
# enabled_functions (the ftrace hooks detached), no thread entry (its
# slab cache, after a shrink) and no vmalloc area of the module's, the
# module's use count 0; recorders not killed exit 0.  At the end a
# session still accounts a thread exactly (its ten states sum to its
# real time) and the module unloads.  The runner fails the test on any
# splat; the guest's watchdog panics it on a soft lockup, an RCU stall or
# a hung task.
#
# LWPROF_STRESS_CYCLES (default 6), LWPROF_STRESS_NPROC (default 8),
# LWPROF_STRESS_SEED (default: random, printed).  A line "cycle C/N: ..."
# after each round says how far it got.  scripts/stress runs it
# long (parts attach and hotattach).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

cycles=${LWPROF_STRESS_CYCLES:-6}
nproc=${LWPROF_STRESS_NPROC:-8}
hotplug=${LWPROF_STRESS_HOTPLUG:-0}
seed=${LWPROF_STRESS_SEED:-$((RANDOM * 32768 + RANDOM))}
cpu1=/sys/devices/system/cpu/cpu1/online
if [ "$hotplug" = 1 ]; then
	[ -w $cpu1 ] || skip "CPU 1 cannot go offline here"
fi
echo "# seed $seed, $cycles cycles of $nproc recorders, hotplug $hotplug"
RANDOM=$seed
load_lwprof
progs=$LWPROF_BUILD/tests/progs
tr=/sys/kernel/tracing
[ -r $tr/enabled_functions ] || mount -t tracefs nodev $tr 2>/dev/null
work=$(mktemp -d /tmp/stress_attach.XXXXXX) || exit 1
cd "$work" || exit 1

toggler=
stop_toggler() {
	[ -n "$toggler" ] || return 0
	kill "$toggler" 2>/dev/null
	wait "$toggler" 2>/dev/null
	toggler=
	echo 1 >$cpu1
}
trap 'r=$?; stop_toggler; pkill -9 -f "$progs/" 2>/dev/null; (exit $r); unload_lwprof' EXIT

if [ "$hotplug" = 1 ]; then
	( while :; do echo 0 >$cpu1; sleep 0.$((RANDOM % 3)); echo 1 >$cpu1; sleep 0.$((RANDOM % 3)); done ) &
	toggler=$!
fi

# recorder KIND: one session, exec'd so that its pid is the recorder's (a
# held session ends by a SIGKILL, within half a second if not killed).
recorder() {
	case $1 in
	0) exec "$LWPROF" ptime true ;;
	1) exec "$LWPROF" ptime -m "$progs/nthreads" 4 20 ;;
	2) exec "$LWPROF" collect -o "c$2.er" -p 1ms "$progs/spin" 0.1 ;;
	3) exec timeout -s KILL 0.$((RANDOM % 5 + 1)) "$progs/ms_hold" ;;
	esac
}

slab_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
slab0=$(slab_kb)
bad=0 kills=0 sessions=0
for c in $(seq "$cycles"); do
	pids=() kinds=()
	for i in $(seq "$nproc"); do
		k=$((RANDOM % 4))
		recorder $k "$c.$i" >/dev/null 2>"err.$c.$i" &
		pids+=($!) kinds+=($k)
	done
	sessions=$((sessions + nproc))
	sleep "0.$((RANDOM % 5))"
	reap_recorders pids
	for i in "${!pids[@]}"; do
		case ${pids[$i]}/${kinds[$i]} in
		0/*|killed/*|137/3) ;;	# 137: a held session's time out
		*) bad=$((bad + 1))
		   echo "FAIL: cycle $c recorder $i (kind ${kinds[$i]}) exit ${pids[$i]}: $(head -n 2 "err.$c.$((i + 1))")" ;;
		esac
	done
	pkill -9 -f "$progs/" 2>/dev/null
	rm -rf c$c.*.er
	sleep 0.2	# the last file's release
	left=$(lwprof_leftovers "cycle $c")
	[ -z "$left" ] || { bad=$((bad + $(wc -l <<<"$left"))); sed 's/^/FAIL: /' <<<"$left"; }
	echo "cycle $c/$cycles: so far $kills killed, $bad problems," \
		"${SECONDS} s, SUnreclaim $(slab_kb) kB"
done
stop_toggler
slab1=$(slab_kb)
echo "# $cycles cycles, $sessions sessions, $kills recorders killed; SUnreclaim ${slab0} kB -> ${slab1} kB"
check "$bad" -eq 0 "every round: recorders not killed exit 0, then no hook, entry, ring or module reference left ($bad problems)"

# Still exact after all that: one thread's ten states sum to its real time.
out=$("$LWPROF" ptime -m -L "$progs/nthreads" 2 50 2>&1 >/dev/null)
check $? -eq 0 "ptime after the rounds"
rows=$(awk 'f && NF { n++ } /^ *PID / { f = 1 } END { print n + 0 }' <<<"$out")
check "$rows" -eq 3 "ptime after the rounds: 3 threads"
sums=$(awk 'f && NF { s = 0; for (i = 4; i <= 13; i++) s += $i
	d = s - $3; if (d < 0) d = -d; if (d > 1e-6) bad++ } /^ *PID / { f = 1 }
	END { print bad + 0 }' <<<"$out")
check "$sums" -eq 0 "ptime after the rounds: each thread's ten states sum to its real time"
done_testing
