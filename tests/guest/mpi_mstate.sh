#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MPI time split by the module's microstates (docs/guide/mpi.md): four
# ranks on the guest's two CPUs, under MPICH and Open MPI
# (--oversubscribe, as root --allow-run-as-root), three of them waiting
# 400 ms in MPI_Recv for rank 0, which sleeps first
# (tests/progs/mpi/mpi_spin).  Both wait by polling (Open MPI, more
# ranks than CPUs, yielding its CPU between polls), so the three waiting
# ranks share two CPUs: their MPI_Recv time must be split into Spinning
# (on a CPU) and Wait CPU (runnable, not running), each a real part of it
# (a tenth at least: a third is Wait CPU when the three share two CPUs
# evenly), and the split must add up to the calls' time, which the
# library reads from the module at the call's two ends; the calls lie
# inside the waits the program timed around them.  The same program on
# the perf backend (host/mpi_truth) says the split is absent.  Open
# MPI's launcher serves its ranks (PMIx) over TCP, which wants a network
# interface up: the guest's loopback, down at boot, is brought up for it
# and down again after.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/mpi.sh"

impls=$(for i in $(mpi_impls); do
	[ -x "$(mpi_prog "$i" mpi_spin)" ] && command -v "$(mpi_launch "$i" 1 | head -n 1)" >/dev/null &&
		echo "$i"; done)
[ -n "$impls" ] || skip "no MPI implementation or its test programs built"
load_lwprof
need_sampling
feat=$("$LWPROF" version | sed -n 's/.*features 0x\([0-9a-f]*\)).*/\1/p' | tail -n 1)
[ $((0x${feat:-0} & 0x100)) -ne 0 ] || skip "the module has no LWPROF_FEAT_USTATE"
work=$(mktemp -d /tmp/mpi_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
lo_up= lo_addr= ip=$(PATH=$PATH:/usr/sbin:/sbin command -v ip)
echo "# loopback before: $("${ip:-false}" -o link show lo 2>&1 | cut -d' ' -f2-3)"
if grep -qx openmpi <<<"$impls" && [ -n "$ip" ]; then
	if ! "$ip" -o link show up | grep -q ' lo:'; then
		"$ip" link set lo up && lo_up=1
	fi
	if ! "$ip" -o -4 addr show lo | grep -q 127.0.0.1; then
		"$ip" addr add 127.0.0.1/8 dev lo && lo_addr=1
	fi
fi
echo "# loopback: $("${ip:-false}" -o addr show lo 2>&1 | tr -s ' ' | cut -d' ' -f2-4 | tr '\n' ' ')"
for impl in $impls; do
	mapfile -t launch < <(mpi_launch "$impl" 4)
	"$LWPROF" collect -M "${impl^^}" -o "$impl.er" "${launch[@]}" -- "$(mpi_prog "$impl" mpi_spin)" \
		>"$impl.out" 2>"$impl.err"
	rc=$?
	check $rc -eq 0 "$impl: collect -M ${impl^^}, 4 ranks ($(tail -n 1 "$impl.err"))"
	[ $rc -eq 0 ] || { tail -n 20 "$impl.err"; continue; }
	check "$(grep -c '^truth recv' "$impl.out")" -eq 3 "$impl: three ranks timed their MPI_Recv"
	csv=$("$LWPROF" print -printmode csv -mpi_stats "$impl.er" 2>/dev/null)
	read -r calls t spin blocked wcpu < <(awk -F, '$1 == "MPI_Recv" {
		print $2, $3, $14, $15, $16; exit }' <<<"$csv")
	timed=$(awk '/^truth recv/ { s += $4 } END { print s }' "$impl.out")
	echo "# $impl: MPI_Recv: $calls calls, $t s: spinning $spin, blocked $blocked, wait cpu $wcpu; timed $timed ns"
	check "${calls:-0}" -eq 3 "$impl: three MPI_Recv calls"
	check "$spin,$blocked,$wcpu" != absent,absent,absent "$impl: the split is there (the module kept it)"
	awk -v t="$t" -v s="$spin" -v b="$blocked" -v w="$wcpu" \
		'BEGIN { d = s + b + w - t; if (d < 0) d = -d; exit !(t > 0 && d <= 0.01 * t + 0.000100) }'
	check $? -eq 0 "$impl: the split adds up to the calls' time (1% + 100 us)"
	awk -v t="$t" -v w="$wcpu" 'BEGIN { exit !(w + 0 >= 0.1 * t) }'
	check $? -eq 0 "$impl: Wait CPU is a tenth of it at least"
	awk -v t="$t" -v s="$spin" 'BEGIN { exit !(s + 0 >= 0.1 * t) }'
	check $? -eq 0 "$impl: Spinning is a tenth of it at least"
	awk -v t="$t" -v timed="$timed" 'BEGIN { exit !(t * 1e9 <= timed && t * 1e9 >= 0.5 * timed) }'
	check $? -eq 0 "$impl: the calls lie inside the waits the ranks timed"
done
[ -z "$lo_addr" ] || "$ip" addr del 127.0.0.1/8 dev lo
[ -z "$lo_up" ] || "$ip" link set lo down
cd / && rm -rf "$work"
done_testing
