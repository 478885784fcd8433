# SPDX-License-Identifier: GPL-2.0
# er_print's worked example recorded for real (tests/progs/seed_example):
# its truth is 40 units of thread CPU time (main 2, A -> C(10), B 5 +
# 2 x C(7.5), R 4, P/Q 4).  Source tests/lib/test.sh first.

# seed_check_shares ER [WHAT]: each function's inclusive Total CPU in ER,
# as a share of main's (the loader and exit handlers are outside the
# units), within 3 points of its expected share; seed_out keeps the table
# for seed_share.
seed_check_shares() {
	local f pct got want

	seed_out=$("$LWPROF" print -printmode csv -metrics i.totalcpu:e.totalcpu:name -functions "$1")
	echo "$seed_out" | sed 's/^/# /'
	for want in A:25 B:50 C:62.5 E:25 F:25 G:12.5 R:10 P:10; do
		f=${want%%:*} pct=${want#*:}
		got=$(seed_share "$f" 1)
		awk -v g="$got" -v w="$pct" 'BEGIN { d = g - w; exit !(d <= 3 && d >= -3) }'
		check $? -eq 0 "${2:+$2: }$f: $got% of main's CPU time inclusive, expected $pct% +- 3"
	done
}

# seed_share F COLUMN: F's metric as a percentage of main's inclusive.
seed_share() {
	awk -F, -v f="$1" -v c="$2" '$NF == "main" { m = $1 } $NF == f { v = $c }
		END { if (m > 0) printf "%.1f", 100 * v / m; else print -1 }' <<<"$seed_out"
}
