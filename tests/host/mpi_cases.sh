#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# collect -M's other cases (docs/guide/mpi.md), under each MPI
# implementation built: a program that links no MPI library is refused
# with the reason, as is one of the other implementation, and a
# launcher given without "--" is named; collect
# run by the launcher (mpirun ... lwprof collect -M on) writes one
# experiment per rank, which print reads together; a rank that calls
# MPI_Abort (tests/progs/mpi/mpi_abort: 5 barriers on every rank, then
# rank 1 aborts while the others wait for it) leaves every rank's
# records: the abort itself, and the others' barriers; dump of the
# founder shows its mpi.txt and every rank's experiment.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

mpi_need

for impl in $impls; do
	mapfile -t launch < <(mpi_launch "$impl" 2)
	# not an MPI program: refused before anything runs
	err=$("$LWPROF" collect -M on -o "$PRINT_OUT/no.er" "${launch[@]}" -- /bin/true 2>&1)
	rc=$?
	check $rc -eq 1 "$impl: -M with a program that is not MPI: exit 1"
	grep -q "/bin/true is not an MPI program" <<<"$err"
	check $? -eq 0 "$impl: ... says it is not an MPI program"
	check "$(ls -d "$PRINT_OUT/no.er" 2>/dev/null | wc -l)" -eq 0 "$impl: ... and makes no experiment"
	other=$([ "$impl" = openmpi ] && echo MPICH || echo OPENMPI)
	err=$("$LWPROF" collect -M "$other" -o "$PRINT_OUT/no.er" "${launch[@]}" -- "$(mpi_prog "$impl" mpi_abort)" 2>&1)
	check $? -eq 1 "$impl: -M $other with a program of $impl: exit 1"
	grep -q "links .*, not .*: give -M .* or -M on" <<<"$err"
	check $? -eq 0 "$impl: ... names the implementation it links"
	err=$("$LWPROF" collect -M on -o "$PRINT_OUT/no.er" "${launch[@]}" "$(mpi_prog "$impl" mpi_abort)" 2>&1)
	check $? -eq 1 "$impl: -M with a launcher but no '--': exit 1"
	grep -q "a launcher? give it as LAUNCHER ARGS -- PROG ARGS" <<<"$err"
	check $? -eq 0 "$impl: ... names the launcher's form"

	# the launcher runs collect: one experiment per rank, read together
	dir=$PRINT_OUT/$impl.each
	mkdir -p "$dir"
	(cd "$dir" && "${launch[@]}" "$LWPROF" collect -M on "$(mpi_prog "$impl" mpi_truth)" \
		>out.txt 2>err.txt)
	check $? -eq 0 "$impl: launcher ... lwprof collect -M on mpi_truth"
	exps=("$dir"/test.*.er)
	check ${#exps[@]} -eq 2 "$impl: ... two experiments, one per rank"
	list=$("$LWPROF" print -printmode csv -rank_list "${exps[@]}" 2>/dev/null)
	check "$(awk -F, 'NR > 1 { print $1 }' <<<"$list" | sort | tr '\n' ' ')" = "0 1 " \
		"$impl: -rank_list over both: ranks 0 and 1"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "${exps[@]}" 2>/dev/null)
	want=$(awk '$3 == "MPI_Isend" { print $4 }' "$dir/out.txt")
	check "$(mpi_csv_row "$stats" MPI_Isend 2)" = "$want" "$impl: print of both: MPI_Isend's $want calls"

	# a rank aborts
	exp=$PRINT_OUT/$impl.abort.er
	mapfile -t launch < <(mpi_launch "$impl" 3)
	"$LWPROF" collect -M on -o "$exp" "${launch[@]}" -- "$(mpi_prog "$impl" mpi_abort)" \
		>"$PRINT_OUT/$impl.abort.out" 2>&1
	check $? -ne 0 "$impl: a rank aborts: collect exits with the launcher's failure"
	grep -q '^exit: ' "$exp/mpi.txt"
	check $? -eq 0 "$impl: mpi.txt says how the run ended"
	stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
	check "$(mpi_csv_row "$stats" MPI_Abort 2)" = 1 "$impl: rank 1's MPI_Abort recorded"
	check "$(mpi_csv_row "$stats" MPI_Barrier 2)" = 15 "$impl: every rank's 5 barriers kept"
	# dump of the founder: its mpi.txt, then each rank's experiment
	d=$("$LWPROF" dump "$exp" 2>/dev/null)
	check "$(grep -c '^==== rank [0-2]: ' <<<"$d"),$(grep -c '^== mpi.txt ==' <<<"$d")" = 3,1 \
		"$impl: dump of the founder: mpi.txt and the three ranks"
done
done_testing
