#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# viewmode user | expert | machine on a clang-built OpenMP program
# (tests/progs/omp/imbal: work() called in a parallel region of main),
# recorded with the perf backend without the OMPT tool (--omp off), so
# that only the frames say what is whose:
#  - machine: the runtime's entry (__kmpc_fork_call) and the outlined
#    body (.omp_outlined.) are there, as recorded;
#  - expert: the outlined body, no function of libomp;
#  - user: neither; work's caller is main, on the team's other thread
#    too (the frame that forked the region, from the stack trie); the
#    runtime's time is under <OMP-*> pseudo-functions; less than 1% of
#    the time shows a frame of libomp;
#  - the same sums in every mode (a mode moves time, never loses it), and
#    the export follows the mode (folded stacks);
#  - viewmode given twice switches back and forth.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/omp.sh"

omp_setup omp_viewmode
omp_build clang imbal

OMP_NUM_THREADS=2 "$LWPROF" collect --backend perf --omp off -p 1ms -o v.er \
	./imbal.clang 10 10 >prog.out 2>collect.err
check $? -eq 0 "collect --omp off of a clang OpenMP program"
sed 's/^/#   /' collect.err

funcs() {	# MODE: function names with inclusive total, csv
	"$LWPROF" print -viewmode "$1" -printmode csv -metrics i.total:name \
		-functions v.er 2>/dev/null
}
has() {	# MODE NAME
	[ -n "$(funcs "$1" | awk -F, -v n="$2" '$2 == n')" ]
}
total() {	# MODE
	funcs "$1" | awk -F, '$2 == "<Total>" { print $1 }'
}

check "$(has machine __kmpc_fork_call && echo y)" = y "machine: __kmpc_fork_call"
check "$(has machine .omp_outlined. && echo y)" = y "machine: .omp_outlined."
check "$(has expert .omp_outlined. && echo y)" = y "expert: .omp_outlined."
check "$(has expert __kmpc_fork_call || echo n)" = n "expert: no __kmpc_fork_call"
check "$(has user .omp_outlined. || echo n)" = n "user: no .omp_outlined."
check "$(has user __kmpc_fork_call || echo n)" = n "user: no __kmpc_fork_call"
check "$(total user)" = "$(total machine)" "user's total is machine's"
check "$(total expert)" = "$(total machine)" "expert's total is machine's"

"$LWPROF" print -viewmode user -csingle work v.er >cs.user 2>&1
check "$(grep -c '^ *[0-9.]* .*main$' cs.user)" -ge 1 "user: main calls work"
check "$(grep -cE '[[:space:]](<Total>|\.omp_outlined\.|__kmp.*|start_thread|clone3?)$' cs.user)" -eq 0 \
	"user: on every thread, main is work's only caller (the fork's frame, without OMPT)"
check "$(funcs user | grep -c "<OMP-")" -ge 1 "user: <OMP-*> pseudo-functions"

# less than 1% of the time in user mode on a frame of libomp
"$LWPROF" print -viewmode user -printmode csv -metrics e.total:name -objects v.er >obj.user 2>&1
rt=$(awk -F, '/libomp/ { s += $1 } END { printf "%.6f", s + 0 }' obj.user)
all=$(total machine)
check "$(omp_frac "$rt" "$all")" -lt 100 "user: libomp's frames hold under 1% ($rt of $all s)"

"$LWPROF" export folded -o user.folded v.er
"$LWPROF" export folded -o mach.folded -viewmode machine v.er
check "$(grep -c '__kmpc_fork_call' user.folded)" -eq 0 "export (user): no runtime frame"
check "$(grep -c '__kmpc_fork_call' mach.folded)" -ge 1 "export -viewmode machine: runtime frames"

# back and forth in one run
n=$("$LWPROF" print -viewmode machine -functions -viewmode user -functions \
	-viewmode machine -functions v.er 2>&1 | grep -c '__kmpc_fork_call')
check "$n" -eq 2 "viewmode machine, user, machine: runtime frames twice"
done_testing
