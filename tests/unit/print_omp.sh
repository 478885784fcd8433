#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The OpenMP metrics and views on the OMPT tool's records with known
# times (tests/data/exp/omp.gen): OpenMP Wait per thread, a wait paused
# by a task it ran counted as one; OpenMP Imbalance, each barrier's
# others' wait on the thread that came last, shared among its clock
# samples since it left the barrier before by their thread time (B 2/3
# and C 1/3 of 20 ms; E 20 ms; F 25 ms); its microstates where a wait
# has them; -omp_regions and -omp_tasks counting the region and the task;
# an event of an unknown kind passed over; the same experiment with
# each thread's implicit task, its barrier and the region in folded
# records (EXP_REC_OMP_FOLD) reads the same in every view.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp omp)
P() { "$LWPROF" print -printmode csv "$@" "$exp" 2>&1; }

for t in 77 78; do
	f=$(P -filters "TID == $t" -metrics e.ompwait:e.ompimbal:name -functions)
	case $t in
	77) want=0.020/0.045 ;;
	78) want=0.045/0.020 ;;
	esac
	check "$(csv_field "$f" '<Total>' 1)/$(csv_field "$f" '<Total>' 2)" = "$want" \
		"thread $t: OpenMP Wait / Imbalance"
done
f=$(P -metrics e.ompimbal:name -functions)
check "$(csv_field "$f" B 1)/$(csv_field "$f" C 1)" = 0.013/0.007 "78's blame: B 2/3, C 1/3 of 77's 20 ms"
check "$(csv_field "$f" E 1)/$(csv_field "$f" F 1)" = 0.020/0.025 "77's blame: E 20 ms (78's wait paused by a task is one), F 25 ms"
f=$(P -metrics e.ompwait:e.ompwait_user:name -functions)
check "$(csv_field "$f" '<Total>' 1)/$(csv_field "$f" '<Total>' 2)" = 0.065/0.020 "OpenMP Wait 65.2 ms, 20 ms of it User CPU where recorded"
r=$(P -omp_regions)
check "$(tail -n 1 <<<"$r" | awk -F, '{ print $(NF - 4) "/" $(NF - 3) "/" $(NF - 2) }')" = 1/2/0.100000 "-omp_regions: one region of 2 threads, 0.1 s"
r=$(P -omp_tasks)
check "$(tail -n 1 <<<"$r" | awk -F, '{ print $(NF - 3) "/" $(NF - 2) }')" = 1/0.010000 "-omp_tasks: one run of 10 ms"

# the region, its implicit tasks and their barriers folded
fexp=$(sed -e '/^omp 77 \(region\|itask\|implicit_barrier\) /d' \
	-e '/^usage /i omp 77 fold tid=77 t0=0 t1=100000000 bar0=99900000 region=1 bstack=2 obj=0x200000000 r0=0 r1=100000000 rstack=1 asked=2' \
	-e '/^usage /i omp 77 fold tid=78 t0=0 t1=100000000 bar0=75000000 region=1 bstack=2 obj=0x200000001' \
	"$DATA/exp/omp.gen" | gen_exp omp_fold -)
check "$("$LWPROF" dump "$fexp" | grep -c ': OMP_FOLD ')" -eq 2 "folded: two folded records"
for v in "-metrics e.ompwait:e.ompimbal:e.ompwork:name -functions" \
	 "-metrics e.ompwait:name -calltree" -omp_regions -omp_tasks \
	 "-filters TID==78 -metrics e.ompwait:name -functions"; do
	# shellcheck disable=SC2086
	a=$(P $v) b=$("$LWPROF" print -printmode csv $v "$fexp" 2>&1)
	check "$(sed "s|$fexp|EXP|g" <<<"$b")" = "$(sed "s|$exp|EXP|g" <<<"$a")" "folded: $v as unfolded"
done
done_testing
