#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof print on er_print's worked example (tests/data/exp/seed.gen):
# main incl 32 excl 2, callees A 10 and B 20; A excl 0; B incl 20 excl 5;
# C incl 25 excl 5, callers A 10 / B 15, callees E 10 / F 10; E excl =
# incl; F excl < incl -- checked by number, then every view against its
# golden output.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp seed)
P() { "$LWPROF" print -printmode csv -metrics e.total:i.total:a.total:name "$@" "$exp"; }

f=$(P -functions)
check "$(csv_field "$f" '<Total>' 1)" = 32.000 "<Total> is 32 units"
check "$(csv_field "$f" main 1)/$(csv_field "$f" main 2)" = 2.000/32.000 "main excl 2 incl 32"
check "$(csv_field "$f" A 1)/$(csv_field "$f" A 2)" = 0.000/10.000 "A excl 0 incl 10"
check "$(csv_field "$f" B 1)/$(csv_field "$f" B 2)" = 5.000/20.000 "B excl 5 incl 20"
check "$(csv_field "$f" C 1)/$(csv_field "$f" C 2)" = 5.000/25.000 "C excl 5 incl 25"
check "$(csv_field "$f" E 1)" = "$(csv_field "$f" E 2)" "E excl = incl"
check "$(csv_field "$f" F 1)/$(csv_field "$f" F 2)" = 5.000/10.000 "F excl 5 < incl 10"

cc=$(P -csingle C)
check "$(sed -n 2,3p <<<"$cc" | cut -d, -f3,4 | tr '\n' ' ')" = "15.000,B 10.000,A " "C's callers: B 15, A 10"
check "$(sed -n 4p <<<"$cc" | cut -d, -f2-)" = "25.000,25.000,* C" "C itself: incl 25"
check "$(sed -n 5,6p <<<"$cc" | cut -d, -f3,4 | tr '\n' ' ')" = "10.000,E 10.000,F " "C's callees: E 10, F 10"
cc=$(P -csingle main)
check "$(sed -n 3,4p <<<"$cc" | cut -d, -f3,4 | tr '\n' ' ')" = "20.000,B 10.000,A " "main's callees: B 20, A 10"

golden seed.functions "$LWPROF" print -functions "$exp"
golden seed.callers-callees "$LWPROF" print -callers-callees "$exp"
golden seed.calltree "$LWPROF" print -metrics e.%total:i.%total:name -calltree "$exp"
golden seed.objects "$LWPROF" print -objects "$exp"
golden seed.lines "$LWPROF" print -metrics e.total:i.total:name -lines "$exp"
golden seed.pcs "$LWPROF" print -metrics e.total:i.total:name:address -pcs "$exp"
golden seed.fsingle "$LWPROF" print -fsingle C "$exp"
golden seed.static "$LWPROF" print -metrics name:address:size:e.total -sort name -functions "$exp"
golden seed.source "$LWPROF" print -metrics e.total:i.total:name -source C "$exp"
golden seed.disasm "$LWPROF" print -metrics e.total:i.total:name -disasm B "$exp"
golden seed.statistics "$LWPROF" print -statistics "$exp"
done_testing
