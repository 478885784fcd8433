#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A thread's name is the one of its latest record by time over all
# cpu.N.rec files, not the last one read (tests/data/exp/names.gen: the
# older records are in cpu.1.rec, read last): the main thread is not
# named from its START record ("lwprof", its pre-exec name), nor the
# worker from its FORK ("xz-main").
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp names)
tl=$("$LWPROF" print -thread_list "$exp" 2>/dev/null)
name() { awk -v tid="$1" '$4 == tid { print $5 }' <<<"$tl"; }
check "$(name 300)" = xz-main "main thread: its COMM at 20 ms, not its START at 0"
check "$(name 301)" = xz-worker "worker: its COMM at 40 ms, not its FORK at 30 ms"
st=$("$LWPROF" print -statistics "$exp" 2>/dev/null)
check "$(grep -c '^Process 300 (xz-main)$' <<<"$st")" -eq 1 "statistics: process 300 is xz-main"
check "$(grep -c '^  Thread 2: tid 301 (xz-worker)' <<<"$st")" -eq 1 "statistics: thread 301 is xz-worker"
done_testing
