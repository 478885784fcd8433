#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Nonblocking collectives (docs/guide/mpi.md), two and four ranks under
# each MPI implementation built: tests/progs/mpi/mpi_icoll times its
# entries into MPI_Ibarrier, MPI_Iallreduce and MPI_Ialltoall and the
# waits and tests that complete them, and prints each rank's Wait at
# Barrier and Wait at NxN from those times, the calls of each function,
# and which requests each completing function completed.  -mpi_stats
# must show each function's exact calls (no sends nor receives: a
# collective's bytes are not point-to-point), each rank's Wait at
# Barrier and at NxN within 2% + 50 us of the program's, charged to the
# calls that completed the requests; lwprof dump must show each request
# completed by the call the program completed it with, named by the
# function that made it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

mpi_need

# "CALL KIND..." for each call of a rank's experiment that completed
# requests: the kinds of the MPI_REQ records written before it, sorted
completions() {
	"$LWPROF" dump "$1" 2>/dev/null | awk '
		/ MPI_REQ / { for (i = 1; i <= NF; i++) if ($i ~ /^kind=/) k = k " " substr($i, 6); next }
		/ MPI MPI_/ { if (k != "") print $3 k; k = "" }' | sort -u
}

for impl in $impls; do
	for np in 2 4; do
		exp=$PRINT_OUT/$impl.$np.er
		mapfile -t launch < <(mpi_launch "$impl" "$np")
		out=$("$LWPROF" collect -M on -p off -o "$exp" "${launch[@]}" -- \
			"$(mpi_prog "$impl" mpi_icoll)" 2>"$PRINT_OUT/$impl.$np.err")
		rc=$?
		check $rc -eq 0 "$impl, $np ranks: collect -M on ... -- mpi_icoll"
		if [ $rc -ne 0 ]; then
			tail -5 "$PRINT_OUT/$impl.$np.err"
			continue
		fi
		stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
		mpi_check_funcs "$impl, $np ranks" "$out" "$stats"
		ranks=$(mpi_rank_rows "$stats")
		while read -r _ _ r _ wait _ nxn; do
			mpi_check_near "$impl, $np ranks: rank $r Wait at Barrier (MPI_Ibarrier)" \
				"$ranks" "$r" 12 "$wait"
			mpi_check_near "$impl, $np ranks: rank $r Wait at NxN (MPI_Iallreduce, MPI_Ialltoall)" \
				"$ranks" "$r" 13 "$nxn"
		done < <(grep '^truth rank ' <<<"$out")
		# the waits carry it, not the calls that started the collectives
		check "$(mpi_csv_row "$stats" MPI_Ibarrier 12),$(mpi_csv_row "$stats" MPI_Iallreduce 13)" = \
			"0.000000,0.000000" "$impl, $np ranks: the nonblocking calls themselves waited for nothing"
		want=$(grep '^truth requests ' <<<"$out" | cut -d' ' -f3- | sort)
		for ((r = 0; r < np; r++)); do
			check "$(completions "$exp/M_r$r.er")" = "$want" \
				"$impl, $np ranks: rank $r: each request completed by its wait, named by its call"
		done
	done
done
done_testing
