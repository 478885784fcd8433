#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filters (tests/data/exp/filters.gen): by thread, CPU, time, function on
# the stack and leaf, combined; and the output modes (csv, a delimiter),
# the counter metric (cycles shown as time), wall = the main thread's time.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp filters)
tot() {	# total thread time and cycles of <Total> with these commands
	"$LWPROF" print -printmode csv -metrics i.total:i.cycles:name "$@" -functions "$exp" |
		awk -F, '$NF == "<Total>" { print $1 "/" $2 }'
}

check "$(tot)" = 2.000/1.000 "all: 2 s of thread time, 1 s of cycles"
check "$(tot -thread_select 1)" = 1.000/0.000 "thread 1 (tid 500): its second"
check "$(tot -thread_select 2)" = 1.000/1.000 "thread 2 (tid 501): its second and the cycles"
check "$(tot -thread_select 1-2)" = 2.000/1.000 "threads 1-2: everything"
check "$(tot -cpu_select 0)" = 1.000/0.000 "cpu 0: thread 500"
check "$(tot -cpu_select 1 -thread_select 1)" = 0.000/0.000 "cpu 1 and thread 1: nothing"
check "$(tot -filters 'TSTAMP < 1s')" = 1.000/0.000 "the first second"
check "$(tot -filters 'TSTAMP >= 500ms && TSTAMP < 1500ms')" = 1.000/0.500 "0.5 s to 1.5 s: half of each"
check "$(tot -filters 'inStack("B")')" = 1.000/1.000 "B on the stack"
check "$(tot -filters 'leaf("E")')" = 1.000/0.000 "E as the leaf"
check "$(tot -filters '!inStack("A") && CPUID == 1')" = 1.000/1.000 "not A, on cpu 1"
check "$(tot -filters 'TID == 501 || PID in (7, 9-11)')" = 1.000/1.000 "TID == 501"
check "$(tot -filters 'inStack("C")' -filters none)" = 2.000/1.000 "filters none clears"

out=$("$LWPROF" print -filters 'TSTAMP <' -functions "$exp" 2>&1); rc=$?
check $rc -eq 1 "a bad filter exits 1"
grep -q '^lwprof print: filter: expected a number at column' <<<"$out"
check $? -eq 0 "and says where ($out)"

f=$("$LWPROF" print -printmode csv -metrics e.lock:e.user:i.wall:name -functions "$exp")
check "$(csv_field "$f" F 1)/$(csv_field "$f" F 2)" = 0.400/0.600 "F: 0.4 s user lock, 0.6 s user CPU"
check "$(csv_field "$f" '<Total>' 3)" = 1.000 "wall: the main thread's 1 s"
f=$("$LWPROF" print -printmode ';' -metrics e.user:name -functions "$exp")
check "$(head -n 1 <<<"$f")" = "Excl. User CPU (sec.);Name" "printmode ';': header"
check "$(grep ';E$' <<<"$f")" = "1.000;E" "printmode ';': a row"

# descendant processes (tests/data/exp/procs.gen): a fork inherits its
# parent's mappings, an exec brings new ones
exp=$(gen_exp procs)
f=$("$LWPROF" print -printmode csv -metrics e.total:name -functions "$exp")
check "$(csv_field "$f" E 1)/$(csv_field "$f" G 1)" = 0.100/0.200 "parent's E, and the child's G through the parent's mappings"
check "$(csv_field "$f" ns::Widget::spin 1)" = 0.300 "after its exec, the child's samples are in the new program"
f=$("$LWPROF" print -printmode csv -metrics i.total:name -filters 'PID == 101' -functions "$exp")
check "$(csv_field "$f" '<Total>' 1)" = 0.500 "PID == 101: the child's 0.5 s"
exp=$PRINT_OUT/filters.er
# -sample_list: a sample is a second of the run; thread 500 ran the first
# (10 packets of 0.1 s user), 501 the second (10 clock packets of 0.06 s
# user + 0.04 s lock, 10 counter packets)
sl=$("$LWPROF" print -sample_list "$exp")
check "$(awk '$1 == 1 && $2 == 1 { print $5, $6, $7, $8 }' <<<"$sl")" = "10 1.000 1.000 0.000" \
	"sample 1: 10 packets, 1 s of user time"
check "$(awk '$1 == 1 && $2 == 2 { print $5, $6, $7, $8 }' <<<"$sl")" = "20 1.000 0.600 0.400" \
	"sample 2: 20 packets, 0.6 s user, 0.4 s lock"
check "$(awk '$1 ~ /^[0-9]+$/' <<<"$sl" | wc -l)" = 2 "two samples in a run of 1.9 s"
golden filters.threads "$LWPROF" print -thread_list -cpu_list -sample_list "$exp"
golden filters.overview "$LWPROF" print -thread_select 2 -overview "$exp"
golden filters.functions "$LWPROF" print -functions "$exp"
done_testing
