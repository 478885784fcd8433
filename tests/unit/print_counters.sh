#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Eight hardware counters, the most an experiment holds
# (tests/data/exp/counters8.gen).  Before its fix print refused any
# experiment with two or more counters ("counter 1 is cache-references;
# experiments read together must list the same counters in the same
# order") although it was read alone.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp counters8)
names=(instructions cache-references cache-misses branches branch-misses
	bus-cycles ref-cycles page-faults)
h=$("$LWPROF" print -header "$exp" 2>&1); rc=$?
check $rc -eq 0 "print reads an experiment with eight counters"
for i in "${!names[@]}"; do
	check "$(grep -c "^  Counter: *${names[i]} every 1000 events" <<<"$h")" -eq 1 \
		"-header lists counter $i (${names[i]})"
done
# Every counter's events, in every view, the sixth to eighth too (their
# bits lie past the first 16 of a sample's metrics).
for i in "${!names[@]}"; do
	n=${names[i]} want=$((3 * (i + 1) * 1000)) leaf=E
	[ $((i % 2)) -eq 1 ] && leaf=G
	f=$("$LWPROF" print -printmode csv -metrics "e.$n:i.$n:name" -functions "$exp" 2>/dev/null)
	check "$(csv_field "$f" '<Total>' 1)" = "$want" "counter $i ($n): <Total> $want events"
	check "$(csv_field "$f" $leaf 1)" = "$want" "counter $i ($n): all exclusive in $leaf"
	check "$(csv_field "$f" main 2)" = "$want" "counter $i ($n): all inclusive in main"
	o=$("$LWPROF" print -overview "$exp" 2>/dev/null)
	check "$(grep -c "^  \* $n Events *$want events" <<<"$o")" -eq 1 "counter $i ($n): -overview $want events"
done
# the clock packet's time is untouched by the counters' bits
f=$("$LWPROF" print -printmode csv -metrics e.user:e.wall:name -functions "$exp" 2>/dev/null)
check "$(csv_field "$f" '<Total>' 1),$(csv_field "$f" '<Total>' 2)" = 0.010,0.010 "user and wall time: 10 ms"

# experiments read together: the same counters in the same order, or refused
"$LWPROF" print -header "$exp" "$exp" >/dev/null 2>&1
check $? -eq 0 "the same experiment twice is read"
swapped=$(sed '/counter instructions/{h;d};/counter cache-references/G' \
	"$DATA/exp/counters8.gen" | gen_exp swapped -)
err=$("$LWPROF" print -header "$exp" "$swapped" 2>&1); rc=$?
check $rc -eq 1 "counters in another order: refused (status 1)"
check "$(grep -c 'counter 0 is cache-references; experiments read together must list the same counters in the same order' <<<"$err")" -eq 1 \
	"... saying which counter differs"
done_testing
