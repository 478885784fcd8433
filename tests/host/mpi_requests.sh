#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every way a request completes (docs/guide/mpi.md), two ranks under each
# MPI implementation built: tests/progs/mpi/mpi_requests completes
# receives by MPI_Waitany, MPI_Waitsome, MPI_Test and MPI_Testall loops
# (counting their calls), runs persistent sends and receives (MPI_Start,
# MPI_Startall, MPI_Wait, MPI_Waitall), MPI_Sendrecv and MPI_Probe, and
# prints what each function did.  Each function's calls, sends, bytes
# sent, receives and bytes received must be exactly the program's: a
# receive counted at the call that completed it, a persistent send at
# each start.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

mpi_need
for impl in $impls; do
	exp=$PRINT_OUT/$impl.er
	mapfile -t launch < <(mpi_launch "$impl" 2)
	out=$("$LWPROF" collect -M on -p off -o "$exp" "${launch[@]}" -- \
		"$(mpi_prog "$impl" mpi_requests)" 2>"$PRINT_OUT/$impl.err")
	check $? -eq 0 "$impl: collect -M on ... -- mpi_requests"
	check "$(grep -c '^truth func ' <<<"$out")" -eq 14 "$impl: fourteen functions' truth"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
	mpi_check_funcs "$impl" "$out" "$stats"
done
done_testing
