#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenMP tasks and nested regions through the OMPT tool and the perf
# backend, against what the program measured itself
# (tests/progs/omp/sync, tests/lib/omp.sh):
#  - tasks made by thread 0 and run at its taskwait and at the others'
#    barrier: the time a thread runs tasks in a wait is work, not wait;
#    each thread's wait within 2% of its measure; each task run a span
#    of its own (lwprof dump); -omp_tasks lists them at the task
#    construct's line, -omp_regions their region at its line;
#  - nested regions (2 x 2 threads): each inner thread's barrier wait;
#    in user mode work() is nested()'s callee on all four;
# under OMP_WAIT_POLICY active, passive, and three threads on one CPU;
# the tasks of a gcc-built program through --omp-runtime llvm.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/omp.sh"

omp_setup omp_tasks
omp_build clang sync
command -v taskset >/dev/null || skip "no taskset"

# tasks: thread 0 reports its taskwait and its barrier
for policy in active passive; do
	omp_run "tasks-$policy" 2 sync.clang tasks 4 10 3 OMP_WAIT_POLICY=$policy
	omp_run "nested-$policy" 2 sync.clang nested 4 10 4 OMP_WAIT_POLICY=$policy
done
omp_run tasks-pinned 3 sync.clang tasks 4 10 4 taskset -c 0
if omp_have_gcc; then	# gcc-built, run on libomp (--omp-runtime llvm)
	omp_build gcc sync
	omp_run tasks-gcc 2 sync.gcc tasks 4 10 3
else
	echo "# no gcc -fopenmp: the libgomp shim is not checked"
fi

"$LWPROF" dump tasks-passive.er >tasks.dump 2>&1
n=$(grep -c ' task pid=' tasks.dump)
check "$n" -eq 16 "tasks: each of the 16 task runs is a span ($n)"

# the views by source line: the task construct and the tasks' region
src=$omp_src/sync.c
tline=$(grep -n '#pragma omp task firstprivate' "$src" | cut -d: -f1)
rline=$(awk '/^static void tasks\(/ { on = 1 } on && /#pragma omp parallel/ { print NR; exit }' "$src")
"$LWPROF" print -printmode csv -omp_tasks tasks-passive.er >tasks.csv 2>&1
sed 's/^/#   /' tasks.csv
check "$(awk -F, -v l="line $tline in" 'index($0, l) { print $(NF - 3) }' tasks.csv)" = 16 \
	"-omp_tasks: 16 runs of the task construct at line $tline"
"$LWPROF" print -printmode csv -omp_regions tasks-passive.er >regions.csv 2>&1
sed 's/^/#   /' regions.csv
check "$(awk -F, -v l="tasks, line $rline in" 'index($0, l) { print $(NF - 4) "/" $(NF - 3) }' regions.csv)" = 1/2 \
	"-omp_regions: the region at line $rline, once, of 2 threads"

"$LWPROF" print -csingle work nested-passive.er >nested.cs 2>&1
check "$(grep -cE '[[:space:]]nested$' nested.cs)" -ge 1 "nested, user: nested() calls work"
check "$(grep -cE '[[:space:]](\.omp_outlined\.|__kmp.*|<Total>)$' nested.cs)" -eq 0 "nested, user: no other caller of work"
done_testing
