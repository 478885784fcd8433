#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Forward compatibility of the record files (docs/design/experiment-format.md):
# gen_exp's "grow" writes er_print's worked example and tests/progs/qsort_unwind's
# delta stack copies as a newer minor (this lwprof's + 1) would, with 16
# bytes after the known part of every SAMPLE, TASK and MMAP record and an
# unknown flag bit (0x8000) in each.  lwprof dump and lwprof print read it with one warning
# per file and give what they give without the extras (dump: every record
# the same but its offset; print: the same views, the deltas unwound to
# main).  The same bytes in a file whose header claims this lwprof's
# minor are damage: exit 1, file and offset named; so are 1.3's sample
# flags (KBLOCK ... SOFTIRQ) in a file that says 1.2.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

# this lwprof's format minor, and the next
cur=$(sed -n 's/^#define EXP_FILE_MINOR[[:space:]]*\([0-9]*\).*/\1/p' "$LWPROF_TOP/libexp/format.h")
next=$((cur + 1))

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }

# make NAME [GROW_BEFORE_MAPS] [GROW_BEFORE_SAMPLES]
make_exp() {
	{
		[ -z "$2" ] || echo "$2"
		sed '/^usage/d' "$DATA/exp/seed.gen" | awk -v g="$3" \
			'/^sample/ && !done && g != "" { print g; done = 1 } { print }'
		echo "capture $cap deltas=3"
		echo "usage auto"
	} | gen_exp "$1" -
}
views() { "$LWPROF" print -functions -callers-callees -calltree "$1"; }
# dump without the file names, record offsets and the format line
dumped() { sed "s|$1|E|g; s|^\(E/cpu.[0-9]*.rec\)+[0-9]*:|\1:|; /^lwprof experiment/d; s/format 1\.[0-9]*,/format,/" "$2"; }

plain=$(make_exp plain)
grown=$(make_exp grown "grow minor=$next bytes=16 flags=0x8000")
u32() { od -An -tu4 -j "$1" -N4 "$2" | tr -d ' '; }
check "$(u32 12 "$grown/cpu.0.rec")" = $next "the grown file says format 1.$next"
check "$(stat -c %s "$grown/cpu.0.rec")" -gt "$(stat -c %s "$plain/cpu.0.rec")" "  and is longer"

"$LWPROF" dump -s "$plain" >"$PRINT_OUT/plain.dump" 2>&1
"$LWPROF" dump -s "$grown" >"$PRINT_OUT/grown.dump" 2>"$PRINT_OUT/grown.dump.err"
check $? -eq 0 "dump reads the grown experiment: exit 0"
check "$(grep -c . "$PRINT_OUT/grown.dump.err")" -eq 1 "  one warning ($(cat "$PRINT_OUT/grown.dump.err"))"
grep -q "^lwprof dump: warning: $grown/cpu.0.rec: byte [0-9]*: format 1.$next is newer than this lwprof's 1.$cur" "$PRINT_OUT/grown.dump.err"
check $? -eq 0 "  naming the file, the offset and the versions"
diff <(dumped "$plain" "$PRINT_OUT/plain.dump") <(dumped "$grown" "$PRINT_OUT/grown.dump") >"$PRINT_OUT/dump.diff"
check $? -eq 0 "  the same records, flags, frames and stacks as without the extras ($(head -c 300 "$PRINT_OUT/dump.diff"))"
check "$(grep -c ': SAMPLE ' "$PRINT_OUT/grown.dump")" -eq 68 "  all 68 samples"

views "$plain" >"$PRINT_OUT/plain.views" 2>&1
views "$grown" >"$PRINT_OUT/grown.views" 2>"$PRINT_OUT/grown.print.err"
check $? -eq 0 "print reads it: exit 0"
check "$(grep -c . "$PRINT_OUT/grown.print.err")" -eq 1 "  one warning ($(cat "$PRINT_OUT/grown.print.err"))"
grep -q "^lwprof print: warning: $grown/cpu.0.rec: byte [0-9]*: format 1.$next is newer" "$PRINT_OUT/grown.print.err"
check $? -eq 0 "  naming the file and the offset"
cmp -s "$PRINT_OUT/plain.views" "$PRINT_OUT/grown.views"
check $? -eq 0 "  functions, callers-callees and calltree as without the extras"
check "$("$LWPROF" print -printmode csv -metrics i.user:name -functions "$grown" 2>/dev/null |
	awk -F, '$2 == "main" { print $1 }' | sort -n | tr '\n' ' ')" = "0.030 22.000 " \
	"  the deltas still unwind to qsort_unwind's main (0.030 s user; the worked example's 22 s)"

# The same bytes claiming this lwprof's minor: damage, where the first one is.
mmap_size=$(u32 68 "$plain/cpu.0.rec")
damaged() {	# damaged EXP OFFSET WHAT
	local out rc
	out=$("$LWPROF" dump "$1" 2>&1 >/dev/null); rc=$?
	check $rc -eq 1 "$3: dump exits 1"
	grep -q "^lwprof dump: $1/cpu.0.rec: byte $2: " <<<"$out"
	check $? -eq 0 "  naming file and offset $2 ($out)"
	out=$("$LWPROF" print -functions "$1" 2>&1 >/dev/null); rc=$?
	check $rc -eq 1 "  print exits 1"
	check "$out" = "$(sed -n "s/^lwprof dump: /lwprof print: /p" <<<"$(
		"$LWPROF" dump "$1" 2>&1 >/dev/null)")" "  with the same message"
}
printf "\\$(printf %o "$cur")" | dd of="$grown/cpu.0.rec" bs=1 seek=12 conv=notrunc status=none
damaged "$grown" $((64 + mmap_size)) "the grown file claiming 1.$cur: an MMAP's bytes after its padded path"

s1=$(grep -m1 ': SAMPLE ' "$PRINT_OUT/plain.dump" | sed 's/^[^+]*+\([0-9]*\):.*/\1/')
e=$(make_exp samplebytes "" "grow minor=$cur bytes=16")
damaged "$e" $((s1 + 4)) "a 1.$cur sample with 16 bytes more"
e=$(make_exp sampleflag "" "grow minor=$cur flags=0x8000")
damaged "$e" $((s1 + 2)) "a 1.$cur sample with flag 0x8000"
e=$(make_exp mmapflag "grow minor=$cur flags=0x8000")
damaged "$e" 66 "a 1.$cur MMAP with flag 0x8000"
# 1.3's sample flags are damage in a file that says 1.2 (print_kprof reads
# them in 1.3)
e=$(make_exp kblock12 "" "grow minor=2 flags=0x100")
damaged "$e" $((s1 + 2)) "a 1.2 sample with 1.3's KBLOCK (0x100)"
done_testing
