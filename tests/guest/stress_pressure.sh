#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory pressure (the reliability battery): a whole-machine session with
# the largest stack copies (--stack-bytes 65536, 1 ms) over a program that starts
# 2000 threads, while a hog holds all of the guest's available memory but
# what those threads need for themselves and 48 MiB.  The module must
# account every thread (its entries come from the fork probe, GFP_ATOMIC;
# a failure is counted and reported in log.txt, not a crash), sample them,
# and keep its optional buffers (128 KiB stack-delta bases) out of the
# last memory (lwprof_spare_alloc()): collect exits 0, every file reads
# back, print reads the experiment.  The runner fails the test on any
# splat.  The experiment goes to $LWPROF_OUT, out of the guest's memory.
# LWPROF_STRESS_THREADS (default 2000) sizes it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup stress_pressure
nthr=${LWPROF_STRESS_THREADS:-2000}
mkdir -p "$keep" || exit 1
exp=$keep/p.er
echo -1000 >/proc/self/oom_score_adj	# collect inherits it: the hog goes first
avail() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }

# What nthreads needs: 2000 threads took 27 MiB of MemAvailable in the
# test guest (kernel stacks, tasks, page tables, touched stack pages).
need=$((nthr * 24 / 1024))
a0=$(avail)
hog=$((a0 > need + 112 ? a0 - need - 48 : 64))
echo "# MemAvailable $a0 MiB; the hog holds $hog MiB"
coproc HOG { echo 1000 >/proc/self/oom_score_adj; exec "$progs/mem_hog" $hog 600; }
read -r -t 300 ready <&"${HOG[0]}"
check "$ready" = ready "the hog holds its memory"
echo "# MemAvailable under the hog: $(avail) MiB"
(while sleep 0.5; do avail; done) >avail.log &
mon=$!
ulimit -s 256	# thread stacks of 256 KiB: 2000 threads fit
"$LWPROF" collect -a -p 1ms --stack-bytes 65536 -o "$exp" \
	"$progs/nthreads" "$nthr" 500 >nthreads.out 2>collect.err
check $? -eq 0 "nthreads $nthr ran under pressure, collect -a exits 0 ($(grep -v records collect.err | head -n 2))"
kill $mon "$HOG_PID" 2>/dev/null
echo "# MemAvailable during the run: $(sort -n avail.log | head -n 1) to $(sort -n avail.log | tail -n 1) MiB"
check "$(grep -c '^tid ' nthreads.out)" -eq "$nthr" "all $nthr threads reported"
"$LWPROF" dump "$exp" >dump.txt 2>dump.err
check $? -eq 0 "dump reads every file ($(head -n 2 dump.err))"
"$LWPROF" print -statistics "$exp" >/dev/null 2>print.err
check $? -eq 0 "print reads it"

# Every thread of nthreads accounted (usage.txt), or reported as not.
pid=$(key "$exp" target)
acc=$(awk -v p="$pid" '$1 == p' "$exp/usage.txt" | wc -l)
nacc=$(sed -n 's/.* \([0-9]*\) threads were not accounted.*/\1/p' "$exp/log.txt")
check $((acc + ${nacc:-0})) -eq $((nthr + 1)) "$acc threads accounted, ${nacc:-0} reported not: $((nthr + 1))"
# Sampled: each sleep of 500 ms spans grid points, so each thread owes a
# packet (records lost to full rings aside).
awk -v p="pid=$pid" '$2 == "SAMPLE" && $5 == p { n++; t[$6]; if ($0 ~ /SBASE/) b[$6] }
	END { print n + 0, length(t), length(b) }' dump.txt >sampled
read -r npk nsamp nbase <sampled
echo "# $npk packets of $nsamp threads, $nbase of them with a stack-delta base; records $(key "$exp" records), lost $(key "$exp" lost)"
check "$nsamp" -ge $((nthr * 9 / 10)) "at least 90% of the threads sampled ($nsamp)"
[ "$t_failed" -eq 0 ] && rm -rf "$keep"
wait
collect_done
