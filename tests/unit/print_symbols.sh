#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Function names as the Oracle tools show them (tests/data/exp/symbols.gen):
# C++ demangled (short name without parameters, -name long with them), a
# .cold part and a .constprop clone under their parent's name, aliases as
# one name, static functions, name@plt; and the pseudo functions <Unknown>,
# <Truncated-stack>, collector_not_program_related and the exit packets
# (tests/data/exp/pseudo.gen).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

plt=$(objdump -d "$DATA/symbols.bin" | awk '/<strlen@plt>:/ { print $1 }')
check -n "$plt" "objdump finds strlen@plt"
exp=$(sed "s/PLT_ADDR/0x$(printf %x $((0x555555554000 + 0x$plt)))/" \
	"$DATA/exp/symbols.gen" | gen_exp symbols -)
f=$("$LWPROF" print -printmode csv -metrics e.user:i.user:name -functions "$exp")
check "$(csv_field "$f" ns::Widget::spin 1)" = 0.040 "C++: ns::Widget::spin, demangled, short"
check "$(csv_field "$f" with_cold 1)" = 0.050 "with_cold.cold counts as with_cold (3 + 2)"
check "$(grep -c cold <<<"$f")" = 1 "and no other row names .cold"
check "$(csv_field "$f" scale 1)" = 0.020 "scale.constprop.0 shows as scale"
check "$(csv_field "$f" alias_name 1)$(csv_field "$f" real_impl 1)" = 0.020 "two names, one row"
check "$(csv_field "$f" helper 1)/$(csv_field "$f" helper 2)" = 0.010/0.020 "static helper: excl 1, incl 2"
check "$(csv_field "$f" strlen@plt 1)" = 0.010 "the PLT stub: strlen@plt"
# -disasm: the body, then the .cold part (elsewhere in .text) with its own 2
d=$("$LWPROF" print -metrics e.user:name -disasm with_cold "$exp")
body=$(sed -n '/<with_cold.cold: /q; /^ *[0-9.]* *\[/p' <<<"$d")
cold=$(sed -n '/<with_cold.cold: /,$p' <<<"$d" | sed 1d)
check "$(awk '{ s += $1 } END { printf "%.3f", s }' <<<"$body")" = 0.030 "-disasm: the body's 3 samples"
check "$(awk '{ s += $1 } END { printf "%.3f", s }' <<<"$cold")" = 0.020 "then the .cold part with its 2"
check "$(grep -c 'abort@plt' <<<"$cold")" -ge 1 "the .cold part's own instructions (abort@plt)"
check "$(grep -c '<with_cold.cold: ' <<<"$d")" = 1 ".cold after the body, once"
f=$("$LWPROF" print -name long -printmode csv -metrics e.user:name -functions "$exp")
check "$(csv_field "$f" '"ns::Widget::spin(int)"' 1)$(csv_field "$f" 'ns::Widget::spin(int)' 1)" \
	= 0.040 "-name long: ns::Widget::spin(int)"
golden symbols.functions "$LWPROF" print -metrics e.user:i.user:name:address:size -functions "$exp"

exp=$(gen_exp pseudo)
f=$("$LWPROF" print -printmode csv -metrics e.total:i.total:e.insts:name -functions "$exp")
check "$(csv_field "$f" '<Unknown>' 1)" = 0.090 "<Unknown>: the unmapped pc and the stackless exit (0.02 + 0.07)"
check "$(csv_field "$f" '<Truncated-stack>' 2)" = 0.030 "<Truncated-stack> holds the cut stacks"
check "$(csv_field "$f" collector_not_program_related 3)" = 4000000 "counter packets with no stack"
check "$(csv_field "$f" G 1)" = 0.080 "G: its 5 packets and the thread's exit packet (0.05 + 0.03)"
check "$(csv_field "$f" "<Total>" 1)" = 0.200 "<Total>: 0.2 s"
golden pseudo.calltree "$LWPROF" print -metrics i.total:i.insts:name -calltree "$exp"
done_testing
