#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The progress line of print and export (libexp/progress.h): on a terminal
# (script(1) gives the command one), each phase, reading the experiment's
# record files and unwinding its stacks (5 of them: the capture's 5
# samples), redrawn in place with percentages that only grow, and export's
# writing with the bytes written (unless they go to the terminal), erased
# before the command ends; never in standard output, never when standard
# error is no terminal, never with LWPROF_PROGRESS=0.  LWPROF_PROGRESS=now
# draws from a phase's start, so that the test waits on no clock.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

command -v script >/dev/null || skip "no script(1) (bsdutils) to give a command a terminal"
cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
exp=$(printf 'capture %s n=5\nusage auto\n' "$cap" | gen_exp cap -)

# on a terminal: CMD's standard error as script(1) saw it, \r and ESC shown as | and ~
tty_err() {
	LWPROF_PROGRESS=${PROGRESS:-now} script -qfec "$* >$PRINT_OUT/tty.out" /dev/null </dev/null |
		tr '\r\033' '|~'
}
e=$(tty_err "$LWPROF" print -functions "$exp")
check "$(grep -o "|lwprof print: reading $exp: *[0-9]*%" <<<"$e" | head -1)" = "|lwprof print: reading $exp:   0%" \
	"print: reading the experiment, from 0%"
check "$(grep -o '|lwprof print: unwinding 5 stacks: *[0-9]*%' <<<"$e" | head -1)" = "|lwprof print: unwinding 5 stacks:   0%" \
	"  then unwinding its 5 stacks"
p=$(grep -o ': *[0-9]*%' <<<"$e" | tr -dc '0-9\n' | tr '\n' ' ')
check "$(awk '{ for (i = 1; i <= NF; i++) if ($i > 100 || (i > 1 && $i < $(i - 1) && $i != 0)) bad++; print bad + 0 }' <<<"$p")" = 0 \
	"  percentages within a phase only grow, to 100 at most ($p)"
check "${e: -4}" = "|~[K" "  the line erased at the end"
"$LWPROF" print -functions "$exp" >"$PRINT_OUT/plain.out" 2>"$PRINT_OUT/plain.err"
check "$(cmp "$PRINT_OUT/tty.out" "$PRINT_OUT/plain.out" && echo same)" = same "  standard output as without a terminal"
LWPROF_PROGRESS=now "$LWPROF" print -functions "$exp" 2>&1 >/dev/null | grep -c $'\r' >"$PRINT_OUT/n"
check "$(cat "$PRINT_OUT/n")" = 0 "standard error no terminal: no progress line"
e=$(PROGRESS=0 tty_err "$LWPROF" print -functions "$exp")
check "$(grep -c 'reading\|unwinding' <<<"$e")" = 0 "LWPROF_PROGRESS=0: none"
e=$(tty_err "$LWPROF" export folded -o "$PRINT_OUT/f.txt" "$exp")
check "$(grep -o "|lwprof export: reading $exp: *0%" <<<"$e" | head -1)" = "|lwprof export: reading $exp:   0%" \
	"export: its own name on the line"
check "$(grep -o "|lwprof export: writing folded to $PRINT_OUT/f.txt: [0-9.]* MiB" <<<"$e" | head -1)" = \
	"|lwprof export: writing folded to $PRINT_OUT/f.txt: 0.0 MiB" "export: then the bytes it writes, in MiB"
check "${e: -4}" = "|~[K" "  that line erased too"
"$LWPROF" export folded -o "$PRINT_OUT/f2.txt" "$exp" 2>/dev/null
check "$(cmp "$PRINT_OUT/f.txt" "$PRINT_OUT/f2.txt" && echo same)" = same "  the file as without a terminal"
e=$(LWPROF_PROGRESS=now script -qfec "$LWPROF export folded -o - $exp" /dev/null </dev/null | tr '\r\033' '|~')
check "$(grep -c 'writing' <<<"$e")" = 0 "export -o - to the terminal: no writing line among the output"
check "$(grep -cF "$(head -n 1 "$PRINT_OUT/f.txt")" <<<"$e")" = 1 "  which is there"
done_testing
