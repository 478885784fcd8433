#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory pressure (the reliability battery): a whole-machine session with
# the largest stack copies (-S 65536, 1 ms) while a program starts 2000
# threads and a hog holds all but about 48 MiB of the guest's available
# memory.  The module allocates thread entries in the fork probe
# (GFP_ATOMIC) and must count, not crash on, a failure: collect exits 0,
# every file reads back, print reads the experiment, and any thread the
# module could not account is reported in log.txt.  The runner fails the
# test on any splat.  LWPROF_STRESS_THREADS (default 2000) sizes it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/collect.sh"

load_lwprof
need_sampling
nthr=${LWPROF_STRESS_THREADS:-2000}
work=$(mktemp -d /tmp/stress_pressure.XXXXXX) || exit 1
cd "$work" || exit 1
echo -1000 >/proc/self/oom_score_adj	# collect inherits it: the hog goes first

"$LWPROF" collect -a -p 1ms --stack-bytes 65536 -o p.er -t 8 >/dev/null 2>collect.err &
rec=$!
sleep 1
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
hog=$((avail > 112 ? avail - 48 : 64))
echo "# MemAvailable $avail MiB; the hog holds $hog MiB"
coproc HOG { echo 1000 >/proc/self/oom_score_adj; exec "$LWPROF_BUILD/tests/progs/mem_hog" $hog 8; }
read -r -t 120 ready <&"${HOG[0]}"
check "$ready" = ready "the hog holds its memory"
echo "# MemAvailable under the hog: $(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo) MiB"
ulimit -s 256	# thread stacks of 256 KiB: 2000 threads fit
"$LWPROF_BUILD/tests/progs/nthreads" "$nthr" 500 >nthreads.out
check $? -eq 0 "nthreads $nthr ran under pressure"
check "$(grep -c '^tid ' nthreads.out)" -eq "$nthr" "all $nthr threads reported"
wait $rec
check $? -eq 0 "collect -a exits 0 ($(grep -v records collect.err | head -n 2))"
"$LWPROF" dump p.er >/dev/null 2>dump.err
check $? -eq 0 "dump reads every file ($(head -n 2 dump.err))"
"$LWPROF" print -statistics p.er >/dev/null 2>print.err
check $? -eq 0 "print reads it"
echo "# records $(key p.er records), lost $(key p.er lost); $(grep -c 'not accounted' p.er/log.txt) warnings of threads not accounted"
wait
done_testing
