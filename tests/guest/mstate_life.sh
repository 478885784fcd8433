#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Threads that exit, fork, exec and clone under accounting, and 1000
# short-lived threads: every thread the workload reports has exactly one
# row, in the right process (exec keeps the thread and its pid), there are
# no other rows, and every row's states sum to its REAL.  ptime passes the
# command's exit status through.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup life
ms_ptime "$ms_progs/ms_life" 1000

pid_main=$(awk '$1 == "pid" && $2 == "main" { print $3 }' "$ms_dir/prog.out")
pid_fork=$(awk '$1 == "pid" && $2 == "forked" { print $3 }' "$ms_dir/prog.out")
pid_exec=$(awk '$1 == "pid" && $2 == "exec" { print $3 }' "$ms_dir/prog.out")
check "$pid_exec" = "$pid_fork" "exec keeps the pid ($pid_fork)"

awk '$1 == "tid" { print $3 }' "$ms_dir/prog.out" | sort -n | uniq >"$ms_dir/want"
awk 'NR > 1 { print $2 }' "$ms_dir/table" | sort -n >"$ms_dir/got"
check "$(wc -l <"$ms_dir/want")" -eq 1004 "the workload reported 1004 threads"
check "$(uniq -d "$ms_dir/got" | wc -l)" -eq 0 "no thread has two rows"
missing=$(comm -23 "$ms_dir/want" "$ms_dir/got" | tr '\n' ' ')
extra=$(comm -13 "$ms_dir/want" "$ms_dir/got" | tr '\n' ' ')
check -z "$missing" "every thread has a row (missing: ${missing:-none})"
check -z "$extra" "no rows for other threads (extra: ${extra:-none})"

for role in main exiter; do
	check "$(awk -v t="$(ms_tid $role)" 'NR > 1 && $2 == t { print $1 }' "$ms_dir/table")" = "$pid_main" \
		"$role's row is in process $pid_main"
done
for role in forked clone; do
	check "$(awk -v t="$(ms_tid $role)" 'NR > 1 && $2 == t { print $1 }' "$ms_dir/table")" = "$pid_fork" \
		"$role's row is in process $pid_fork"
done
nshort=$(awk -v p="$pid_main" 'NR > 1 && $1 == p' "$ms_dir/table" | wc -l)
check "$nshort" -eq 1002 "process $pid_main has 1002 rows (main, exiter, 1000 short-lived)"
zero=$(awk 'NR > 1 && $3 <= 0' "$ms_dir/table" | wc -l)
check "$zero" -eq 0 "every row has REAL > 0"
ms_check_sums

"$LWPROF" ptime -m -L sh -c 'exit 7' 2>/dev/null
check $? -eq 7 "ptime passes the command's exit status through (7)"
done_testing
