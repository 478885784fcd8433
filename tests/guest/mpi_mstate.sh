#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MPI time split by the module's microstates (docs/guide/mpi.md): four
# MPICH ranks on the guest's two CPUs, three of them waiting 400 ms in
# MPI_Recv for rank 0, which sleeps first (tests/progs/mpi/mpi_spin).
# MPICH waits by polling, so the three waiting ranks share two CPUs:
# their MPI_Recv time must be split into Spinning (on a CPU) and Wait
# CPU (runnable, not running), each a real part of it (a tenth at
# least: a third is Wait CPU when the three share two CPUs evenly), and
# the split must add up to the calls' time, which the library reads
# from the module at the call's two ends; the calls lie inside the
# waits the program timed around them.  The same program on the perf
# backend (host/mpi_truth) says the split is absent.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/mpi.sh"

command -v mpiexec.hydra >/dev/null &&
	[ -x "$(mpi_prog mpich mpi_spin)" ] || skip "MPICH or its test programs not built"
load_lwprof
need_sampling
feat=$("$LWPROF" version | sed -n 's/.*features 0x\([0-9a-f]*\)).*/\1/p' | tail -n 1)
[ $((0x${feat:-0} & 0x100)) -ne 0 ] || skip "the module has no LWPROF_FEAT_USTATE"
work=$(mktemp -d /tmp/mpi_mstate.XXXXXX) || exit 1
cd "$work" || exit 1
mapfile -t launch < <(mpi_launch mpich 4)
"$LWPROF" collect -M MPICH -o m.er "${launch[@]}" -- "$(mpi_prog mpich mpi_spin)" \
	>out 2>err
check $? -eq 0 "collect -M MPICH of 4 ranks ($(tail -n 1 err))"
check "$(grep -c '^truth recv' out)" -eq 3 "three ranks timed their MPI_Recv"
csv=$("$LWPROF" print -printmode csv -mpi_stats m.er 2>/dev/null)
row=$(mpi_csv_row "$csv" MPI_Recv 1)
check "$row" = MPI_Recv "-mpi_stats has MPI_Recv"
read -r calls t spin blocked wcpu < <(awk -F, '$1 == "MPI_Recv" {
	print $2, $3, $14, $15, $16; exit }' <<<"$csv")
timed=$(awk '/^truth recv/ { s += $4 } END { print s }' out)
echo "# MPI_Recv: $calls calls, $t s: spinning $spin, blocked $blocked, wait cpu $wcpu; timed $timed ns"
check "$calls" -eq 3 "three MPI_Recv calls"
check "$spin,$blocked,$wcpu" != absent,absent,absent "the split is there (the module kept it)"
awk -v t="$t" -v s="$spin" -v b="$blocked" -v w="$wcpu" \
	'BEGIN { d = s + b + w - t; if (d < 0) d = -d; exit !(t > 0 && d <= 0.01 * t + 0.000100) }'
check $? -eq 0 "the split adds up to the calls' time (1% + 100 us)"
awk -v t="$t" -v w="$wcpu" 'BEGIN { exit !(w + 0 >= 0.1 * t) }'
check $? -eq 0 "Wait CPU is a tenth of it at least"
awk -v t="$t" -v s="$spin" 'BEGIN { exit !(s + 0 >= 0.1 * t) }'
check $? -eq 0 "Spinning is a tenth of it at least"
awk -v t="$t" -v timed="$timed" 'BEGIN { exit !(t * 1e9 <= timed && t * 1e9 >= 0.5 * timed) }'
check $? -eq 0 "the calls lie inside the waits the ranks timed"
cd / && rm -rf "$work"
done_testing
