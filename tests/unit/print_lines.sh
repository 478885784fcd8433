#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Source lines from DWARF 5 (gcc 12's default) and DWARF 4: 90 samples in
# a hot loop inlined into outer() land on the loop body's own line, 10 on
# the line after it; the function is the caller, outer(), unless -inline
# on names the inlined function.  (tests/data/exp/lines.gen; the line
# numbers come from the markers in tests/progs/lines_example.c)
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

src=$LWPROF_TOP/tests/progs/lines_example.c
body=$(grep -n 'LINE:body' "$src" | cut -d: -f1)
after=$(grep -n 'LINE:after' "$src" | cut -d: -f1)
call=$(grep -n '= hot_loop(n);' "$src" | cut -d: -f1)
for v in 5 4; do
	bin=lines_dw$v.bin
	readelf --debug-dump=info "$DATA/$bin" | grep -q "Version: *$v\$"
	check $? -eq 0 "$bin is DWARF $v"
	exp=$(sed "s/LINES_BIN/$bin/; s/@BODY/@$body/; s/@AFTER/@$after/" \
		"$DATA/exp/lines.gen" | gen_exp dw$v -)
	l=$("$LWPROF" print -printmode csv -metrics e.%user:name -lines "$exp")
	check "$(grep -F "outer, line $body in \"\"tests/progs/lines_example.c\"\"" <<<"$l" | cut -d, -f1,2)" \
		= "0.900,90.00" "DWARF $v: 90% on the loop body's line $body, function outer"
	check "$(grep -F "outer, line $after in" <<<"$l" | cut -d, -f1,2)" \
		= "0.100,10.00" "DWARF $v: 10% on line $after"
	l=$("$LWPROF" print -inline on -printmode csv -metrics e.%user:name -lines -functions "$exp")
	check "$(grep -F "hot_loop, line $body in" <<<"$l" | cut -d, -f1)" = 0.900 \
		"DWARF $v, -inline on: the body's line belongs to hot_loop"
	check "$(grep ',hot_loop$' <<<"$l" | cut -d, -f1)/$(grep ',outer$' <<<"$l" | cut -d, -f1)" \
		= 0.900/0.100 "DWARF $v, -inline on: hot_loop 0.9 s, outer 0.1 s"
	# -inline on adds the inlined call as a frame under outer, which keeps
	# the samples inclusive, on the line of the call
	l=$("$LWPROF" print -inline on -printmode csv -metrics e.user:i.user:name -functions -lines "$exp")
	check "$(grep ',outer$' <<<"$l" | cut -d, -f1,2)" = 0.100,1.000 \
		"DWARF $v, -inline on: outer excl 0.1, incl 1.0 (its inlined hot_loop's too)"
	check "$(grep -F "outer, line $call in" <<<"$l" | cut -d, -f1,2)" = 0.000,0.900 \
		"DWARF $v, -inline on: outer's line $call (the call of hot_loop) incl 0.9"
	t=$("$LWPROF" print -inline on -metrics i.user:name -calltree "$exp")
	check "$(sed -n 's/^ *[0-9.]* *[| ]*+-//p' <<<"$t" | tr '\n' ' ')" = "main outer hot_loop " \
		"DWARF $v, -inline on: main -> outer -> hot_loop"
	d=$("$LWPROF" print -inline on -metrics e.user:i.user:name -disasm outer "$exp")
	check "$(awk '$3 ~ /^\[/ { e += $1; if ($2 > i) i = $2 } END { printf "%.3f %.3f", e, i }' <<<"$d")" \
		= "1.000 0.900" "DWARF $v, -inline on: -disasm counts each instruction once"
	s=$("$LWPROF" print -metrics e.user:name -source outer "$exp")
	grep -Eq "^ *0\.900 +## +$body\. .*LINE:body" <<<"$s"
	check $? -eq 0 "DWARF $v: -source marks line $body, 0.9 s"
done
golden lines.source "$LWPROF" print -metrics e.user:i.user:name -source outer "$PRINT_OUT/dw5.er"
done_testing
