#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Eight hardware counters, the most an experiment holds
# (tests/data/exp/counters8.gen).  Before the fix print refused any
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
