#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenMP Wait split by the module's microstates (docs/guide/openmp.md):
# tests/progs/omp/imbal (thread 1 works twice as long as thread 0 each
# round, so thread 0 waits at the barrier), recorded by the module with
# the OMPT tool, whose waits carry the microstates read at their ends.
# At <OMP-explicit_barrier>, the ten ompwait_* metrics sum to ompwait
# (each wait's microstates sum to its time), and the wait is spent the
# way the runtime waits:
#  - OMP_WAIT_POLICY=active: spinning, never asleep; User CPU the most of
#    it, at least 40%: with the recorder's threads beside the team the
#    two vCPUs are oversubscribed at times, and libomp's spinner then
#    yields (System CPU) and waits for a CPU;
#  - passive: asleep in the kernel, at least 50% User Lock or Sleep;
#    libomp polls a thousand times before it sleeps (milliseconds under
#    TCG);
#  - active with both threads on one CPU: the waiter spins and yields to
#    the worker it waits for, in Wait CPU as long as the worker runs, and
#    never asleep.  The scheduler is fair to the spinner, which yields
#    but keeps its share: about half its wait is Wait CPU (at least 25% is
#    asked), the rest User and System CPU.
# The host's stalls of the vCPU stretch whatever state the thread is in.
# Rounds of 50 ms (thread 0 waits 200 ms in all); 100 ms when passive,
# as the polls take some 25 ms a wait under TCG; 20 ms on one CPU.  The
# three experiments are read by one print (a view of each, by EXPID):
# under TCG the analyzer's start and the objects' symbols take seconds.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
feat=$("$LWPROF" version | sed -n 's/.*features 0x\([0-9a-f]*\)).*/\1/p' | tail -n 1)
[ $((0x${feat:-0} & 0x100)) -ne 0 ] || skip "the module has no LWPROF_FEAT_USTATE"
prog=$LWPROF_BUILD/tests/progs/omp/imbal
[ -x "$prog" ] || skip "no OpenMP test program (make builds it with clang and libomp)"
command -v taskset >/dev/null || skip "no taskset"
work=$(mktemp -d /tmp/omp_mstate.XXXXXX) || exit 1
cd "$work" || exit 1

ms="user system trap textpfault datapfault kernelpfault lock sleep stop wait"
names=(active passive oversubscribed)

# rec NAME UNIT_MS ENV...: collect 4 rounds of imbal into NAME.er
rec() {
	local name=$1 unit=$2

	shift 2
	env OMP_NUM_THREADS=2 "$@" "$LWPROF" collect -o "$name.er" "$prog" 4 "$unit" \
		>"$name.out" 2>"$name.err"
	check $? -eq 0 "$name: collect ($(tail -n 1 "$name.err"))"
}

# split: each experiment's "ompwait user ... wait" (ms) at the barrier
# into NAME.split, from one print with a view of each (its header line
# starts each view's rows)
split() {
	local m=e.ompwait s views=() i

	for s in $ms; do
		m=$m:e.ompwait_$s
	done
	for i in "${!names[@]}"; do
		views+=(-filters "EXPID == $((i + 1))" -functions)
		: >"${names[i]}.split"
	done
	"$LWPROF" print -printmode csv -metrics "$m:name" "${views[@]}" \
		"${names[@]/%/.er}" 2>/dev/null | awk -F, -v names="${names[*]}" '
		BEGIN { split(names, n, " ") }
		$NF == "Name" { v++ }
		$NF == "<OMP-explicit_barrier>" && v {
			for (i = 1; i < NF; i++)
				printf "%.0f ", $i * 1000 >(n[v] ".split")
			print "" >(n[v] ".split") }'
}

# check_split NAME UNIT_MS MIN% MOSTLY...: at least MIN% of the
# barrier's wait in the microstates MOSTLY
check_split() {
	local name=$1 unit=$2 min=$3 want=() v w sum=0 part=0 i

	shift 3
	want=("$@")
	v=($(cat "$name.split"))
	echo "# $name: ompwait ${v[0]} ms; $(paste -d= <(tr ' ' '\n' <<<"$ms") \
		<(printf '%s\n' "${v[@]:1}") | tr '\n' ' ')"
	check "${v[0]:-0}" -ge $((3 * unit)) "$name: thread 0 waited at the barrier (${v[0]:-0} ms)"
	i=1
	for s in $ms; do
		sum=$((sum + ${v[i]:-0}))
		for w in "${want[@]}"; do
			[ "$w" = "$s" ] && part=$((part + ${v[i]:-0}))
		done
		i=$((i + 1))
	done
	check "$sum" -ge $((${v[0]:-0} - 10)) "$name: the microstates sum to the wait ($sum ms of ${v[0]:-0}, print rounds each)"
	check "$sum" -le $((${v[0]:-0} + 10)) "$name: ... and no more"
	check $((part * 100)) -ge $((${v[0]:-0} * min)) "$name: ${want[*]} hold $part ms of ${v[0]:-0} (at least $min%)"
}

# asleep NAME: no more than 5% of its wait in User Lock or Sleep
asleep() {
	local v=($(cat "$1.split"))

	check "$((${v[7]:-0} + ${v[8]:-0}))" -le $((${v[0]:-0} / 20 + 2)) \
		"$1: not asleep (User Lock + Sleep ${v[7]:-0} + ${v[8]:-0} ms of ${v[0]:-0})"
}

rec active 50 OMP_WAIT_POLICY=active
rec passive 100 OMP_WAIT_POLICY=passive
rec oversubscribed 20 OMP_WAIT_POLICY=active taskset -c 0
split
check_split active 50 40 user
asleep active
v=($(cat active.split))
for i in 2 3 4 5 6 9 10; do
	check "${v[1]:-0}" -ge "${v[i]:-0}" "active: User CPU is the most of the wait (${v[1]:-0} ms, another ${v[i]:-0})"
done
check_split passive 100 50 lock sleep
check_split oversubscribed 20 25 wait
asleep oversubscribed
done_testing
