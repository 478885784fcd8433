#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel module objects for real: lwprof collect -K (root) copies
# /proc/modules as archives/modules next to archives/kallsyms, and the
# analyzer's module ranges come from it (NAME SIZE ... ADDRESS): in the
# guest lwprof.ko is loaded, so the copy has its line, and every text
# symbol of lwprof's core that kallsyms marks [lwprof] lies in
# [ADDRESS, ADDRESS + SIZE).
#
# /proc/modules gives the core alone; the __init code lies elsewhere and
# is freed once lwprof_init returns, when the kernel switches the
# module's kallsyms to the core's table: lwprof_init's line goes with it.
# It outlives the load in one case: an ftrace ops is registered when the
# init text is freed, and ftrace then keeps the names of the functions it
# had recorded there, listed as the module's 'T' lines until it unloads.
# So lwprof is loaded twice, each time knowing which case holds:
#   plain (probes attach at the first session, nothing at load, and
#     nothing else traces in the guest): no line outside the range;
#   resident=1 (lwprof_init registers the system-call hooks, ftrace
#     ops): lwprof_init's line, past the core, and no other.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

ftraced=/sys/kernel/tracing/enabled_functions

# collect_outside NAME: collect -K into NAME.er, then set size and addr
# (lwprof's line in its modules copy), n (the [lwprof] text symbols in its
# kallsyms copy) and out ("NAME " for each of them outside the range).
collect_outside() {
	local a s

	"$LWPROF" collect -K -p 10ms -o "$1.er" true >/dev/null
	check $? -eq 0 "$1: collect -K true"
	check -s "$1.er/archives/modules" "$1: the experiment has the /proc/modules copy"
	size= addr=
	read -r size addr < <(awk '$1 == "lwprof" { print $2, $6 }' "$1.er/archives/modules")
	check -n "$addr" "$1: lwprof's line in it ($size bytes at $addr)"
	# (kernel addresses are negative as bash's signed 64-bit numbers,
	# and in order: the comparisons hold)
	n=0 out=
	while read -r a _ s _; do
		n=$((n + 1))
		(( 0x$a < addr || 0x$a >= addr + size )) && out="$out$s "
	done < <(awk '$NF == "[lwprof]" && $2 ~ /^[tT]$/' "$1.er/archives/kallsyms")
	check "$n" -gt 10 "$1: kallsyms has lwprof's text symbols ($n)"
}

load_lwprof
need_sampling
[ -r "$ftraced" ] || skip "no tracefs: which functions ftrace hooks is unknown"
work=$(mktemp -d /tmp/collect_kmods.XXXXXX) || exit 1
cd "$work" || exit 1

check -z "$(cat "$ftraced")" "plain load: no function hooked by ftrace"
collect_outside plain
check "$out" = "" "plain: every one within lwprof's range from /proc/modules"

load_lwprof resident=1
check -n "$(cat "$ftraced")" "resident=1: lwprof's ftrace hooks stand from the load"
collect_outside resident
check "$out" = "lwprof_init " "resident: every one within the range but lwprof_init, kept by ftrace"

rm -rf "$work"
done_testing
