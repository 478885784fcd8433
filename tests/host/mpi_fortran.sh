#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MPI's Fortran bindings (docs/guide/mpi.md): tests/progs/mpi/mpi_fortran
# (mpif90, the mpi module; mpi_fortran_f08, the same with mpi_f08) calls
# MPI_Send, MPI_Recv with MPI_ANY_SOURCE (a status, and
# MPI_STATUS_IGNORE), MPI_Isend, MPI_Irecv, MPI_Waitall, three
# collectives, a persistent send, MPI_Comm_split and MPI_Comm_free,
# MPI_Ibarrier and its MPI_Wait, MPI_Scan, MPI_Waitany and MPI_Probe
# from Fortran, under Open MPI
# (whose Fortran bindings call its PMPI functions) and MPICH (whose call
# its C MPI functions); it prints what it called.  Each function's calls,
# sends, bytes sent, receives and bytes received must be exactly the
# program's, once (not twice through both bindings), rank 0's receives
# must name their real senders, and each rank's MPI_Wait must have
# completed its MPI_Ibarrier.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

progs=$(for i in $(mpi_impls); do for p in mpi_fortran mpi_fortran_f08; do
	[ -x "$(mpi_prog "$i" $p)" ] && echo "$i/$p"; done; done)
[ -n "$progs" ] || skip "no MPI Fortran test program built (gfortran, mpif90)"
np=3
for ip in $progs; do
	impl=${ip%/*} prog=${ip#*/}
	exp=$PRINT_OUT/$impl.$prog.er
	mapfile -t launch < <(mpi_launch "$impl" $np)
	out=$("$LWPROF" collect -M on -p off -o "$exp" "${launch[@]}" -- \
		"$(mpi_prog "$impl" "$prog")" 2>"$PRINT_OUT/$impl.$prog.err")
	check $? -eq 0 "$impl: collect -M on ... -- $prog"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
	check "$(grep -c '^truth func ' <<<"$out")" -eq 18 "$impl: $prog: eighteen functions' truth"
	mpi_check_funcs "$impl: $prog" "$out" "$stats"
	got=$(mpi_recv_sources "$exp/M_r0.er" 7)
	check "$got" = "1:16 2:32 " "$impl: $prog: rank 0's MPI_ANY_SOURCE receives name ranks 1 and 2 with their bytes"
	got=$(for ((r = 0; r < np; r++)); do "$LWPROF" dump "$exp/M_r$r.er" 2>/dev/null |
		awk '/ MPI_REQ .*kind=MPI_Ibarrier/ { k = 1; next }
		     / MPI MPI_Wait / && k { n++ } { k = 0 } END { print n + 0 }'; done | tr '\n' ' ')
	check "$got" = "1 1 1 " "$impl: $prog: each rank's MPI_Wait completed its MPI_Ibarrier"
done
done_testing
