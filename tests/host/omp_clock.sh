#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The OMPT tool's clock against CLOCK_MONOTONIC, which every other
# record and the program's own measures use: tests/progs/omp_callbacks
# -c plays the runtime, beginning and ending regions between its own
# clock_gettime() reads, 2 ms apart for 0.4 s (the tool's counter
# anchors and rates are taken again meanwhile, ompt/clock.c); each
# region's record must begin between the program's reads before and
# in the middle, and end between the middle and after, within 10 us:
# what NTP changing its slew by 1000 parts in a million during an
# anchor's life could make of a counter read; the conversion itself is
# within tens of nanoseconds.  Where the counter is not used, the tool
# reads clock_gettime() and the bounds hold exactly.
. "$(dirname "$0")/../lib/test.sh"

prog=$LWPROF_BUILD/tests/progs/omp_callbacks
dir=$LWPROF_OUT/omp_clock
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1

"$LWPROF" collect -p off --omp on -o c.er "$prog" -c 200 >c.out 2>c.err
check $? -eq 0 "collect of the runtime's part played"
sed 's/^/#   /' c.err
check "$(grep -c '^region ' c.out)" -eq 200 "200 regions bracketed"
# each region event, folded or not: "ID START_NS DURATION"
"$LWPROF" dump c.er 2>/dev/null | awk '/OMP_EVENT/ && / region pid=/ {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^t=/) { t = substr($i, 3); split(t, p, ".") }
		else if ($i ~ /^dur=/) d = substr($i, 5)
		else if ($i ~ /^region=/) r = substr($i, 8)
	print r, p[1] p[2], d }' >c.rec
check "$(wc -l <c.rec)" -eq 200 "200 region records"
# the worst excess of each bound over the 200 regions, in ns
read -r n early late <<<"$(awk 'NR == FNR { s[$1] = $2; e[$1] = $2 + $3; next }
	$1 == "region" && ($2 in s) {
		n++
		x = $3 - s[$2]; if (x > early) early = x
		x = $4 - e[$2]; if (x > early) early = x
		x = s[$2] - $4; if (x > late) late = x
		x = e[$2] - $5; if (x > late) late = x
	}
	END { printf "%d %d %d\n", n, early, late }' c.rec c.out)"
check "$n" -eq 200 "each region's record found"
check "$early" -le 10000 "no time before the program's read that preceded it (worst $early ns)"
check "$late" -le 10000 "no time after the program's read that followed it (worst $late ns)"
done_testing
