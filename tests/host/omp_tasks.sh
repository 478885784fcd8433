#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenMP tasks and nested regions through the OMPT tool and the perf
# backend, against what the program measured itself
# (tests/progs/omp/sync, tests/lib/omp.sh):
#  - tasks made by thread 0 and run at its taskwait and at the others'
#    barrier: the time a thread runs tasks in a wait is work, not wait;
#    each thread's wait within 2% of its measure; each task run a span
#    of its own (lwprof dump);
#  - nested regions (2 x 2 threads): each inner thread's barrier wait;
#    in user mode work() is main's callee on all four;
# under OMP_WAIT_POLICY active, passive, and three threads on one CPU.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/omp.sh"

omp_setup omp_tasks
omp_build clang sync
command -v taskset >/dev/null || skip "no taskset"

# tasks: thread 0 reports its taskwait and its barrier
for policy in active passive; do
	omp_run "tasks-$policy" 2 sync tasks 4 10 3 OMP_WAIT_POLICY=$policy
	omp_run "nested-$policy" 2 sync nested 4 10 4 OMP_WAIT_POLICY=$policy
done
omp_run tasks-pinned 3 sync tasks 4 10 4 taskset -c 0

"$LWPROF" dump tasks-passive.er >tasks.dump 2>&1
n=$(grep -c ' task pid=' tasks.dump)
check "$n" -ge 16 "tasks: each of the 16 task runs is a span ($n)"

"$LWPROF" print -csingle work nested-passive.er >nested.cs 2>&1
check "$(grep -cE '[[:space:]]main$' nested.cs)" -ge 1 "nested, user: main calls work"
check "$(grep -cE '[[:space:]](\.omp_outlined\.|__kmp.*|<Total>)$' nested.cs)" -eq 0 "nested, user: no other caller of work"
done_testing
