#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenMP through the OMPT tool, with the perf backend: barrier imbalance
# with known work (tests/progs/omp/imbal: thread k works (k + 1) units a
# round, then waits at an explicit barrier, and measures its own waits):
#  - log.txt says the tool was on (auto: the program links libomp) and
#    which runtime started it;
#  - each thread's OpenMP Wait at <OMP-explicit_barrier> is what it
#    measured, within 2% (and 50 us a barrier: the program's clock reads
#    and the tool's sit on either side of the runtime's entry);
#  - OpenMP Imbalance: the others' waits at each barrier, charged to the
#    thread that came last (by the program's clock), on work();
#  - user mode: work() is main's callee on every thread, less than 1% of
#    the time on a frame of libomp;
#  - a gcc-built program (libgomp, no OMPT): log.txt says OpenMP metrics
#    are absent and why; with --omp-runtime llvm it runs on libomp, and
#    its waits are measured as clang's are;
#  - a program without OpenMP: no tool, no trace file, no word of it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/omp.sh"

omp_setup omp_waits
omp_build clang imbal

OMP_NUM_THREADS=2 "$LWPROF" collect --backend perf -p 1ms -o c.er \
	./imbal.clang 10 10 >c.out 2>c.err
check $? -eq 0 "collect of a clang OpenMP program"
sed 's/^/#   /' c.err c.out
check "$(grep -c '^openmp = on (auto)' c.er/log.txt)" -eq 1 "log.txt: openmp = on (auto)"
check "$(grep -c '^openmp_runtime = process [0-9]*: LLVM.*OMPT active' c.er/log.txt)" -eq 1 "log.txt: the runtime that started the tool"
omp_waits_check c.er c.out clang 2
omp_blame_check c.er c.out clang

"$LWPROF" print -csingle work c.er >cs.out 2>&1
callers=$(awk '/^Callers/ { on = 1; next } /^Callees|^Stack|^$/ { on = 0 } on' cs.out | grep -c .)
check "$(grep -cE '[[:space:]]main$' cs.out)" -ge 1 "user: main calls work"
check "$(grep -cE '[[:space:]](<Total>|\.omp_outlined\.|__kmp.*)$' cs.out)" -eq 0 "user: work has no other caller ($callers lines)"
"$LWPROF" print -printmode csv -metrics e.total:name -objects c.er >obj.out 2>&1
rt=$(awk -F, '/libomp/ { s += $1 } END { printf "%.6f", s + 0 }' obj.out)
all=$(awk -F, '$2 == "<Total>" { print $1 }' obj.out)
check "$(omp_frac "$rt" "$all")" -lt 100 "user: libomp's frames hold under 1% ($rt of $all s)"

if omp_have_gcc; then
	omp_build gcc imbal
	OMP_NUM_THREADS=2 "$LWPROF" collect --backend perf -o g.er ./imbal.gcc 2 5 >g.out 2>g.err
	check $? -eq 0 "collect of a gcc OpenMP program"
	check "$(grep -c '^openmp = on; the program links GNU libgomp, which has no OMPT' g.er/log.txt)" -eq 1 "log.txt: libgomp has no OMPT"
	check "$(grep -c '^openmp_runtime = none started' g.er/log.txt)" -eq 1 "log.txt: OpenMP metrics absent"
	OMP_NUM_THREADS=2 "$LWPROF" collect --backend perf -p 1ms --omp-runtime llvm -o s.er \
		./imbal.gcc 10 10 >s.out 2>s.err
	check $? -eq 0 "collect --omp-runtime llvm of a gcc OpenMP program"
	sed 's/^/#   /' s.err
	check "$(grep -c '^openmp_runtime = process [0-9]*: LLVM.*OMPT active' s.er/log.txt)" -eq 1 "--omp-runtime llvm: libomp started the tool"
	omp_waits_check s.er s.out "gcc on libomp" 2
else
	echo "# no gcc -fopenmp: the libgomp shim is not checked"
fi

"$LWPROF" collect --backend perf -o n.er /bin/true >/dev/null 2>n.err
check $? -eq 0 "collect of a program without OpenMP"
check "$(grep -c '^openmp' n.er/log.txt)" -eq 0 "no OpenMP: log.txt says nothing of it"
check "$(ls n.er | grep -c '^trace\.')" -eq 0 "no OpenMP: no trace file"
done_testing
