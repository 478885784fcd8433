#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect's command line: usage with the clock range, the counter
# lists, and a one-line error (exit 2, nothing created) for each bad option.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
lw() { LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" "$@"; }

out=$("$LWPROF" collect); rc=$?
check $rc -eq 0 "collect without arguments prints its usage and exits 0"
grep -q '^usage: lwprof collect ' <<<"$out"; check $? -eq 0 "usage"
grep -Eq '^clock-profiling interval: 0\.010 ms to 1000\.000 ms, resolution [0-9.]+ ms$' <<<"$out"
check $? -eq 0 "the allowed clock range and resolution"
grep -q '^collect ' <<<"$("$LWPROF" --help | sed 's/^ *//')"
check $? -eq 0 "lwprof --help lists collect"

out=$("$LWPROF" collect -h); rc=$?
check $rc -eq 0 "collect -h exits 0"
grep -q '^Software counters available for profiling:$' <<<"$out"
check $? -eq 0 "it lists the software counters"
for c in cpu-clock task-clock page-faults minor-faults major-faults context-switches cpu-migrations; do
	grep -Eq "^$c,[0-9]+ \('[^']+'; (events|nanoseconds)\)$" <<<"$out"
	check $? -eq 0 "  $c, in Oracle collect's format"
done
if grep -q '^No HW counters' <<<"$out"; then
	grep -q 'this machine has no PMU' <<<"$out"; check $? -eq 0 "no PMU: says so"
	err=$(lw collect -h cycles true 2>&1); rc=$?
	check $rc -eq 2 "-h cycles without a PMU exits 2"
	check "$(wc -l <<<"$err")" -eq 1 "with one line: $err"
else
	grep -q '^Aliased HW counters available for profiling:$' <<<"$out"
	check $? -eq 0 "a PMU: the aliased list"
	grep -Eq "^cycles,[0-9]+ \('CPU Cycles', alias for cpu-cycles; CPU-cycles\)$" <<<"$out"
	check $? -eq 0 "cycles in Oracle collect's format"
	grep -q '^Raw HW counters available for profiling:$' <<<"$out"
	check $? -eq 0 "and the raw list"
fi

# Each bad option: exit 2, one line naming the choices, no experiment.
bad() {
	local want=$1; shift
	err=$(lw collect "$@" 2>&1); rc=$?
	check $rc -eq 2 "collect $* exits 2"
	check "$(wc -l <<<"$err")" -eq 1 "  one line: $err"
	grep -q -- "$want" <<<"$err"; check $? -eq 0 "  mentions '$want'"
}
bad "10us to 1s" -p 5s true
bad "10us to 1s" -p 5us true
bad "on, hi, lo, off" -p fast true
bad "valid: cpu-clock, task-clock, page-faults" -h bogus true
bad "page-faults" -h page-faults,x true
bad "counter name" -h ,1 true
bad "given twice" -h task-clock,task-clock true
bad "at most 8" -h cpu-clock,task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations,r1,r2 true
bad "0 to 65536" --stack-bytes 100000 true
bad "the stack copy's size is --stack-bytes" -S 16k true
bad "on, off or seconds" -S 0.001 true
bad "START before END" -t 3-1 true
bad "START before END" -t x true
bad "a signal collect may use" -l KILL true
bad "a signal collect may use" -y CHLD true
bad "only ,r may follow" -y USR1,x true
bad "different signals" -l USR1 -y USR1 true
bad "megabytes or unlimited" -L 10k true
bad "like 64M" --flight 10 true
bad "choose another with --flight-signal" --flight 8M -l USR2 true
bad "goes with --flight" --flight-signal USR1 true
bad "choose one" --flight 8M -L 10 true
bad "1 to 1024" --depth 0 true
bad "power of two" -m 3 true
bad "must end in .er" -o foo true
bad "not both" -P 1 true
bad "not a process id" -P x
bad "no command given" -p on
bad "-P and -a" -a -P 1
bad "nothing to record" -p off true
bad "unknown option -x" -x true
bad "needs a value" -o
bad "option -o needs a value" -Ko
bad "option --depth needs a value" --depth
bad "option --backend needs a value" --backend
check "$(ls | wc -l)" -eq 0 "no bad option created an experiment"

# The unknown-option message's list is every option of collect's usage
# (as the completion and the man page read it) and --help, and getopt
# knows each one: followed by -Z, it is taken or takes -Z as its value,
# never called unknown.
. "$LWPROF_TOP/completion/lwprof.bash"
valid=$(lw collect --bogus true 2>&1 | sed -n 's/^lwprof collect: unknown option --bogus; valid: //p')
check "$(tr ' ' '\n' <<<"$valid" | sort)" = \
	"$({ _lwprof_options "$LWPROF" collect | cut -f1; echo --help; } | sort)" \
	"the unknown-option list is the usage's options and --help: $valid"
for opt in $valid; do
	lw collect "$opt" -Z true 2>&1 | grep -q -- "unknown option $opt;" &&
		check "$opt" = "" "collect knows $opt, which its message lists"
done
check "$(ls | wc -l)" -eq 0 "nor did the options of the list"

err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" collect --backend module true 2>&1); rc=$?
check $rc -eq 1 "no module, --backend module: exit 1"
grep -q 'load the module' <<<"$err"; check $? -eq 0 "and says to load it"
err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" collect --backend bogus true 2>&1); rc=$?
check $rc -eq 2 "--backend bogus: a usage error"
grep -q "not module, perf or auto" <<<"$err"; check $? -eq 0 "and says what it takes"
err=$(FAKE_LWPROF_NO_SAMPLE=1 lw collect true 2>&1); rc=$?
check $rc -eq 1 "a module without sampling: exit 1"
grep -q 'LWPROF_FEAT_SAMPLE' <<<"$err"; check $? -eq 0 "and says so"
err=$(FAKE_LWPROF_ATTACH_ERRNO=1 lw collect -P 1 -t 1 2>&1); rc=$?
check $rc -eq 1 "-P without ptrace rights exits 1"
check "$err" = "lwprof collect: not allowed to trace PID 1 (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)" "and says so"
check "$(ls | wc -l)" -eq 0 "a failed attach leaves no experiment behind"
err=$(lw collect -h r1234 true 2>&1); rc=$?
[ $rc -eq 2 ] || { check $rc -eq 1 "raw counter the (fake) module cannot count: exit 1";
	grep -q 'cannot count' <<<"$err"; check $? -eq 0 "and says so: $err"; }
done_testing
