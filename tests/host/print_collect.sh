#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof print reads what lwprof collect writes: an experiment recorded on
# the host against the fake module (tests/lib/fake_ring.c), its sums set
# against lwprof dump's reading of the same records.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
[ -e "$fake" ] || { echo "FAIL: $fake not built (run make)"; exit 1; }
tmp=$LWPROF_OUT/print/print_collect
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp" || exit 1
export FAKE_LWPROF_LOG=$tmp/fake.log FAKE_LWPROF_COPY=$tmp/ring \
	FAKE_LWPROF_DONE=$tmp/done FAKE_LWPROF_RING_PAGES=1 FAKE_LWPROF_SAMPLES=300
timeout 60 "$BASH" -c "LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null $LWPROF collect -m 1 sh -c 'until [ -e $tmp/done ]; do sleep 0.01; done'" \
	2>collect.err
check $? -eq 0 "collect with the fake module"
e=test.1.er
LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" dump $e >dump.txt
want=$(awk '/: SAMPLE / { for (i = 1; i <= NF; i++) if ($i ~ /^value=/) { sub("value=", "", $i); s += $i } }
	END { printf "%.3f", s / 1e9 }' dump.txt)
out=$("$LWPROF" print -printmode csv -metrics i.total:name -functions $e 2>err.txt); rc=$?
check $rc -eq 0 "print reads the recorded experiment"
check "$(awk -F, '$NF == "<Total>" { print $1 }' <<<"$out")" = "$want" "<Total> = the sum of the samples dump reads ($want s)"
grep -q "records were lost" err.txt; check $? -eq 0 "print warns about the lost records"
out=$("$LWPROF" print -header -thread_list $e 2>/dev/null)
# as many records as dump reads (the MMAP records are of collect's own
# mappings, so their number follows the libraries lwprof links)
nrec=$(sed -n 's/^total: \([0-9]*\) records.*/\1/p' dump.txt)
grep -q "Records: *$nrec read, 600 samples, 14 lost" <<<"$out"; check $? -eq 0 "header: $nrec records (as dump), 600 samples, 14 lost"
check "$(grep -c ' fake-worker [12] ' <<<"$out")" -eq 2 "thread names with a space"
out=$("$LWPROF" print -statistics $e 2>/dev/null)
check "$(grep -c '^  Thread [123]: tid' <<<"$out")" -eq 3 "statistics: three threads with usage.txt's totals"
done_testing
