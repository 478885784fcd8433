# SPDX-License-Identifier: GPL-2.0
# er_print's worked example recorded for real (tests/progs/seed_example):
# 40 units of thread CPU time (main 2, A -> C(10), B 5 + 2 x C(7.5), R 4,
# P/Q 4), and the CPU time each function took by its own clock reads
# (tests/lib/seed_truth.h), which is the truth.  Source tests/lib/test.sh
# first.

# seed_check_shares ER TRUTH [WHAT]: each function's inclusive Total CPU
# in ER, as a share of main's (the loader and exit handlers are outside
# main), within 3 points of the share of main's CPU time it took by its
# own clock (TRUTH: the program's output, its "seed_cpu NAME NS" lines);
# seed_out keeps the table for seed_share.
seed_check_shares() {
	local f got want

	seed_out=$("$LWPROF" print -printmode csv -metrics i.totalcpu:e.totalcpu:name -functions "$1")
	echo "$seed_out" | sed 's/^/# /'
	for f in A B C E F G R P; do
		want=$(awk -v f="$f" '$1 == "seed_cpu" && $2 == "main" { m = $3 }
			$1 == "seed_cpu" && $2 == f { v = $3 }
			END { if (m > 0 && v != "") printf "%.1f", 100 * v / m; else print -100 }' "$2")
		got=$(seed_share "$f" 1)
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d <= 3 && d >= -3) }'
		check $? -eq 0 "${3:+$3: }$f: $got% of main's CPU time inclusive, measured $want% +- 3"
	done
}

# seed_share F COLUMN: F's metric as a percentage of main's inclusive.
seed_share() {
	awk -F, -v f="$1" -v c="$2" '$NF == "main" { m = $1 } $NF == f { v = $c }
		END { if (m > 0) printf "%.1f", 100 * v / m; else print -1 }' <<<"$seed_out"
}
