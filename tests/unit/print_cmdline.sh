#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command lines of print, export, dump and lwprof as a user meets them: er_print's
# unique command prefixes (-func is -functions, -f is ambiguous), the
# nearest name suggested for a mistyped command, setting or format, export's
# messages under its own name, "not an experiment directory" for a
# directory or file that is none, and an experiment of the perf backend
# (no usage.txt: no precise totals), which dump reads whole and whose
# -statistics shows no Precise 0 beside the sampled totals (tests/data/exp/
# seed.gen's 22 s of User CPU and 10 s of System CPU).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

seed=$(gen_exp seed)
P() { "$LWPROF" print "$@"; }
X() { "$LWPROF" export "$@"; }

# ---- prefixes ----
check "$(P -func "$seed")" = "$(P -functions "$seed")" "-func is -functions"
check "$(P -callers "$seed" | head -5)" = "$(P -callers-callees "$seed" | head -5)" "-callers is -callers-callees"
check "$(printf 'metrics e.user:name\nsor name\nfunc\n' | P "$seed")" = \
	"$(P -metrics e.user:name -sort name -functions "$seed")" "prefixes on standard input too (sor, func)"
err=$(P -f "$seed" 2>&1 >/dev/null); rc=$?
check "$rc: $err" = "2: lwprof print: '-f' is ambiguous: -functions -fsingle -filters (lwprof print -help)" \
	"-f: ambiguous, the commands it could be, status 2"
check "$(P -hel "$seed" | head -1)" = "usage: lwprof print [-COMMAND [ARG]]... EXPERIMENT... [-COMMAND [ARG]]..." \
	"-hel is -help"
err=$(P -he "$seed" 2>&1 >/dev/null)
check "$err" = "lwprof print: '-he' is ambiguous: -header -heap -heapstat -help (lwprof print -help)" \
	"-he is not (-header, -heap, -heapstat, -help)"
check "$(P -header "$seed" | grep -c 'Experiment:')" -ge 1 "-header is itself"
check "$(printf 'qu\nfunctions\n' | P "$seed" | wc -c)" = 0 "qu is quit (quit and exit are one command)"

# ---- the nearest name ----
err=$(P -fucntions "$seed" 2>&1 >/dev/null); rc=$?
check "$rc: $err" = "2: lwprof print: '-fucntions' is not a command; did you mean -functions? (lwprof print -help)" \
	"a swap of two letters: did you mean -functions"
err=$(P -caltree "$seed" 2>&1 >/dev/null)
check "$err" = "lwprof print: '-caltree' is not a command; did you mean -calltree? (lwprof print -help)" "a letter missing"
err=$(P -zzzzzz "$seed" 2>&1 >/dev/null)
check "$err" = "lwprof print: '-zzzzzz' is not a command (lwprof print -help)" "nothing near: no suggestion"
err=$(X folded -o - -thread_selct 1 "$seed" 2>&1 >/dev/null); rc=$?
check "$rc: $err" = "2: lwprof export: '-thread_selct' is not a setting; did you mean -thread_select? (lwprof export -h)" \
	"export: the nearest setting"
err=$(X folded -o - -functons "$seed" 2>&1 >/dev/null)
check "$err" = "lwprof export: '-functons' is not a setting (lwprof export -h)" "export: a view is never suggested"
err=$(X perfeto -o - "$seed" 2>&1 >/dev/null); rc=$?
check "$rc: $err" = "2: lwprof export: 'perfeto' is not a format; did you mean perfetto? (lwprof export -h)" \
	"export: the nearest format"
check "$(X folded -o - -thread_sel 1 "$seed")" = "$(X folded -o - -thread_select 1 "$seed")" "export: settings by prefix"
err=$("$LWPROF" colect true 2>&1); rc=$?
check "$rc: $err" = "2: lwprof: 'colect' is not a command; did you mean collect? (lwprof --help)" \
	"lwprof: the nearest command"
