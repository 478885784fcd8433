#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Metrics as data (docs/design/analyzer.md): an experiment holds as many counters
# as its log.txt names.  Forty counters here, 51 base values with the ten
# microstates and the wall time, past any 32-bit mask of a sample's
# metrics.  Counter 39 counts cycles at a known clock rate, so it is
# shown as time.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

n=40
exp=$({
	echo "binary seed seed_example.bin"
	echo "log cpu_mhz 1000"
	for i in $(seq 0 $((n - 2))); do
		echo "log counter c$i,1000,4,$i"
	done
	echo "log counter cycles,1000,0,0"
	echo "map 400 seed 0x555555554000"
	echo "task start 400 400 1 ctr40"
	echo "sample pid=400 tid=400 t=0 ms=user:10000000 stack=E,C,A,main"
	# counter I: 2 packets of (I + 1) * 1000 events, under E (even) or G
	# (odd); the cycles: 2 of 5 million, 10 ms at 1000 MHz
	for i in $(seq 0 $((n - 1))); do
		stack=E,C,A,main v=$(((i + 1) * 1000))
		[ $((i % 2)) -eq 1 ] && stack=G,F,C,B,main
		[ $i -eq $((n - 1)) ] && v=5000000
		echo "sample pid=400 tid=400 t=$(((i + 1) * 100000)) n=2 counter=$i value=$v stack=$stack"
	done
} | gen_exp counters40 -)

h=$("$LWPROF" print -header "$exp" 2>&1); rc=$?
check $rc -eq 0 "print reads an experiment with $n counters"
check "$(grep -c '^  Counter: ' <<<"$h")" -eq $n "-header lists the $n counters"
l=$("$LWPROF" print -metric_list "$exp" 2>&1)
check "$(grep -c '^  c[0-9]* *c[0-9]* Events (events)$' <<<"$l")" -eq $((n - 1)) \
	"-metric_list: one metric per counter"
check "$(grep -c '^  cycles *cycles Time (sec.)$' <<<"$l")" -eq 1 \
	"-metric_list: cycles at a known clock rate are time"
for i in 0 8 9 31 32 38; do
	want=$((2 * (i + 1) * 1000)) leaf=E
	[ $((i % 2)) -eq 1 ] && leaf=G
	f=$("$LWPROF" print -printmode csv -metrics "e.c$i:i.c$i:name" -functions "$exp" 2>/dev/null)
	check "$(csv_field "$f" '<Total>' 1)" = "$want" "counter $i: <Total> $want events"
	check "$(csv_field "$f" $leaf 1)" = "$want" "counter $i: all exclusive in $leaf"
	check "$(csv_field "$f" main 2)" = "$want" "counter $i: all inclusive in main"
done
f=$("$LWPROF" print -printmode csv -metrics e.cycles:i.cycles:e.user:name -functions "$exp" 2>/dev/null)
check "$(csv_field "$f" '<Total>' 1),$(csv_field "$f" G 2),$(csv_field "$f" '<Total>' 3)" = \
	0.010,0.010,0.010 "cycles shown as seconds beside the user time"
o=$("$LWPROF" print -overview "$exp" 2>/dev/null)
check "$(grep -c '^  \* cycles Time  *0.010 sec.$' <<<"$o")" -eq 1 \
	"-overview: the cycles in seconds"
check "$(grep -c '^  \* c38 Events  *78000 events$' <<<"$o")" -eq 1 "-overview: counter 38's events"
# the default columns: every counter's, exclusive and inclusive
d=$("$LWPROF" print -printmode csv -functions "$exp" 2>/dev/null | head -n 1)
check "$(tr ',' '\n' <<<"$d" | grep -c '^Excl\. c[0-9]* Events (events)$')" -eq $((n - 1)) \
	"-functions' default columns: every counter"
check "$(tr ',' '\n' <<<"$d" | grep -c '^Incl\. cycles (sec\.)$')" -eq 1 \
	"-functions' default columns: the cycles, inclusive, in seconds"
done_testing
