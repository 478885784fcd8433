#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What lwprof print reads and decodes for each command: -header alone
# reads no record (log.txt's counts), with a command that reads them it
# counts the records, the traced-call views (-heap, -heapstat) do not
# decode clock packets.  On a copy of an experiment (5 clock packets with
# tests/progs/qsort_unwind's stack, 8 traced allocations of which 4 are
# freed, written by gen_exp) damaged where only the analyzer's decoding
# looks (a clock packet whose value is not its microstates' sum; a traced
# call on CPU 7 of 2), the views that do not decode that kind show
# exactly what they show on the undamaged one, and those that do report
# the damage at its byte.  On a copy whose every record file is
# unreadable garbage, -header shows what it shows on the undamaged one
# and any command that reads records fails.  In an experiment of heap,
# I/O and sync calls in one trace file (the reads' stack copies deltas
# against an allocation's), the heap and I/O views decode their kind
# alone: each shows what it shows with every record decoded, and one
# kind's damage fails only the views of that kind.  The record counts
# are those lwprof dump finds; -functions decoding every record
# (LWPROF_NEED_ALL=1) shows what it shows by itself.  The views that sum
# the sync and I/O calls' metrics per stack (-functions, -calltree,
# -callers-callees, -lines, the folded and pprof exports) read them
# without their side table; with it (every record decoded, as -iostat,
# -statistics and the html and Perfetto exports read them) they show the
# same, byte for byte.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
exp=$(printf 'capture %s n=5\ntrace %s format=20\nusage auto\n' "$cap" "$cap" |
	gen_exp ok -)

# P EXP ARGS...: print's output (stdout and stderr), EXP's path as EXP
P() {
	local e=$1
	shift
	"$LWPROF" print "$@" "$e" 2>&1 | sed "s|$e|EXP|g"
	return "${PIPESTATUS[0]}"
}

