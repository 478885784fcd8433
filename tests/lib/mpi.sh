# SPDX-License-Identifier: GPL-2.0
# For the MPI tests (docs/guide/mpi.md); source after test.sh.
#
# mpi_impls: the MPI implementations this build has (the wrapper
# library and the test programs built with its mpicc): openmpi mpich.
# mpi_need: impls set to mpi_impls', or skip the test when there are none.
# mpi_launch IMPL NP: the launcher's command for NP ranks on this
# machine (as root, Open MPI wants --allow-run-as-root; more ranks than
# CPUs, --oversubscribe), printed one word a line for mapfile.
# mpi_prog IMPL NAME: a test program's path.
# mpi_recv_sources EXP TAG [FUNC]: the "source:bytes" of the receives
# completed by the FUNC calls (default MPI_Recv) of tag TAG in experiment
# EXP (lwprof dump's), sorted, on one line.
# mpi_check_funcs WHAT OUT STATS: each "truth func NAME CALLS SENDS
# SBYTES RECVS RBYTES" line of a program's output OUT against the row
# NAME of -mpi_stats' csv STATS: one check each, WHAT naming the run.
# mpi_csv_row CSV NAME COL: the COL-th field of the row named NAME (first
# field) of lwprof print's csv.
# mpi_rank_rows STATS: the rank table of -mpi_stats' csv STATS (it
# follows the function table), its rows alone.
# mpi_near GOT_S WANT_NS: true if |got - want| <= 2% of want + 50 us,
# got in seconds and want in ns.
# mpi_check_near WHAT ROWS ROW COL WANT_NS: one check that field COL of
# row ROW of the csv ROWS is near WANT_NS, WHAT naming it.

mpi_impls() {
	local i
	for i in openmpi mpich; do
		[ -e "$LWPROF_BUILD/liblwprof_mpi_$i.so" ] &&
			[ -x "$LWPROF_BUILD/tests/progs/mpi/$i/mpi_truth" ] && echo "$i"
	done
}

mpi_need() {
	impls=$(mpi_impls)
	[ -n "$impls" ] ||
		skip "no MPI implementation built (openmpi-bin libopenmpi-dev, mpich libmpich-dev)"
}

mpi_launch() {
	case $1 in
	openmpi)
		printf '%s\n' mpirun.openmpi --allow-run-as-root --oversubscribe \
			--mca btl self,vader -np "$2" ;;
	mpich)
		printf '%s\n' mpiexec.hydra -n "$2" ;;
	esac
}

mpi_prog() {
	echo "$LWPROF_BUILD/tests/progs/mpi/$1/$2"
}

mpi_csv_row() {
	awk -F, -v row="$2" -v col="$3" '$1 == row { print $col; exit }' <<<"$1"
}

mpi_recv_sources() {
	"$LWPROF" dump "$1" 2>/dev/null |
		awk -v tag="$2" -v fn="MPI ${3:-MPI_Recv} " 'index($0, fn) && index($0, " rtag=" tag " ") {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^src=/) s = substr($i, 5)
				if ($i ~ /^rbytes=/) b = substr($i, 8)
			}
			print s ":" b }' | sort | tr '\n' ' '
}

mpi_check_funcs() {
	local what=$1 out=$2 stats=$3 f calls sends sbytes recvs rbytes got c

	while read -r _ _ f calls sends sbytes recvs rbytes; do
		got=""
		for c in 2 7 8 9 10; do got="$got $(mpi_csv_row "$stats" "$f" $c)"; done
		check "$got" = " $calls $sends $sbytes $recvs $rbytes" \
			"$what: $f: $calls calls, $sends sends of $sbytes bytes, $recvs receives of $rbytes bytes"
	done < <(grep '^truth func ' <<<"$out")
}

mpi_rank_rows() {
	awk -F, '/^Rank,/ { on = 1; next } on && $1 ~ /^[0-9]+$/' <<<"$1"
}

mpi_near() {
	awk -v g="$1" -v w="$2" 'BEGIN { d = g * 1e9 - w; if (d < 0) d = -d;
		exit !(d <= 0.02 * w + 50000) }'
}

mpi_check_near() {
	local got

	got=$(mpi_csv_row "$2" "$3" "$4")
	mpi_near "$got" "$5"
	check $? -eq 0 "$1 $got s, timed $5 ns"
}
