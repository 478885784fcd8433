#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel module objects for real: lwprof collect -K (root) copies
# /proc/modules as archives/modules next to archives/kallsyms, and the
# analyzer's module ranges come from it (NAME SIZE ... ADDRESS): in the
# guest lwprof.ko is loaded, so the copy has its line, and every text
# symbol kallsyms marks [lwprof] lies in [ADDRESS, ADDRESS + SIZE) but
# lwprof_init, the module's __init function: its init section, past the
# core and freed after the load, keeps its kallsyms line (seen on 6.1).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
work=$(mktemp -d /tmp/collect_kmods.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -K -p 10ms -o k.er true >/dev/null
check $? -eq 0 "collect -K true"
check -s k.er/archives/modules "the experiment has the /proc/modules copy"
read -r size addr < <(awk '$1 == "lwprof" { print $2, $6 }' k.er/archives/modules)
check -n "$addr" "lwprof's line in it ($size bytes at $addr)"
# (kernel addresses are negative as bash's signed 64-bit numbers, and in
# order: the comparisons hold)
n=0 out=
while read -r a _ s _; do
	n=$((n + 1))
	(( 0x$a < addr || 0x$a >= addr + size )) && out="$out$s "
done < <(awk '$NF == "[lwprof]" && $2 ~ /^[tT]$/' k.er/archives/kallsyms)
check "$n" -gt 10 "kallsyms has lwprof's text symbols ($n)"
check "$out" = "lwprof_init " "all of them within lwprof's range from /proc/modules but its __init function"
rm -rf "$work"
done_testing