err=$("$LWPROF" collect --bakend perf true 2>&1); rc=$?
check "$rc: ${err%%;*}" = "2: lwprof collect: unknown option --bakend (did you mean --backend?)" \
	"collect: the nearest long option, then the valid ones"
for c in top ptime dump; do
	err=$("$LWPROF" $c --hepl 2>&1); rc=$?
	check "$rc: ${err%%;*}" = "2: lwprof $c: unknown option --hepl (did you mean --help?)" \
		"$c: the nearest long option"
	check "${err#*; valid: }" != "$err" "$c: then the valid ones"
done
err=$("$LWPROF" top --backend 2>&1); rc=$?
check "$rc: $err" = "2: lwprof top: option --backend needs a value" "top: a long option without its value"
err=$("$LWPROF" ptime -p 2>&1); rc=$?
check "$rc: $err" = "2: lwprof ptime: option -p needs a value" "ptime: a short option without its value"

# ---- messages ----
mkdir -p "$PRINT_OUT/empty"
for c in "P -functions" "X folded -o $PRINT_OUT/x.txt" "$LWPROF dump"; do
	n=${c%% *}
	[ "$n" = P ] && n="lwprof print"
	[ "$n" = X ] && n="lwprof export"
	[ "$n" = "$LWPROF" ] && n="lwprof dump"
	err=$($c "$PRINT_OUT/empty" 2>&1 >/dev/null)
	check "$err" = "$n: $PRINT_OUT/empty: not an experiment directory" "$n: a directory that is none"
done
err=$(P -functions /etc/passwd 2>&1 >/dev/null)
check "$err" = "lwprof print: /etc/passwd: not an experiment directory" "lwprof print: a file, the same message"
err=$(X folded -o "$PRINT_OUT/x.txt" /etc/passwd 2>&1 >/dev/null)
check "$err" = "lwprof export: /etc/passwd: not an experiment directory" "lwprof export: a file, the same message"
err=$(X folded -o "$PRINT_OUT/x.txt" "$PRINT_OUT/missing.er" 2>&1 >/dev/null)
check "$err" = "lwprof export: $PRINT_OUT/missing.er: No such file or directory" "export's errors are export's"
check "$("$LWPROF" --help | grep '^  export ')" = "  export     write experiments as pprof, Perfetto, folded stacks or an html report" \
	"lwprof --help: export's formats, html with them"

# ---- a perf-backend experiment: no usage.txt ----
pe=$(sed 's/^usage auto$/log backend perf/' "$DATA/exp/seed.gen" | gen_exp perfbe -)
check ! -e "$pe/usage.txt" "the perf backend's experiment has no usage.txt"
"$LWPROF" dump "$pe" >"$PRINT_OUT/perfbe.dump" 2>"$PRINT_OUT/perfbe.derr"
check "$?/$(cat "$PRINT_OUT/perfbe.derr")" = "0/" "dump reads it whole: status 0, no complaint"
check "$(grep -c ': SAMPLE ' "$PRINT_OUT/perfbe.dump")" = "$(grep -c ': SAMPLE ' <("$LWPROF" dump "$seed"))" \
	"  every sample the module's experiment has"
st=$(P -statistics "$pe" 2>&1)
grep -q '^No precise totals: the perf backend keeps none (no usage.txt); the sampled totals alone.$' <<<"$st"
check $? -eq 0 "-statistics says there are no precise totals"
check "$(grep -cE '(^| )0\.000000( |$)' <<<"$st")" = 0 "  and shows no Precise 0.000000"
check "$(awk '$1 == "User" && $2 == "CPU" { print $3 "/" $4; exit }' <<<"$st")" = "22.000000/-" \
	"  User CPU: the sampled 22 s alone, no ratio"
check "$(awk '$1 == "Total" { print NF; exit }' <<<"$st")" = 3 "  Total: label, sampled, no ratio"
st=$(P -statistics "$seed" 2>&1)
check "$(awk '$1 == "User" && $2 == "CPU" { print $3, $4, $5; exit }' <<<"$st")" = "22.000000 22.000000 1.0000" \
	"the module's: precise, sampled and their ratio"
done_testing
