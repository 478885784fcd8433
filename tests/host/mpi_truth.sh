#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MPI tracing on the perf backend (docs/guide/mpi.md), two and four ranks
# under Open MPI and MPICH: tests/progs/mpi/mpi_truth knows what it did
# and prints it (its truth lines).  lwprof collect -M in the launcher's
# form must make one founder with a rank each; lwprof print on it must
# show each function's exact calls, sends, bytes sent, receives and bytes
# received (nonblocking receives counted at the MPI_Waitall that
# completed them, so matched to it), the collectives' calls, each rank's
# Late Sender, Wait at Barrier and at NxN within 2% + 50 us of the delays the
# program timed itself, MPI_ANY_SOURCE receives under their real
# senders, peers on a split communicator as world ranks (a receive
# completing after the program freed it too), the message
# matrix, a rank selection, the microstate split
# named absent (the perf backend keeps none per call), and the perfetto
# export's ranks and message flows, and the html report's (headless
# Chromium: the calls under each thread, the messages drawn).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"
. "$(dirname "$0")/../lib/mpi.sh"

mpi_need

for impl in $impls; do
	for np in 2 4; do
		exp=$PRINT_OUT/$impl.$np.er
		mapfile -t launch < <(mpi_launch "$impl" "$np")
		out=$("$LWPROF" collect -M on -o "$exp" "${launch[@]}" -- \
			"$(mpi_prog "$impl" mpi_truth)" 2>"$PRINT_OUT/$impl.$np.err")
		rc=$?
		check $rc -eq 0 "$impl, $np ranks: collect -M on ... -- mpi_truth"
		if [ $rc -ne 0 ]; then
			tail -5 "$PRINT_OUT/$impl.$np.err"
			continue
		fi
		check "$(ls -d "$exp"/M_r*.er | wc -l)" -eq "$np" "$impl, $np ranks: $np subexperiments"
		stats=$("$LWPROF" print -printmode csv -mpi_stats "$exp" 2>/dev/null)
		mpi_check_funcs "$impl, $np ranks" "$out" "$stats"
		ranks=$(mpi_rank_rows "$stats")
		while read -r _ _ r _ late _ wait _ nxn; do
			mpi_check_near "$impl, $np ranks: rank $r Late Sender" "$ranks" "$r" 11 "$late"
			mpi_check_near "$impl, $np ranks: rank $r Wait at Barrier" "$ranks" "$r" 12 "$wait"
			mpi_check_near "$impl, $np ranks: rank $r Wait at NxN (MPI_Allreduce)" "$ranks" "$r" 13 "$nxn"
		done < <(grep '^truth rank ' <<<"$out")
		check "$(mpi_csv_row "$ranks" 0 14)" = absent "$impl, $np ranks: the microstate split absent (perf backend)"
		# ANY_SOURCE: rank 0's receives of tag 3 name each sender and its bytes
		want=$(grep '^truth any_source' <<<"$out" | cut -d' ' -f3- | tr ' ' '\n' | sort | tr '\n' ' ')
		got=$(mpi_recv_sources "$exp/M_r0.er" 3)
		check "$got" = "$want" "$impl, $np ranks: MPI_ANY_SOURCE receives: sender:bytes $want"
		# the matrix: rank 1 sent rank 0 its ANY_SOURCE message, and
		# with two ranks its ring messages too (the next rank is 0)
		mat=$("$LWPROF" print -printmode csv -mpi_matrix "$exp" 2>/dev/null)
		sent=$(awk -F, '$1 == "1" { print $2; exit }' <<<"$mat")
		want=$((16 + (np == 2 ? 3 * 400 + 2 * 1000 : 0)))
		check "$sent" = $want "$impl, $np ranks: -mpi_matrix: rank 1 sent rank 0 $want bytes"
		# the split communicator's message: world rank 0 to 2, named so
		if [ "$np" -eq 4 ]; then
			check "$(awk -F, '$1 == "0" { print $4; exit }' <<<"$mat")" = 24 \
				"$impl, $np ranks: -mpi_matrix: rank 0 sent rank 2 24 bytes on a communicator of its own"
			check "$(mpi_recv_sources "$exp/M_r2.er" 4 MPI_Wait)" = "0:24 " \
				"$impl, $np ranks: rank 2's receive on it, completed after it was freed, names world rank 0"
		fi
		# one rank selected: its row alone, and the totals are its own
		sel=$("$LWPROF" print -printmode csv -rank_select 1 -mpi_stats "$exp" 2>/dev/null)
		check "$(mpi_csv_row "$sel" '<Total>' 2)" = "$(mpi_csv_row "$ranks" 1 2)" \
			"$impl, $np ranks: -rank_select 1: the totals are rank 1's"
		check "$(mpi_rank_rows "$sel" | cut -d, -f1 | tr '\n' ' ')" = "1 " \
			"$impl, $np ranks: -rank_select 1: rank 1's row alone"
		# perfetto: each rank a process named by its rank, and each
		# point-to-point message a flow from its send to its receive
		"$LWPROF" export perfetto -o "$exp.pftrace" "$exp" 2>/dev/null &&
			protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto \
				<"$exp.pftrace" >"$exp.pftrace.txt" 2>/dev/null
		check $? -eq 0 "$impl, $np ranks: export perfetto, decoded"
		check "$(grep -c 'process_name: "rank [0-9]*: mpi_truth"' "$exp.pftrace.txt")" -eq "$np" \
			"$impl, $np ranks: perfetto: $np processes named by rank"
		msgs=$(awk '$3 == "MPI_Send" || $3 == "MPI_Isend" { n += $5 } END { print n }' <<<"$out")
		check "$(grep -c ' flow_ids: ' "$exp.pftrace.txt"),$(grep -c 'terminating_flow_ids: ' "$exp.pftrace.txt")" = "$msgs,$msgs" \
			"$impl, $np ranks: perfetto: $msgs messages, $msgs flows from send to receive"
		# html, once per implementation: the ranks named, every MPI
		# call under its thread, every message drawn
		chrome=$(command -v chromium || command -v chromium-browser) || continue
		[ "$np" -eq 2 ] || continue
		"$LWPROF" export html -o "$exp.html" "$exp" 2>/dev/null
		check $? -eq 0 "$impl, $np ranks: export html"
		dom=$(timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
			--user-data-dir="$PRINT_OUT/chrome" --dump-dom "file://$exp.html" 2>/dev/null |
			tr -d '\n' | sed 's|<script type="application/json".*||')
		check "$(grep -c 'data-lwprof="ready"' <<<"$dom")" -eq 1 "$impl, $np ranks: html: the script ran to the end"
		check "$(grep -o 'rank [01]: process' <<<"$dom" | wc -l)" -eq 2 "$impl, $np ranks: html: two processes named by rank"
		calls=$(mpi_csv_row "$stats" '<Total>' 2)
		check "$(grep -o 'data-mpi="[0-9]*"' <<<"$dom" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')" -eq "$calls" \
			"$impl, $np ranks: html: the $calls MPI calls under their threads"
		check "$(grep -o 'data-mpi-messages="[0-9]*"' <<<"$dom" | tr -dc '0-9')" = "$msgs" \
			"$impl, $np ranks: html: the $msgs messages drawn"
	done
done
done_testing
