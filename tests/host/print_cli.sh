#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof print's command line: help, commands from standard input and from
# a -script file, -outfile, the default view when no command comes, exit
# codes, several experiments at once, and -statistics' precise/sampled
# ratio (usage.txt's totals scaled by 0.8 against the samples).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp seed)
out=$("$LWPROF" --help); grep -q '^  print ' <<<"$out"
check $? -eq 0 "lwprof --help lists print"
out=$("$LWPROF" print -help); rc=$?
check $rc -eq 0 "print -help exits 0"
for c in functions callers-callees calltree objects lines pcs source disasm \
	fsingle csingle metrics metric_list sort limit thread_list cpu_list \
	sample_list thread_select cpu_select filters statistics header \
	overview printmode outfile script name; do
	grep -q "^  $c " <<<"$out" || { echo "FAIL: help misses $c"; t_failed=1; }
done
"$LWPROF" print >/dev/null 2>&1; check $? -eq 2 "no experiment: exit 2"
"$LWPROF" print -frobnicate "$exp" >/dev/null 2>&1; check $? -eq 2 "unknown option: exit 2"
"$LWPROF" print "$exp" -metrics >/dev/null 2>&1; check $? -eq 2 "missing argument: exit 2"

# no command: commands from standard input; none at all: -functions
a=$("$LWPROF" print "$exp" </dev/null)
b=$("$LWPROF" print -functions "$exp")
check "$a" = "$b" "no command and nothing on stdin: the -functions view"
grep -q '^Excl. Total Thread  Incl. Total Thread  Excl. User CPU  Excl. System CPU  Name$' <<<"$a"
check $? -eq 0 "default metrics: total, then the states with data"
a=$(printf '# a comment\nmetrics e.user:name\nlimit 2\nfunctions\nbogus\nquit\nfunctions\n' |
	"$LWPROF" print "$exp" 2>"$PRINT_OUT/err"); rc=$?
check $rc -eq 1 "a bad command on stdin: exit 1 at the end"
check "$(grep -c 'sorted by metric' <<<"$a")" -eq 1 "quit stops reading"
check "$(sed -n '6,$p' <<<"$a" | awk '{ print $2 }' | tr '\n' ' ')" = "B C " "limit 2: two rows after <Total>"
grep -q "'bogus' is not a command" "$PRINT_OUT/err"; check $? -eq 0 "says which command is unknown"

printf 'metrics i.total:name\nsort name\nfunctions\n' >"$PRINT_OUT/script"
a=$("$LWPROF" print -script "$PRINT_OUT/script" -outfile "$PRINT_OUT/o.txt" -overview "$exp")
check "$(awk '$2 == "A" { print $1 }' <<<"$a")" = 10.000 "-script runs its commands"
check "$(awk 'NR > 5 { print $2 }' <<<"$a" | head -n 1)" = A "sort name"
grep -q 'Total Thread Time' "$PRINT_OUT/o.txt"; check $? -eq 0 "-outfile gets what follows"

# two experiments: the samples add up
a=$("$LWPROF" print -printmode csv -metrics i.total:name -functions "$exp" "$(gen_exp recursion)")
check "$(csv_field "$a" '<Total>' 1)" = 41.000 "two experiments: 32 + 9 units"
check "$(csv_field "$a" main 1)" = 41.000 "main of both"
"$LWPROF" print -experiment_list "$exp" "$PRINT_OUT/recursion.er" | grep -q '^2 '
check $? -eq 0 "experiment_list lists both"

scaled=$(sed '/^usage/d' "$DATA/exp/seed.gen"; echo "usage 4242 4242 0.8")
exp=$(gen_exp scaled - <<<"$scaled")
s=$("$LWPROF" print -statistics "$exp")
check "$(awk '/^  Thread/ { t = 1 } t && $1 == "User" { print $3, $4, $5; exit }' <<<"$s")" \
	= "17.600000 22.000000 1.2500" "statistics: precise 17.6 s, sampled 22 s, ratio 1.25"
check "$(awk '/^Process/ { p = 1 } p && $1 == "Total" { print $4; exit }' <<<"$s")" = 1.2500 "process total ratio"
done_testing
