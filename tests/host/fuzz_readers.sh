#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The experiment reader (libexp/reader.c) under its three users (lwprof
# print, lwprof dump, the archiver's rescan) on 400 deterministic
# mutations of the fuzz corpus, built with gcc's ASan
# and UBSan (scripts/fuzz-reader -m): no crash, no sanitizer report, and
# every complaint names the damaged file (and the offset in a cpu.N.rec);
# then the inputs it once crashed on (tests/data/fuzz).
# The long run is scripts/fuzz-reader (docs/design/reliability.md).  The seed is
# the day's, printed, so a failure is reproducible with -s.
. "$(dirname "$0")/../lib/test.sh"

gcc -fsanitize=address -x c -o /dev/null - <<<'int main(void){return 0;}' 2>/dev/null ||
	skip "gcc cannot build with -fsanitize=address"
seed=$(date +%Y%m%d)
out=$LWPROF_OUT/fuzz_readers
LWPROF_FUZZ_OUT=$out "$LWPROF_TOP/scripts/fuzz-reader" -m 400 -s "$seed" >"$out.log" 2>&1
rc=$?
grep -v '^lwprof collect: warning' "$out.log" | tail -n 20
check $rc -eq 0 "400 mutated inputs (seed $seed): no crash, every complaint names file and offset"
grep -q '^fuzz_main: 400 iterations, no crash$' "$out.log"
check $? -eq 0 "all 400 ran"

# What the fuzzer found once, each as it was found (tests/data/README.md).
for f in "$LWPROF_TOP"/tests/data/fuzz/*.rec; do
	rm -rf "$out/tmp" && mkdir -p "$out/tmp"
	FUZZ_READER_TMP=$out/tmp "$LWPROF_BUILD/fuzz/fuzz_main" -r "$f" >/dev/null 2>"$out.replay"
	rc=$?
	grep -h 'runtime error\|ERROR\|fuzz_reader:' "$out"/tmp/*.stderr "$out.replay" | head -n 3
	check $rc -eq 0 "$(basename "$f"): read by print, dump and the archiver without a report"
done
done_testing
