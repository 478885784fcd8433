#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenMP waits other than a barrier's, through the OMPT tool and the perf
# backend, against what the program measured itself
# (tests/progs/omp/sync): a critical section and an omp lock held for
# known times, and a reduction; each thread's OpenMP Wait at the
# construct's <OMP-*> function within 2% of its own measure
# (tests/lib/omp.sh), under OMP_WAIT_POLICY active (spinning), passive
# (sleeping), and with three threads on one CPU (taskset); a gcc-built
# one through --omp-runtime llvm, and its reduction: gcc merges a
# declared reduction's results under one lock, which libomp reports as
# an atomic's; each thread's wait for its turn is <OMP-reduction>.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/omp.sh"

omp_setup omp_sync
omp_build clang sync
command -v taskset >/dev/null || skip "no taskset"

for policy in active passive; do
	omp_run "critical-$policy" 2 sync.clang critical 4 20 2 OMP_WAIT_POLICY=$policy
	omp_run "lock-$policy" 2 sync.clang lock 4 20 2 OMP_WAIT_POLICY=$policy
	# thread 0 alone measures the region's end
	omp_run "reduction-$policy" 2 sync.clang reduction 6 20 1 OMP_WAIT_POLICY=$policy
done
# three threads on one CPU: a waiting thread waits for the CPU too
omp_run critical-pinned 3 sync.clang critical 4 10 3 taskset -c 0
omp_run lock-pinned 3 sync.clang lock 4 10 3 taskset -c 0
# gcc-built, run on libomp (--omp-runtime llvm)
if omp_have_gcc; then
	omp_build gcc sync
	omp_run critical-gcc 2 sync.gcc critical 4 20 2
	omp_run lock-gcc 2 sync.gcc lock 4 20 2
	omp_run reduction-gcc 2 sync.gcc udr 6 10 2
	omp_run reduction-gcc-passive 2 sync.gcc udr 6 10 2 OMP_WAIT_POLICY=passive
else
	echo "# no gcc -fopenmp: the libgomp shim is not checked"
fi
done_testing
