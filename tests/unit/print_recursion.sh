#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Recursion, as er_print counts it: inclusive counted once per function
# per event; the higher invocations of a recursive function count as zero,
# so R's 4 units are attributed by R to itself, while main (the initiating
# function) shows R as a callee with 4.  The same for P <-> Q.  And the
# sums: callers' attributed = inclusive; callees' attributed + exclusive =
# inclusive.  (tests/data/exp/recursion.gen)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp recursion)
P() { "$LWPROF" print -printmode csv -metrics e.total:i.total:a.total:name "$@" "$exp"; }

f=$(P -functions)
check "$(csv_field "$f" '<Total>' 2)" = 9.000 "<Total> is 9 units"
check "$(csv_field "$f" R 1)/$(csv_field "$f" R 2)" = 4.000/4.000 "R: excl 4, incl 4 (once per event)"
check "$(csv_field "$f" Q 1)/$(csv_field "$f" Q 2)" = 4.000/4.000 "Q: excl 4, incl 4"
check "$(csv_field "$f" P 1)/$(csv_field "$f" P 2)" = 0.000/4.000 "P: excl 0, incl 4"
check "$(csv_field "$f" main 2)" = 9.000 "main: incl 9"

cc=$(P -csingle R)
check "$(grep -c . <<<"$cc")" -eq 3 "R's block: one caller, R, no callee"
check "$(sed -n 2p <<<"$cc" | cut -d, -f3,4)" = "4.000,R" "R's caller: R itself with 4 (not main)"
cc=$(P -csingle main)
check "$(grep -c ',R$' <<<"$cc")" = 1 "main calls R"
check "$(grep ',R$' <<<"$cc" | cut -d, -f3)" = 4.000 "main attributes 4 to its callee R"
check "$(grep ',P$' <<<"$cc" | cut -d, -f3)" = 4.000 "main attributes 4 to its callee P"
cc=$(P -csingle P)
check "$(sed -n 2p <<<"$cc" | cut -d, -f3,4)" = "4.000,Q" "P's caller: Q with 4 (main's share is zero)"
check "$(sed -n 4p <<<"$cc" | cut -d, -f3,4)" = "4.000,Q" "P's callee: Q with 4 = incl - excl"
cc=$(P -csingle Q)
check "$(sed -n 2p <<<"$cc" | cut -d, -f3,4)" = "4.000,P" "Q's caller: P with 4 = Q's incl"
check "$(grep -c . <<<"$cc")" -eq 3 "Q: no callee (its lowest call is the leaf)"

golden recursion.callers-callees "$LWPROF" print -metrics e.total:i.total:a.total:name -callers-callees "$exp"
golden recursion.calltree "$LWPROF" print -metrics e.total:i.total:name -calltree "$exp"
done_testing