# poke FMT OFF VALUE FILE: write VALUE packed as perl's FMT ('Q<', 'S<') at
# byte OFF of FILE
poke() {
	local fmt=$1 off=$2 val=$3 file=$4
	perl -e "print pack('$fmt', $val)" |
		dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

nrec=$("$LWPROF" dump "$exp" | grep -Ec '/(cpu|trace)\.[0-9]+\.rec\+[0-9]+: ')
ntr=$("$LWPROF" dump "$exp" | grep -c '^[^ ]*trace\.[0-9]*\.rec+[0-9]*: ')
check "$ntr" -eq 12 "dump: 12 trace records (8 allocations, 4 frees)"
h0=$(P "$exp" -header)
check $? -eq 0 "-header"
mib=$(stat -c %s "$exp"/cpu.*.rec "$exp"/trace.*.rec | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
grep -q "Records: *$nrec written, 0 lost; 3 files of $mib MiB, not read" <<<"$h0"
check $? -eq 0 "  log.txt's $nrec records, the files' $mib MiB, not read ($(grep Records <<<"$h0"))"
hr=$(P "$exp" -header -thread_list)
check $? -eq 0 "-header -thread_list"
grep -q "Records: *$nrec read, 5 samples, 8 traced calls, 0 lost" <<<"$hr"
check $? -eq 0 "  counts $nrec records, 5 samples, 8 traced calls ($(grep Records <<<"$hr"))"

# every record file unreadable: garbage of its size, then not a file
bad=$PRINT_OUT/garbage.er
cp -r "$exp" "$bad"
for f in "$bad"/cpu.*.rec "$bad"/trace.*.rec; do
	head -c "$(stat -c %s "$f")" /dev/urandom >"$f"
done
check "$(P "$bad" -header)" = "$h0" "garbage record files: -header as before"
out=$(P "$bad" -header -heap)
check $? -eq 1 "  -header -heap: exit 1 ($out)"
for f in "$bad"/cpu.*.rec "$bad"/trace.*.rec; do
	rm "$f" && mkdir "$f"
done
nosize() { sed 's/ files of [0-9.]* MiB/ files/'; }
check "$(P "$bad" -header | nosize)" = "$(nosize <<<"$h0")" \
	"record files that are directories: -header as before (but their size)"
P "$bad" -header -thread_list >/dev/null
check $? -eq 1 "  -header -thread_list: exit 1"
heap0=$(P "$exp" -heap -heapstat)
check $? -eq 0 "-heap -heapstat"
grep -q 'Allocations *8$' <<<"$heap0"
check $? -eq 0 "  8 allocations"
f0=$(P "$exp" -functions)
check $? -eq 0 "-functions"
check "$(LWPROF_NEED_ALL=1 P "$exp" -functions)" = "$f0" "  as with every record decoded"

# a clock packet whose value is not the sum of its microstates
off=$("$LWPROF" dump "$exp" | sed -n 's/^[^ ]*cpu\.[0-9]*\.rec+\([0-9]*\): SAMPLE clock .*/\1/p' | head -n 1)
cpuf=$("$LWPROF" dump "$exp" | sed -n 's/^[^ ]*\(cpu\.[0-9]*\.rec\)+[0-9]*: SAMPLE clock .*/\1/p' | head -n 1)
bad=$PRINT_OUT/badclock.er
cp -r "$exp" "$bad"
poke 'Q<' $((off + 32)) 12345 "$bad/$cpuf"
check "$(P "$bad" -header)" = "$h0" "damaged clock packet: -header as before"
check "$(P "$bad" -heap -heapstat)" = "$heap0" "  -heap -heapstat as before"
out=$(P "$bad" -functions)
check $? -eq 1 "  -functions: exit 1"
check "$out" = "lwprof print: EXP/$cpuf: byte $((off + 32)): clock value 12345 but microstates sum to 10000000" \
	"  -functions names the byte ($out)"
out=$(LWPROF_NEED_ALL=1 P "$bad" -header)
check $? -eq 1 "  -header with every record decoded (LWPROF_NEED_ALL): exit 1"

# a traced allocation on CPU 7 of 2
trf=$(cd "$exp" && ls trace.*.rec)
toff=$("$LWPROF" dump "$exp" | sed -n 's/^[^ ]*trace\.[0-9]*\.rec+\([0-9]*\): TRACE malloc.*/\1/p' | head -n 1)
bad=$PRINT_OUT/badcall.er
cp -r "$exp" "$bad"
poke 'S<' $((toff + 10)) 7 "$bad/$trf"
check "$(P "$bad" -header)" = "$h0" "damaged traced call: -header as before"
out=$(P "$bad" -heap)
check $? -eq 1 "  -heap: exit 1"
check "$out" = "lwprof print: EXP/$trf: byte $((toff + 10)): cpu 7 of 2" "  -heap names the byte ($out)"
P "$bad" -functions >/dev/null
check $? -eq 1 "  -functions: exit 1"
check "$(P "$exp" -functions)" = "$f0" "-functions on the undamaged one again"

# heap, I/O and sync calls in one trace file, the reads' stack copies
# deltas against the first allocation's: each kind's views decode their
# own kind alone, and show what they show with every record decoded
# (warnings included: the reads' copies keep their base)
mix=$(printf 'capture %s n=5\ntrace %s format=20\ntrace %s format=20 event=read calls=3 append=1 delta=1\ntrace %s format=20 event=pthread_mutex_lock wait=600 calls=6 append=1\nusage auto\n' \
	"$cap" "$cap" "$cap" "$cap" | gen_exp mix -)
check "$("$LWPROF" dump "$mix" | grep -c 'tstack delta size=[0-9]* base=1')" -ge 3 \
	"mixed: the reads' copies are deltas"
for v in -heap -heapstat -iostat -iocallstack; do
	out=$(P "$mix" $v)
	check $? -eq 0 "mixed: $v"
	check "$out" = "$(LWPROF_NEED_ALL=1 P "$mix" $v)" "  as with every record decoded"
done
for v in -functions -calltree -callers-callees -lines -statistics; do
	out=$(P "$mix" $v)
	check $? -eq 0 "mixed: $v"
	check "$out" = "$(LWPROF_NEED_ALL=1 P "$mix" $v)" "  as with the calls' side table"
done
grep -Eq '^ *6 +3 +<Total>$' <<<"$(P "$mix" -metrics e.syncn:e.ioreadcnt:name -functions)"
check $? -eq 0 "  -functions counts the 6 waits and 3 reads"
for x in folded pprof; do
	"$LWPROF" export $x -o "$PRINT_OUT/mix.$x" "$mix" 2>/dev/null
	LWPROF_NEED_ALL=1 "$LWPROF" export $x -o "$PRINT_OUT/mix.all.$x" "$mix" 2>/dev/null
	check "$(cmp "$PRINT_OUT/mix.$x" "$PRINT_OUT/mix.all.$x" && echo same)" = same \
		"  export $x: the same bytes as with the side table"
done
mheap=$(P "$mix" -heap -heapstat) mio=$(P "$mix" -iostat -iocallstack)
grep -q 'Read *3 *102 ' <<<"$mio"
check $? -eq 0 "  -iostat: 3 reads of 102 bytes"
trf=$(cd "$mix" && ls trace.*.rec)
for kind in read pthread_mutex_lock malloc; do
	toff=$("$LWPROF" dump "$mix" | sed -n "s/^[^ ]*trace\.[0-9]*\.rec+\([0-9]*\): TRACE $kind .*/\1/p" | head -n 1)
	bad=$PRINT_OUT/bad$kind.er
	rm -rf "$bad" && cp -r "$mix" "$bad"
	poke 'S<' $((toff + 10)) 7 "$bad/$trf"
	want="lwprof print: EXP/$trf: byte $((toff + 10)): cpu 7 of 2"
	case $kind in
	malloc)
		check "$(P "$bad" -iostat -iocallstack)" = "$mio" "a damaged $kind: -iostat -iocallstack as before"
		check "$(P "$bad" -heap)" = "$want" "  -heap names the byte" ;;
	*)
		check "$(P "$bad" -heap -heapstat)" = "$mheap" "a damaged $kind: -heap -heapstat as before"
		[ $kind = read ] || check "$(P "$bad" -iostat -iocallstack)" = "$mio" "  -iostat -iocallstack as before"
		[ $kind = pthread_mutex_lock ] || check "$(P "$bad" -iostat)" = "$want" "  -iostat names the byte" ;;
	esac
	check "$(P "$bad" -functions)" = "$want" "  -functions names the byte"
done
done_testing
