#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Heap tracing end to end without the module (docs/design/tracing.md):
# collect -p off -H on runs tests/progs/trace_heap, which prints what each
# of its functions allocated, freed and leaked; lwprof print must show
# exactly that inclusive at each function, -leaks the leaks at their call
# sites, dump the trace records, and the main and second thread's calls
# and those made while signal handlers allocate must all be there, and
# the main thread's frees, a slice later, of blocks four threads made
# matched with them; so must the frames of a library loaded later
# (dlopen).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

prog=$LWPROF_BUILD/tests/progs/trace_heap
[ -e "$LWPROF_BUILD/liblwprof_trace.so" ] || { echo "FAIL: liblwprof_trace.so not built"; exit 1; }
exp=$PRINT_OUT/heap.er
truth=$("$LWPROF" collect -p off -H on -o "$exp" "$prog" signals 2>"$PRINT_OUT/collect.err"); rc=$?
check $rc -eq 0 "collect -p off -H on runs without the module"
check "$(grep -c '^truth ' <<<"$truth")" -eq 8 "the program said its truth for 8 functions"
grep -q '^source = tracing only$' "$exp/log.txt"; check $? -eq 0 "log.txt: tracing only"
grep -q '^trace = heap$' "$exp/log.txt"; check $? -eq 0 "log.txt: what was traced"
grep -Eq '^trace_calls = [1-9][0-9]*$' "$exp/log.txt"; check $? -eq 0 "log.txt: the calls adopted"
"$LWPROF" print -header "$exp" 2>/dev/null | grep -q '^  Tracing: *heap; stacks walked in the process; '
check $? -eq 0 "-header: heap stacks walked in the process, none copied"
check "$(ls "$exp" | grep -c '^trace\.[0-9]*\.rec$')" -eq 1 "one trace file (one process)"

csv=$("$LWPROF" print -printmode csv \
	-metrics i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes:name \
	-functions "$exp" 2>"$PRINT_OUT/print.err"); rc=$?
check $rc -eq 0 "print -functions with the heap metrics"
check "$(grep -c . "$PRINT_OUT/print.err")" -eq 0 "no warnings"
while read -r _ f n b l lb; do
	got="$(csv_field "$csv" "$f" 1) $(csv_field "$csv" "$f" 2) $(csv_field "$csv" "$f" 3) $(csv_field "$csv" "$f" 4)"
	check "$got" = "$n $b $l $lb" "$f: $n allocations, $b bytes, $l leaks, $lb bytes leaked"
done < <(grep '^truth ' <<<"$truth")

leaks=$("$LWPROF" print -leaks "$exp" 2>/dev/null)
grep -A2 '^Leak #[0-9]*: 3 leaks, 300 bytes$' <<<"$leaks" | grep -q '^    leak_a$'
check $? -eq 0 "-leaks: leak_a's 3 leaks of 300 bytes, at leak_a"
grep -A2 '^Leak #[0-9]*: 1 leaks, 4096 bytes$' <<<"$leaks" | grep -q '^    maps$'
check $? -eq 0 "-leaks: the mmap never unmapped, at maps"
allocs=$("$LWPROF" print -allocs "$exp" 2>/dev/null)
grep -A2 '^Allocation #[0-9]*: 1000 allocations, 64000 bytes$' <<<"$allocs" | grep -q '^    churn$'
check $? -eq 0 "-allocs: churn's 1000 allocations"
heap=$("$LWPROF" print -heap "$exp" 2>/dev/null)
grep -q '^Stack #[0-9]*: 5 allocations, 496 bytes; 0 leaks, 0 bytes leaked$' <<<"$heap"
check $? -eq 0 "-heap: the realloc chain, none leaked"
st=$("$LWPROF" print -printmode csv -heapstat "$exp" 2>/dev/null)
alloc=$(awk -F, '$1 == "Allocations" { print $2 }' <<<"$st")
check "$alloc" = "$(csv_field "$csv" '<Total>' 1)" "-heapstat: the allocations of <Total>"
check "$(awk -F, '$1 == "Peak bytes in use" { print ($2 >= 9362) }' <<<"$st")" = 1 \
	"-heapstat: the peak in use holds at least the leaks"
d=$("$LWPROF" dump "$exp" 2>/dev/null)
grep -Eq '^total: [0-9]+ TRACE, [0-9]+ FILE, [0-9]+ STACK$' <<<"$d"; check $? -eq 0 "dump: the trace records and their stacks"
grep -q '^  made posix_memalign stack=[1-9][0-9]* bytes=512 count=1 ' <<<"$d"; check $? -eq 0 "dump: a posix_memalign of 512 bytes"
if grep -q '^libz compress$' <<<"$truth"; then
	# compress() jumps to compress2(), which allocates in deflateInit2_()
	n=$(csv_field "$csv" deflateInit2_ 1)
	check "${n:-0}" -ge 1 "a library loaded by dlopen: its allocations in deflateInit2_ ($n)"
	check "$(csv_field "$csv" compress2 1)" = "$n" "  under compress2"
fi
h=$(grep -c 'signal handlers ran' "$PRINT_OUT/collect.err")
check "$h" -eq 1 "the run with allocating signal handlers finished"
done_testing
