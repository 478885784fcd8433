#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load/unload churn with sessions open and closing (the reliability
# battery).  First the sequence that hung guests: short
# collects, one by uid 65534 with -K, a collect of a 64-thread program.
# Then CYCLES rounds of: insmod; one to three sessions at once (collect -p
# 1ms of a target that forks 64-thread children, also traced with -s all
# -H on, whose every thread claims a microstate slot; of a spinner,
# attached with -P; ptime); SIGKILL to a random choice of recorders at a random
# moment; rmmod.  Asserts: every insmod and rmmod succeeds; a recorder
# that was not killed exits 0 and its experiment reads back (dump); a
# killed one's experiment does not crash the reader; once every session
# is gone the module holds no ring memory (/proc/vmallocinfo), no thread
# entry (its slab cache, when not merged), no ftrace hook and no module
# reference (tests/lib/session.sh, lwprof_leftovers).  The runner fails the
# test on any splat; vm-run's watchdog options end a hung guest.
#
# LWPROF_STRESS_CYCLES (default 8) and LWPROF_STRESS_SEED (default: random,
# printed) size and replay it; LWPROF_STRESS_RELOAD=N reloads the module
# every N cycles only (default 1; 0: load it once), to churn sessions on
# one load.  A line "cycle C/N: ..." after each cycle says how far it
# got (scripts/stress shows them as they come).  scripts/stress runs it
# long.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

[ "$(id -u)" = 0 ] || skip "needs root (insmod)"
cycles=${LWPROF_STRESS_CYCLES:-8}
reload=${LWPROF_STRESS_RELOAD:-1}
seed=${LWPROF_STRESS_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "# seed $seed, $cycles cycles"
RANDOM=$seed
progs=$LWPROF_BUILD/tests/progs
work=$(mktemp -d /tmp/stress_churn.XXXXXX) || exit 1
chmod 777 "$work"
cd "$work" || exit 1
grep -q '^lwprof ' /proc/modules && rmmod lwprof
trap 'kill $(jobs -p) 2>/dev/null; pkill -9 -f "$progs/" 2>/dev/null; wait' EXIT

# session KIND EXP SPINNER: one recorder, exec'd so that its pid is the
# recorder's own (the one SIGKILL is for).
session() {
	case $1 in
	0) exec "$LWPROF" collect -o "$2" -p 1ms "$progs/churn_target" 3 64 ;;
	1) exec "$LWPROF" collect -o "$2" -p 1ms -m $((16 << RANDOM % 4)) "$progs/spin" 2 ;;
	2) exec "$LWPROF" collect -o "$2" -p 1ms -P "$3" -t 2 ;;
	3) exec "$LWPROF" ptime -m "$progs/churn_target" 2 16 ;;
	# traced: every thread claims a microstate slot (ABI 1.5)
	4) exec "$LWPROF" collect -o "$2" -p 1ms -s all -H on "$progs/churn_target" 3 64 ;;
	esac
}

# The sequence of the report.
insmod "$LWPROF_KO" || { echo "FAIL: insmod"; exit 1; }
for i in 1 2 3; do
	"$LWPROF" collect -o s$i.er -p 1ms "$progs/spin" 0.2 >/dev/null 2>&1
	check $? -eq 0 "short collect $i"
done
nobody "$LWPROF" collect -d "$work" -o u.er -m 64 -K "$progs/spin" 0.2 >/dev/null 2>&1
rc=$?
check $rc -le 1 "uid 65534 collect -K ends (exit $rc: refused or recorded)"
"$LWPROF" collect -o t64.er -p 1ms "$progs/nthreads" 64 100 >/dev/null 2>&1
check $? -eq 0 "collect of a 64-thread program"
rmmod_lwprof
check $? -eq 0 "rmmod after the sequence"

slab_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
slab0=$(slab_kb)
kills=0 sessions=0 clean=0 bad=0 attached=0 objs=none loads=0
for c in $(seq "$cycles"); do
	if ! grep -q '^lwprof ' /proc/modules && ! insmod "$LWPROF_KO"; then
		check 1 -eq 0 "cycle $c: insmod"
		break
	fi
	"$progs/spin" 30 >/dev/null & spinner=$!
	n=$((RANDOM % 3 + 1))
	pids=() names=()
	for s in $(seq $n); do
		e=c$c.$s.er kind=$((RANDOM % 5))
		# One session only may account the spinner.
		[ $kind = 2 ] && [ "$attached" = $c ] && kind=1
		[ $kind = 2 ] && attached=$c
		[ $kind = 3 ] && e=""
		session $kind "$e" "$spinner" >/dev/null 2>"$work/err.$c.$((s - 1))" &
		pids+=($!) names+=("$e")
	done
	sessions=$((sessions + n))
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	reap_recorders pids
	for i in "${!pids[@]}"; do
		[ "${pids[$i]}" = killed ] && continue
		rc=${pids[$i]}
		if [ "$rc" != 0 ]; then
			bad=$((bad + 1))
			echo "FAIL: cycle $c session $i exit $rc: $(cat "$work/err.$c.$i" 2>/dev/null)"
			continue
		fi
		[ -n "${names[$i]}" ] || continue
		if "$LWPROF" dump "${names[$i]}" >/dev/null 2>"$work/dump.err"; then
			clean=$((clean + 1))
		else
			bad=$((bad + 1))
			echo "FAIL: cycle $c: ${names[$i]} does not read back: $(head -n 3 "$work/dump.err")"
		fi
	done
	kill -9 "$spinner" 2>/dev/null
	pkill -9 -f "$progs/" 2>/dev/null
	wait
	# A killed recorder's experiment: the reader may refuse it, not crash.
	for e in c$c.*.er; do
		[ -d "$e" ] || continue
		"$LWPROF" dump "$e" >/dev/null 2>&1
		rc=$?
		[ $rc -lt 128 ] || { bad=$((bad + 1)); echo "FAIL: dump $e died (exit $rc)"; }
	done
	rm -rf c$c.*.er
	left=$(lwprof_leftovers "cycle $c")
	[ -z "$left" ] || { bad=$((bad + $(wc -l <<<"$left"))); sed 's/^/FAIL: /' <<<"$left"; }
	objs=$(lwprof_thread_objs)
	echo "cycle $c/$cycles: $n sessions; so far $kills killed," \
		"$bad problems, ${SECONDS} s, SUnreclaim $(slab_kb) kB"
	if [ "$reload" -gt 0 ] && [ $((c % reload)) = 0 ] || [ "$c" = "$cycles" ]; then
		if ! rmmod_lwprof; then
			check 1 -eq 0 "cycle $c: rmmod"
			break
		fi
		loads=$((loads + 1))
	fi
done
slab1=$(slab_kb)
echo "# $cycles cycles, $loads loads, $sessions sessions, $kills recorders killed, $clean experiments read back; SUnreclaim ${slab0} kB -> ${slab1} kB; thread entries left after the last cycle's sessions: $objs"
check "$bad" -eq 0 "every surviving session exited 0 and read back; nothing left after the sessions ($bad problems)"
check "$c" -eq "$cycles" "all $cycles cycles done"
done_testing
