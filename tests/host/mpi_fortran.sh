#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MPI's Fortran bindings (docs/guide/mpi.md): tests/progs/mpi/mpi_fortran
# (mpif90) calls MPI_Send, MPI_Recv with MPI_ANY_SOURCE (a status, and
# MPI_STATUS_IGNORE), MPI_Isend, MPI_Irecv, MPI_Waitall and three
# collectives from Fortran, under Open MPI (whose Fortran bindings call
# its PMPI functions) and MPICH (whose call its C MPI functions); it
# prints what it called.  Each function's calls, sends, bytes sent,
# receives and bytes received must be exactly the program's, once (not
# twice through both bindings), and rank 0's receives must name their
# real senders.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

impls=$(for i in $(mpi_impls); do
	[ -x "$(mpi_prog "$i" mpi_fortran)" ] && echo "$i"; done)
[ -n "$impls" ] || skip "no MPI Fortran test program built (gfortran, mpif90)"
np=3
for impl in $impls; do
	exp=$PRINT_OUT/$impl.er
	mapfile -t launch < <(mpi_launch "$impl" $np)
	out=$("$LWPROF" collect -M on -p off -o "$exp" "${launch[@]}" -- \
		"$(mpi_prog "$impl" mpi_fortran)" 2>"$PRINT_OUT/$impl.err")
	check $? -eq 0 "$impl: collect -M on ... -- mpi_fortran"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
	check "$(grep -c '^truth func ' <<<"$out")" -eq 8 "$impl: eight functions' truth"
	mpi_check_funcs "$impl: Fortran" "$out" "$stats"
	got=$(mpi_recv_sources "$exp/M_r0.er" 7)
	check "$got" = "1:16 2:32 " "$impl: rank 0's MPI_ANY_SOURCE receives name ranks 1 and 2 with their bytes"
done
done_testing
