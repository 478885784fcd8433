#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof dump on damaged experiments: a cut-short file, bad record sizes,
# a sample whose frame counts do not fit, bad headers, a missing log, and
# random bytes.  Each gives a message naming the file and the offset, the
# records before the damage are still shown, exit 1, and never a crash.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
FAKE_LWPROF_SAMPLES=50 LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null \
	"$LWPROF" collect -o good.er true 2>/dev/null
"$LWPROF" dump good.er >good.txt 2>&1; check $? -eq 0 "a sound experiment dumps cleanly"

# Offset of record K (1-based) of cpu.1.rec (50 samples, a LOST record).
off() { grep -o "^[a-z.]*/cpu.1.rec+[0-9]*" good.txt | sed -n "$1p" | sed 's/.*+//'; }
poke32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24 & 255)))" |
	dd of="$1" bs=1 seek="$3" conv=notrunc status=none; }
fresh() { rm -rf bad.er; cp -r good.er bad.er; }
dump_bad() { "$LWPROF" dump bad.er >out.txt 2>err.txt; rc=$?; }

o10=$(off 10); o11=$(off 11)
fresh; truncate -s $((o10 + 20)) bad.er/cpu.1.rec; dump_bad
check $rc -eq 1 "a file cut inside a record: exit 1"
check "$(cat err.txt)" = "lwprof dump: bad.er/cpu.1.rec: byte $o10: last record cut short (20 of $((o11 - o10)) bytes); using the records before it" \
	"names the file and the offset"
check "$(grep -c '^bad.er/cpu.1.rec+' out.txt)" -eq 9 "the 9 records before it are shown"
check "$(grep -c '^bad.er/cpu.0.rec+' out.txt)" -eq "$(grep -c '^good.er/cpu.0.rec+' good.txt)" \
	"the other file is dumped whole"
grep -q '^== usage.txt ==$' out.txt; check $? -eq 0 "and dump goes on to usage.txt"

fresh; truncate -s $((o10 + 4)) bad.er/cpu.1.rec; dump_bad
check $rc -eq 1 "4 stray bytes at the end: exit 1"
grep -q "^lwprof dump: bad.er/cpu.1.rec: byte $o10: last record cut short (4 of 8 bytes)" err.txt
check $? -eq 0 "less than a record header, at offset $o10"

fresh; poke32 bad.er/cpu.1.rec 12 $((o10 + 4)); dump_bad
check $rc -eq 1 "a record size that is not a multiple of 8: exit 1"
check "$(cat err.txt)" = "lwprof dump: bad.er/cpu.1.rec: byte $((o10 + 4)): bad record size 12 (type 1)" "says so"
fresh; poke32 bad.er/cpu.1.rec 1 $((o10 + 4)); dump_bad
grep -q "byte $((o10 + 4)): bad record size 1 (type 1)" err.txt; check $? -eq 0 "a size smaller than a header"
fresh; poke32 bad.er/cpu.1.rec $((0x7ffffff8)) $((o10 + 4)); dump_bad
grep -q "byte $((o10 + 4)): record size 2147483640 is too large" err.txt; check $? -eq 0 "a huge size"

# A sample whose frame count does not match its size (nr_user at +120).
fresh; poke32 bad.er/cpu.1.rec 200 $((o10 + 120)); dump_bad
check $rc -eq 1 "a sample's frames overflow its record: exit 1"
grep -q "^lwprof dump: bad.er/cpu.1.rec: byte $((o10 + 4)): sample size $((o11 - o10)), its fields need [0-9]*$" err.txt
check $? -eq 0 "says so: $(cat err.txt)"

fresh; printf 'XXXXXXX' | dd of=bad.er/cpu.0.rec conv=notrunc status=none; dump_bad
check "$(cat err.txt)" = "lwprof dump: bad.er/cpu.0.rec: byte 0: not an lwprof record file (bad magic)" "bad magic"
check "$(grep -c '^bad.er/cpu.1.rec+' out.txt)" -eq "$(grep -c '^good.er/cpu.1.rec+' good.txt)" \
	"the other file is still dumped"
fresh; poke32 bad.er/cpu.0.rec 2 8; poke32 bad.er/cpu.0.rec 0 12; dump_bad
check "$(cat err.txt)" = "lwprof dump: bad.er/cpu.0.rec: byte 8: format version 2.0; this lwprof reads 1.x" "another major version"
fresh; poke32 bad.er/cpu.0.rec $((0x04030201)) 16; dump_bad
grep -q "byte 16: byte order 0x04030201" err.txt; check $? -eq 0 "another byte order"
fresh; : >bad.er/cpu.0.rec; dump_bad
check "$(cat err.txt)" = "lwprof dump: bad.er/cpu.0.rec: byte 0: empty file: no file header" "an empty file"
fresh; truncate -s 64 bad.er/cpu.0.rec; dump_bad
check $rc -eq 0 "a file with only its header is sound (no records)"
grep -q '^bad.er/cpu.0.rec: 0 records' out.txt; check $? -eq 0 "  0 records"

fresh; rm bad.er/log.txt; dump_bad
check $rc -eq 1 "no log.txt: exit 1"
grep -q '^lwprof dump: bad.er/log.txt: No such file or directory$' err.txt; check $? -eq 0 "says so"
fresh; sed -i '1s/.*/lwprof experiment 2.0/' bad.er/log.txt; dump_bad
grep -q '^lwprof dump: bad.er/log.txt: byte 18: experiment format 2.0; this lwprof reads 1.x$' err.txt
check $? -eq 0 "a log of another major version"
fresh; echo 'no equals sign' >>bad.er/log.txt; dump_bad
check $rc -eq 1 "a bad log line: exit 1"
grep -q '^lwprof dump: bad.er/log.txt: line [0-9]* (byte [0-9]*): bad key = value line$' err.txt
check $? -eq 0 "  says which line, as print does (the one log reader)"
grep -q '^total: ' out.txt; check $? -eq 0 "  the records are still dumped"

# Random damage: any byte of the records may be anything; dump must not
# crash (exit 0 or 1) and anything it reports names a file and offset.
size=$(stat -c %s good.er/cpu.1.rec); crashes=0; unnamed=0
for seed in $(seq 1 60); do
	fresh
	awk -v s=$seed -v n=$size 'BEGIN { srand(s); for (i = 0; i < 8; i++) printf "%d %d\n", 64 + int(rand() * (n - 64)), int(rand() * 256) }' |
	while read -r at val; do
		printf "$(printf '\\x%02x' "$val")" | dd of=bad.er/cpu.1.rec bs=1 seek="$at" conv=notrunc status=none
	done
	dump_bad
	[ $rc -le 1 ] || crashes=$((crashes + 1))
	[ ! -s err.txt ] || grep -q '^lwprof dump: bad.er/cpu.1.rec: byte [0-9]*: ' err.txt || unnamed=$((unnamed + 1))
done
check $crashes -eq 0 "60 randomly damaged files: no crash"
check $unnamed -eq 0 "every message names the file and the offset"
done_testing
