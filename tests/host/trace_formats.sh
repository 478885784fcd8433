#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace records of both formats (docs/design/experiment-format.md): gen_exp
# writes the same 8 allocations (4 freed) at a real stack
# (tests/progs/qsort_unwind's capture) as format 1.4's records (16 with
# whole and sdelta sample copies, 18 for frees) and as 1.5's compact ones
# (20: whole, then word deltas with and without runs; microstates), each
# encoded independently of the library and the reader.  lwprof print must
# give the same heap views for both, with the counts the generator wrote
# and the leaks unwound to main through qsort; format 1.10's heap counts
# of the same calls, on the stack libunwind walked at the capture (the
# tracing library's), give them too; dump shows the 1.5 records' deltas
# and microstates; a delta whose base number is not its base's is not
# rebuilt from the wrong copy (a warning, the leak's stack unknown), and
# a run past its image is damage named by file and offset.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
old=$(printf 'trace %s format=16\nusage auto\n' "$cap" | gen_exp old -)
new=$(printf 'trace %s format=20 ms=1\nusage auto\n' "$cap" | gen_exp new -)
cnt=$(printf 'trace %s format=21\nusage auto\n' "$cap" | gen_exp counted -)
f_old=$(ls "$old"/trace.*.rec)
f_new=$(ls "$new"/trace.*.rec)
u32() { od -An -tu4 -j "$1" -N4 "$2" | tr -d ' '; }
check "$(u32 12 "$f_old")" -eq 4 "the old trace file says format 1.4"
check "$(u32 12 "$f_new")" -eq 5 "the new one 1.5"
check "$(u32 12 "$(ls "$cnt"/trace.*.rec)")" -eq 10 "the counted one 1.10"

views() { "$LWPROF" print -heapstat -heap -leaks "$1" 2>"$PRINT_OUT/$2.err"; }
views "$old" old >"$PRINT_OUT/old.views"
check $? -eq 0 "print reads format 1.4's trace records"
views "$new" new >"$PRINT_OUT/new.views"
check $? -eq 0 "print reads format 1.5's"
check "$(cat "$PRINT_OUT/old.err" "$PRINT_OUT/new.err" | grep -c .)" -eq 0 "  no warnings"
diff "$PRINT_OUT/old.views" "$PRINT_OUT/new.views" >"$PRINT_OUT/views.diff"
check $? -eq 0 "-heapstat, -heap and -leaks the same for both ($(head -c 300 "$PRINT_OUT/views.diff"))"
views "$cnt" cnt >"$PRINT_OUT/cnt.views"
check $? -eq 0 "print reads format 1.10's heap counts ($(head -c 300 "$PRINT_OUT/cnt.err"))"
diff "$PRINT_OUT/new.views" "$PRINT_OUT/cnt.views" >"$PRINT_OUT/cnt.diff"
check $? -eq 0 "  -heapstat, -heap and -leaks the same as 1.5's ($(head -c 300 "$PRINT_OUT/cnt.diff"))"
"$LWPROF" dump "$cnt" >"$PRINT_OUT/cnt.dump" 2>&1
check $? -eq 0 "  dump reads them"
leaf=$(($(stat -c %s "$cap.pcs") / 8))
check "$(grep -c "^  made malloc stack=$leaf " "$PRINT_OUT/cnt.dump") $(grep -c "^  freed free stack=$leaf " "$PRINT_OUT/cnt.dump")" = \
	"8 4" "  inflated: 8 allocations, 4 frees at the leaf of the $leaf-node chain"
stat() { awk -v k="$1" 'index($0, k) == 1 { print $NF; exit }' "$PRINT_OUT/new.views"; }
check "$(stat Allocations) $(stat 'Bytes allocated') $(stat Frees) $(stat Leaks) $(stat 'Bytes leaked')" = \
	"8 284 4 4 144" "  8 allocations of 32..39 bytes, 4 freed, 4 leaks of 144 bytes"
stack=$(sed -n '/^Leak #1: 4 leaks, 144 bytes$/,/^$/p' "$PRINT_OUT/new.views" | tr -s ' \n' ' ')
grep -q ' cmp msort_with_tmp .* qsort_r main ' <<<"$stack"
check $? -eq 0 "  the leaks unwound from cmp through qsort to main ($stack)"

"$LWPROF" dump "$new" >"$PRINT_OUT/new.dump" 2>&1
check $? -eq 0 "dump reads the 1.5 file"
check "$(grep -c ': TRACE malloc .* size=' "$PRINT_OUT/new.dump") $(grep -c ': TRACE free ' "$PRINT_OUT/new.dump")" = \
	"8 4" "  8 allocations, 4 frees"
check "$(grep -c '^  tstack whole size=[0-9]* base=1$' "$PRINT_OUT/new.dump") $(grep -c '^  tstack delta .* base=1 runs=2 literal=3$' "$PRINT_OUT/new.dump") $(grep -c '^  tstack delta .* base=1 runs=0 literal=0$' "$PRINT_OUT/new.dump")" = \
	"1 4 3" "  one whole copy, 4 deltas with 2 runs of 3 words, 3 without"
grep -q '^  user=1003 system=2003 trap=3003 .* wait=10003$' "$PRINT_OUT/new.dump"
check $? -eq 0 "  the fourth call's microstates"
check "$(grep -c ': TRACE free .*size=40$' "$PRINT_OUT/new.dump")" -eq 4 "  a free is 40 bytes"

# the base number of the second call's delta (its tstack's base field)
off=$(sed -n 's/^.*trace\.[0-9]*\.rec+\([0-9]*\): TRACE malloc .*bytes=33 .*/\1/p' "$PRINT_OUT/new.dump")
bad=$PRINT_OUT/badbase.er
cp -r "$new" "$bad"
f_bad=$(ls "$bad"/trace.*.rec)
# 32 fixed, addr and bytes, 80 of microstates, then the tstack: base at +4
printf '\x07' | dd of="$f_bad" bs=1 seek=$((off + 32 + 16 + 80 + 4)) conv=notrunc status=none
"$LWPROF" print -leaks "$bad" >"$PRINT_OUT/bad.views" 2>"$PRINT_OUT/bad.err"
check $? -eq 0 "a delta naming another base: print goes on"
grep -q 'trace\.[0-9]*\.rec: 1 delta stack copies without their base' "$PRINT_OUT/bad.err"
check $? -eq 0 "  warning once with the count ($(cat "$PRINT_OUT/bad.err"))"
grep -q '^Leak #[0-9]: 1 leaks, 33 bytes$' "$PRINT_OUT/bad.views"
check $? -eq 0 "  that leak not given the base's stack"

# a run past the image: damage at the run's byte
cp "$f_new" "$f_bad"
printf '\xff\x7f' | dd of="$f_bad" bs=1 seek=$((off + 32 + 16 + 80 + 8)) conv=notrunc status=none
msg=$("$LWPROF" dump "$bad" 2>&1 >/dev/null)
check $? -eq 1 "a run past the image: dump exits 1"
check "$msg" = "lwprof dump: $f_bad: byte $((off + 32 + 16 + 80 + 8)): trace call delta run out of order or outside its image" \
	"  naming file and offset ($msg)"
done_testing
