#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The per-pc CFI cache gives the stacks libdwfl gives.  tests/progs/
# unwind_sampler (-O2 -fomit-frame-pointer) snapshots its registers and
# stack wherever a 200 us profiling timer hits it (its own code, libc's
# qsort, memmove, strtod, snprintf: prologues, epilogues, leaf code), 512
# times; gen_exp makes each a sample with only the pc as frame-pointer
# stack.  LWPROF_UNWIND=check unwinds every sample both with the cache and
# with libdwfl and counts the samples whose frames differ: none may.  The
# cache must have done the work (few steps for many frames, almost no
# sample given to libdwfl), and the views must be the same with the cache
# off.  Ground truth: the workload runs under main, so main is on (almost)
# every stack.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/sampler.cap
n=512
"$LWPROF_BUILD/tests/progs/unwind_sampler" "$cap" $n || { echo "FAIL: unwind_sampler"; exit 1; }
exp=$(printf 'capture %s\nusage auto\n' "$cap" | gen_exp sampler -)

stats=$(LWPROF_UNWIND=check LWPROF_UNWIND_STATS=1 "$LWPROF" print -functions "$exp" 2>&1 >/dev/null)
echo "$stats"
num() { sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" <<<"$stats"; }
samples=$(sed -n 's/.*: \([0-9]*\) samples,.*/\1/p' <<<"$stats")
check "$samples" -eq $n "all $n samples unwound ($samples)"
check "$(num differ)" -eq 0 "cached and libdwfl stacks identical in every sample"
check "$(num unwound)" -ge $((n * 95 / 100)) "at least 95% unwound by CFI ($(num unwound))"
steps=$(num 'cached steps') frames=$(sed -n 's/.* for \([0-9]*\) frames.*/\1/p' <<<"$stats")
check "$frames" -ge $((n * 5)) "at least 5 frames a sample stepped by the cache ($frames)"
check "$steps" -lt $((frames / 4)) "each pc's step made once ($steps steps for $frames frames)"
check "$(num 'samples by libdwfl')" -le $((n / 20)) "at most 5% of samples left to libdwfl ($(num 'samples by libdwfl'))"

for view in -calltree -pcs -callers-callees; do
	a=$(LWPROF_UNWIND=nocache "$LWPROF" print -metrics e.user:i.user:name $view "$exp")
	b=$("$LWPROF" print -metrics e.user:i.user:name $view "$exp")
	check "$a" = "$b" "$view: the same with the cache off"
done

csv=$("$LWPROF" print -printmode csv -metrics i.user:name -functions "$exp")
total=$(csv_field "$csv" '<Total>' 1) main=$(csv_field "$csv" main 1)
check "$(awk -v m="$main" -v t="$total" 'BEGIN { print (m >= 0.95 * t) }')" -eq 1 \
	"main inclusive $main of $total"
done_testing
