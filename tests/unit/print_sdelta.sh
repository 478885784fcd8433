#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Delta stack copies in the reader (LWPROF_RS_SDELTA): tests/progs/
# qsort_unwind's real registers and stack (-O2 -fomit-frame-pointer: only
# DWARF unwinding through libc finds cmp's callers) as gen_exp's "capture
# FILE deltas=N": a full copy with its odd blocks spoiled (sleep time),
# then N deltas of 10 ms user time each: the first puts the odd blocks
# right, the second reuses every block, the third carries one.  Rebuilt
# right, all 30 ms unwind to main; if the reader used the spoiled base's
# bytes or a delta's literal blocks alone, the unwind could not get there.
# Without the base (lost, or a base of another time) the deltas have no
# stack copy: their time stays on cmp alone, with one warning, exit 0.
# A miscounted delta is damage: an error naming the file and offset.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }

# main's and cmp's inclusive user time, and the warnings, of EXP
incl() {
	"$LWPROF" print -printmode csv -metrics i.user:name -functions "$1" \
		2>/dev/null | awk -F, -v f="$2" '$2 == f { print $1 }'
}

exp=$(printf 'capture %s deltas=3\nusage auto\n' "$cap" | gen_exp ok -)
d=$("$LWPROF" dump "$exp")
check $? -eq 0 "dump reads the deltas"
check "$(grep -c 'flags=REGS|SDELTA|SBASE' <<<"$d")" -eq 3 "  three delta samples"
check "$(grep -c 'flags=REGS|SBASE' <<<"$d")" -eq 1 "  after one full copy"
lits=$(sed -n 's/.* sdelta .* literal=\([0-9]*\) .*/\1/p' <<<"$d" | tr '\n' ' ')
blocks=$(sed -n '1s/.* sdelta .* blocks=\([0-9]*\) .*/\1/p' <<<"$(grep ' sdelta ' <<<"$d")")
check "${lits#* }" = "0 1 " "  the second reuses every block, the third carries one ($lits)"
check "${lits%% *}" -ge $((blocks / 2 - 1)) "  the first carries the odd blocks ($lits of $blocks)"
err=$("$LWPROF" print -metrics i.user:name -calltree "$exp" 2>&1 >/dev/null)
check "$err" = "" "no warnings ($err)"
check "$(incl "$exp" main)" = 0.030 "all three deltas unwind to main (0.030 s)"
check "$(incl "$exp" cmp)" = 0.030 "  from cmp"
grep -Eq 'main qsort_r ((msort_with_tmp|<static>@0x[0-9a-f]+ \(libc\.so\.6\)) )+cmp $' <<<"$(
	"$LWPROF" print -metrics i.user:name -calltree "$exp" |
	sed -n 's/^ *0\.030 *[| ]*+-//p' | tr '\n' ' ')"
check $? -eq 0 "  cmp <- msort_with_tmp... <- qsort_r <- main"

for b in lost stale; do
	exp=$(printf 'capture %s deltas=3 base=%s\nusage auto\n' "$cap" "$b" | gen_exp $b -)
	"$LWPROF" dump "$exp" >/dev/null
	check $? -eq 0 "base=$b: dump reads it"
	err=$("$LWPROF" print -metrics i.user:name -functions "$exp" 2>&1 >/dev/null)
	check $? -eq 0 "  print exits 0"
	grep -q 'cpu.0.rec: 3 delta stack copies without their base' <<<"$err"
	check $? -eq 0 "  one warning counts the three deltas ($err)"
	check "$(incl "$exp" cmp)" = 0.030 "  their time stays on cmp"
	check "$(incl "$exp" main)" = "" "  and nothing is made up above it"
done

# A pause over the full copy's span (collector_pause(), -y: 5 to 20 ms,
# the copy at 20 ms with 10 ms of sleep): the sample is in no metric, but its copy is the base of the deltas after the resume,
# which must still unwind to main, with no warning.
exp=$(printf 'capture %s deltas=3 t=20000000\npoint start t=0\npoint pause t=5000000\npoint resume t=20000000\nusage auto\n' "$cap" |
	gen_exp paused -)
err=$("$LWPROF" print -metrics i.user:name:e.sleep -functions "$exp" 2>&1 >/dev/null)
check "$err" = "" "paused base: no warnings ($err)"
check "$(incl "$exp" main)" = 0.030 "paused base: all three deltas unwind to main (0.030 s)"
check "$("$LWPROF" print -printmode csv -metrics e.sleep:name -functions "$exp" |
	awk -F, '$NF == "<Total>" { print $1 }')" = 0.000 "  and the paused sample is in no metric (its 10 ms of sleep left out)"

# Format 1.0 (no deltas) still reads: minor 0, and zeros where 1.2 has
# the register set.
exp=$(printf 'capture %s\nusage auto\n' "$cap" | gen_exp old -)
printf '\0' | dd of="$exp/cpu.0.rec" bs=1 seek=12 conv=notrunc status=none
dd if=/dev/zero of="$exp/cpu.0.rec" bs=1 seek=32 count=16 conv=notrunc status=none
sed -i '1s/.*/lwprof experiment 1.0/' "$exp/log.txt"
check "$("$LWPROF" dump "$exp" | sed -n 's/.*cpu.0.rec: format \([0-9.]*\),.*/\1/p')" = 1.0 \
	"a format 1.0 file"
check "$(incl "$exp" main)" = 0.010 "  reads and unwinds as before"

exp=$(printf 'capture %s deltas=1 damage=1\nusage auto\n' "$cap" | gen_exp damage -)
out=$("$LWPROF" dump "$exp" 2>&1 >/dev/null)
check $? -ne 0 "damaged delta: dump fails"
grep -q 'cpu.0.rec.*literal count does not match its bitmap' <<<"$out"
check $? -eq 0 "  naming file and problem ($out)"
out=$("$LWPROF" print -functions "$exp" 2>&1 >/dev/null)
check $? -ne 0 "  print fails"
grep -Eq 'cpu.0.rec: byte [0-9]+: delta stack copy: literal count' <<<"$out"
check $? -eq 0 "  naming file, offset and problem ($out)"
done_testing
