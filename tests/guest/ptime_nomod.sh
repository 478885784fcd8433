#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof ptime and top in the guest with the module not loaded (Debian's
# 6.1 kernel, not this host's): auto takes the perf backend and says so;
# three threads spinning on one CPU each get their time off CPU as LAT
# (2% or 5 ms, as in mstate_waitcpu with the module) and at least their
# CPU time as USER+SYS, from their taskstats exit records; nthreads'
# workers are asleep in SLP no longer than their nanosleep (+ a tick) and
# SLP+LAT+USR+SYS holds it (- 1 ms); the columns only the module fills
# are "-"; top of the whole machine runs as root.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/tracefs.sh"
. "$(dirname "$0")/../lib/ptime_perf.sh"

pp_setup guest/ptime_nomod
grep -q '^lwprof ' /proc/modules && rmmod lwprof
check ! -e /dev/lwprof "the module is not loaded"
wrap=notrace

err=$("$LWPROF" ptime true 2>&1); rc=$?
check $rc -eq 0 "ptime true runs without the module"
grep -q '^lwprof ptime: backend perf (/dev/lwprof is missing' <<<"$err"
check $? -eq 0 "auto took the perf backend and says why"
grep -q 'exited threads: exact (taskstats exit records)' <<<"$err"
check $? -eq 0 "taskstats exit records on Debian's 6.1"

pt waitcpu "$progs/ms_waitcpu"
check $? -eq 0 "ptime ms_waitcpu exits 0"
check_waitcpu waitcpu

pt nthreads "$progs/nthreads" 2 200
check "$(awk 'NR > 1' "$ms_dir/nthreads.table" | wc -l)" -eq 3 \
	"three rows: main and the two exited workers"
check_nthreads nthreads

"$LWPROF" top -b -n 1 -d 0.5 >"$ms_dir/top" 2>"$ms_dir/top.err"
check $? -eq 0 "top of the whole machine, as root, without the module"
check "$(awk '$1 ~ /^[0-9]+$/' "$ms_dir/top" | wc -l)" -ge 10 "it lists the machine's threads"
done_testing
