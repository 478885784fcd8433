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
#  - tasks made in spawn(), a function the region's body calls, each
#    taking an omp lock, run by the team at a barrier: in user mode
#    task_locked() is spawn()'s callee on each thread that ran one (a
#    worker's native stack has no spawn()), and the tasks' lock waits
#    are task_locked()'s, within 2% of what each thread measured;
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

# tasks under the stack that made them: which threads ran them varies
OMP_NUM_THREADS=2 "$LWPROF" collect --backend perf -p 1ms -o taskmade.er \
	./sync.clang taskmade 6 10 >taskmade.out 2>taskmade.err
check $? -eq 0 "taskmade: collect"
sed 's/^/#   /' taskmade.err
n=$(grep -c '^wait ' taskmade.out)
check "$n" -ge 1 "taskmade: threads that ran tasks reported ($n)"
omp_waits_check taskmade.er taskmade.out taskmade "$n"
"$LWPROF" print -csingle task_locked taskmade.er >tm.cs 2>&1
check "$(grep -cE '[[:space:]]spawn$' tm.cs)" -eq 1 "taskmade, user: spawn() calls task_locked()"
check "$(grep -cE '[[:space:]](taskmade|\.omp_.*|__kmp.*|<Total>)$' tm.cs)" -eq 0 \
	"taskmade, user: task_locked() has no other caller"
"$LWPROF" print -csingle '<OMP-lock>' taskmade.er >tml.cs 2>&1
check "$(grep -cE '[[:space:]]task_locked$' tml.cs)" -eq 1 "taskmade, user: the lock waits are task_locked()'s"
check "$(grep -cE '[[:space:]](spawn|taskmade|\.omp_.*|__kmp.*|<Total>)$' tml.cs)" -eq 0 \
	"taskmade, user: <OMP-lock> has no other caller"
"$LWPROF" print -printmode csv -metrics i.ompwait:e.ompwait:name -functions \
	taskmade.er >tm.csv 2>&1
lock=$(awk -F, '$3 == "<OMP-lock>" { print $2 }' tm.csv)
check "$(awk -F, '$3 == "spawn" { print $1 }' tm.csv)" = "${lock:-none}" \
	"taskmade, user: spawn()'s OpenMP Wait holds the lock waits (${lock:-none} s)"
while read -r _ tid _; do
	"$LWPROF" print -filters "TID == $tid" -csingle task_locked taskmade.er >tmt.cs 2>&1
	check "$(grep -cE '[[:space:]]spawn$' tmt.cs)" -eq 1 "taskmade, user: thread $tid's tasks are spawn()'s"
done < <(grep '^wait ' taskmade.out)

"$LWPROF" print -csingle work nested-passive.er >nested.cs 2>&1
check "$(grep -cE '[[:space:]]nested$' nested.cs)" -ge 1 "nested, user: nested() calls work"
check "$(grep -cE '[[:space:]](\.omp_outlined\.|__kmp.*|<Total>)$' nested.cs)" -eq 0 "nested, user: no other caller of work"
done_testing
