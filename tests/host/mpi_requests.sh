#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every way a request completes (docs/guide/mpi.md), three ranks under each
# MPI implementation built: tests/progs/mpi/mpi_requests completes
# receives by MPI_Waitany, MPI_Waitsome, MPI_Test and MPI_Testall loops
# (counting their calls), runs persistent sends and receives (MPI_Start,
# MPI_Startall, MPI_Wait, MPI_Waitall), MPI_Sendrecv and MPI_Probe, and
# prints what each function did.  Each function's calls, sends, bytes
# sent, receives and bytes received must be exactly the program's: a
# receive counted at the call that completed it, a persistent send at
# each start.  The messages of an MPI_Startall to two peers must each be
# in -mpi_matrix, and every message of the run matched with its receive
# (the perfetto export's flows).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

mpi_need
for impl in $impls; do
	exp=$PRINT_OUT/$impl.er
	mapfile -t launch < <(mpi_launch "$impl" 3)
	out=$("$LWPROF" collect -M on -p off -o "$exp" "${launch[@]}" -- \
		"$(mpi_prog "$impl" mpi_requests)" 2>"$PRINT_OUT/$impl.err")
	check $? -eq 0 "$impl: collect -M on ... -- mpi_requests"
	check "$(grep -c '^truth func ' <<<"$out")" -eq 14 "$impl: fourteen functions' truth"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
	mpi_check_funcs "$impl" "$out" "$stats"
	mat=$("$LWPROF" print -printmode csv -mpi_matrix "$exp" 2>/dev/null)
	while read -r _ _ s d bytes msgs; do
		got=$(awk -F, -v s="$s" -v c=$((d + 2)) '$1 == s { print $c }' <<<"$mat" | tr '\n' ' ')
		check "$got" = "$bytes $msgs " "$impl: -mpi_matrix: rank $s sent rank $d $bytes bytes in $msgs messages"
	done < <(grep '^truth matrix ' <<<"$out")
	msgs=$(awk '$2 == "messages" { print $3 }' <<<"$out")
	"$LWPROF" export perfetto -o "$exp.pftrace" "$exp" 2>/dev/null &&
		protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto \
			<"$exp.pftrace" >"$exp.pftrace.txt" 2>/dev/null
	check $? -eq 0 "$impl: export perfetto, decoded"
	check "$(grep -c 'terminating_flow_ids: ' "$exp.pftrace.txt")" = "$msgs" \
		"$impl: perfetto: the $msgs messages matched, each a flow to its receive"
done
done_testing
