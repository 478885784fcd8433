#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Damaged experiments: each kind of damage gives one clear line naming the
# file and the byte offset (or line), exit 1, never a crash; a cut-short
# last record is a warning and the records before it are used.  Then 300
# seeded random byte flips: every run ends with 0 or 1 and, on error, one
# "lwprof print: FILE: ..." line.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

good=$(gen_exp seed)
fresh() { rm -rf "$PRINT_OUT/d.er"; cp -r "$good" "$PRINT_OUT/d.er"; echo "$PRINT_OUT/d.er"; }
u32() { od -An -tu4 -j "$1" -N4 "$2" | tr -d ' '; }
poke() {	# poke FILE OFFSET BYTE...
	local f=$1 off=$2 b
	shift 2
	for b in "$@"; do
		printf "\\x$(printf %02x "$b")" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
		off=$((off + 1))
	done
}
run() { out=$("$LWPROF" print -functions "$@" 2>&1); rc=$?; }
expect() {	# expect RC REGEX WHAT
	check $rc -eq "$1" "$3: exit $1"
	grep -Eq "$2" <<<"$out"
	check $? -eq 0 "$3: says '$2' ($(grep -m1 'lwprof print' <<<"$out"))"
}

rec=cpu.0.rec
mmap_size=$(u32 68 "$good/$rec")	# the first record: the MMAP
task_off=$((64 + mmap_size))
s1=$((task_off + 48))			# the first sample
s1_size=$(u32 $((s1 + 4)) "$good/$rec")

e=$(fresh); truncate -s -20 "$e/$rec"; run "$e"
expect 0 "warning: $e/$rec: byte [0-9]+: last record cut short" "truncated file"
check "$(awk '/<Total>/ { print $1 }' <<<"$out")" = 31.500 "and the 63 whole samples are used"

e=$(fresh); poke "$e/$rec" 0 88; run "$e"
expect 1 "^lwprof print: $e/$rec: byte 0: not an lwprof record file" "bad magic"
e=$(fresh); poke "$e/$rec" 8 2; poke "$e/$rec" 12 0; run "$e"
expect 1 "^lwprof print: $e/$rec: byte 8: format version 2.0; this lwprof reads 1.x" "wrong file version"
e=$(fresh); sed -i '1s/experiment 1\.[0-9]*/experiment 2.0/' "$e/log.txt"; run "$e"
expect 1 "^lwprof print: $e/log.txt: byte 18: experiment format 2.0" "wrong log version"
e=$(fresh); poke "$e/$rec" 16 1 2 3 4; run "$e"
expect 1 "byte 16: byte order 0x04030201 is not this machine's" "other byte order"
e=$(fresh); poke "$e/$rec" 48 1; run "$e"
expect 1 "byte 48: reserved field not zero" "reserved header field"
e=$(fresh); poke "$e/$rec" 40 1; run "$e"
expect 1 "byte 40: register mask and count \(byte 34\) disagree" "register mask"
e=$(fresh); truncate -s 10 "$e/$rec"; run "$e"
expect 1 "$e/$rec: byte 0: file header cut short \(10 of 64 bytes\)" "short header"
e=$(fresh); poke "$e/$rec" 69 255; run "$e"
expect 1 "$e/$rec: byte 68: mmap record size" "mmap size flipped"
e=$(fresh); poke "$e/$rec" $((s1 + 4)) $(((s1_size + 8) & 255)); run "$e"
expect 1 "$e/$rec: byte $((s1 + 4)): sample size [0-9]+, its fields need $s1_size" "sample size off by 8"
e=$(fresh); poke "$e/$rec" $((s1 + 40)) 7; run "$e"
expect 1 "$e/$rec: byte $((s1 + 32)): clock value 500000000 but microstates sum to" "a flipped microstate"
e=$(fresh); poke "$e/$rec" $((s1 + 28)) 9; run "$e"
expect 1 "$e/$rec: byte $((s1 + 28)): unknown sample kind 9" "unknown kind"
e=$(fresh); poke "$e/$rec" $((s1 + 15)) 0x40; run "$e"
expect 0 "warning: $e/$rec: byte $((s1 + 8)): time [0-9]+ is outside the run" "a time far outside the run: a warning"
e=$(fresh); poke "$e/$rec" $((task_off + 28)) 77; run "$e"
expect 1 "$e/$rec: byte $((task_off + 28)): unknown task event 77" "task event"
e=$(fresh); poke "$e/$rec" $((s1)) 0 0; run "$e"
expect 1 "$e/$rec: byte $s1: record type 0" "record type 0"
e=$(fresh); poke "$e/$rec" $((s1)) 99; run "$e"
expect 0 "<Total>" "an unknown record type is skipped by its size"
e=$(fresh); rm "$e/log.txt"; run "$e"
expect 1 "^lwprof print: $e/log.txt: No such file" "no log.txt"
e=$(fresh); echo "garbage" >>"$e/log.txt"; run "$e"
expect 1 "$e/log.txt: line [0-9]+ \(byte [0-9]+\): bad key = value line" "bad log line"
e=$(fresh); echo "1 2 3" >>"$e/usage.txt"; run "$e"
expect 1 "$e/usage.txt: line 3 \(byte [0-9]+\): bad usage line" "bad usage line"
e=$(fresh); echo "x y" >>"$e/archives/index.txt"; run "$e"
expect 1 "$e/archives/index.txt: line 2 \(byte [0-9]+\): bad index line" "bad index line"
e=$(fresh); rm "$e"/cpu.*.rec; run "$e"
expect 1 "$e: no cpu.N.rec files" "no record files"
run "$PRINT_OUT/nonexistent.er"
expect 1 "nonexistent.er: No such file or directory" "no such experiment"

# seeded random flips of one byte each (bash's RANDOM is deterministic per seed)
RANDOM=12345
size=$(stat -c %s "$good/$rec")
bad=0 errors=0
for i in $(seq 300); do
	e=$(fresh)
	off=$((RANDOM * 32768 + RANDOM))
	off=$((off % size))
	poke "$e/$rec" $off $((RANDOM & 255))
	out=$("$LWPROF" print -functions -callers-callees -calltree -lines "$e" 2>&1 >/dev/null); rc=$?
	if [ $rc -gt 1 ]; then
		echo "flip at $off: exit $rc: $out"
		bad=$((bad + 1))
	elif [ $rc -eq 1 ]; then
		errors=$((errors + 1))
		[ "$(grep -c . <<<"$out")" = 1 ] && grep -q "^lwprof print: $e/$rec: byte [0-9]*: " <<<"$out" ||
			{ echo "flip at $off: unclear: $out"; bad=$((bad + 1)); }
	fi
done
check $bad -eq 0 "300 random flips: no crash, every error one clear line ($errors errors)"
done_testing
