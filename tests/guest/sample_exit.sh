#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The time a process spends exiting after its memory is gone (exit_mm():
# freeing the pages, closing the files, waiting for a network file
# system's close) has no user stack.  Without -K it goes into the thread's
# EXIT packet, which the analyzer charges where the thread's previous
# packet went, and no tick takes a packet without a stack before it
# (docs/design/sampling.md).  mem_hog writes 256 MiB and exits at once: freeing
# them after exit_mm() takes many 1 ms intervals in the guest.  Every clock
# packet of it but the EXIT one has a user stack, the EXIT packet carries
# system time, and print charges nothing to <Unknown>.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup sample_exit

"$LWPROF" collect -p 1ms -o m.er "$progs/mem_hog" 256 0 >/dev/null 2>err.txt
check $? -eq 0 "collect mem_hog 256 0 ($(cat err.txt))"
"$LWPROF" dump m.er >dump.txt
clk=$(grep ': SAMPLE clock ' dump.txt)
n=$(grep -c . <<<"$clk")
check "$n" -ge 10 "mem_hog has clock packets ($n)"
bare=$(grep -v 'flags=[^ ]*EXIT' <<<"$clk" | grep -c ' frames=0 ')
check "$bare" -eq 0 "no clock packet but the EXIT one without a user stack ($bare)"
grep -v 'flags=[^ ]*EXIT' <<<"$clk" | grep ' frames=0 ' | head -3
ex=$(grep 'flags=[^ ]*EXIT' <<<"$clk")
check "$(grep -c . <<<"$ex")" -eq 1 "one EXIT packet"
check "$(field system <<<"$ex")" -gt 0 "the EXIT packet carries the exit's system time ($ex)"
unk=$("$LWPROF" print -printmode csv -metrics i.total:name -functions m.er |
      awk -F, '$NF == "<Unknown>" { print $1 }')
check "$(awk -v u="$unk" 'BEGIN { print u + 0 == 0 }')" -eq 1 \
	"print: nothing in <Unknown> (${unk:-0} s)"
collect_done
