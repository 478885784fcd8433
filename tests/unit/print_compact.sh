#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compact samples (format 1.11: the nonzero microstates and the eight
# registers x86-64 unwinding reads, what the perf backend writes) read
# as the samples they stand for.  gen_exp writes the same experiment
# twice, once as samples and once compact: 40 clock packets with
# tests/progs/qsort_unwind's stack copies (frame-pointer-less code only
# the CFI unwinds, from the registers), and then a full copy with 6
# deltas.  lwprof dump finds every sample of the second compact and its
# files smaller, -functions, -calltree, -lines and -overview show the
# same, byte for byte, on both (the truth: the whole form, which keeps
# every register), and all of cmp's time unwinds to main.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
# inclusive user time of function $2 in EXP $1
user_of() {
	csv_field "$("$LWPROF" print -printmode csv -metrics i.user:name -functions "$1")" "$2" 1
}

# the same samples whole and compact: 40 clock packets of the snapshots,
# then the first snapshot's full copy and 6 deltas
for kind in n=40 deltas=6; do
	full=$(printf 'capture %s %s\nusage auto\n' "$cap" $kind | gen_exp "full${kind%=*}" -)
	small=$(printf 'compact on\ncapture %s %s\nusage auto\n' "$cap" $kind | gen_exp "compact${kind%=*}" -)
	nfull=$("$LWPROF" dump "$full" | grep -c ': SAMPLE ')
	ncomp=$("$LWPROF" dump "$small" | grep -c ': SAMPLE .* compact mstates=[0-9]* regs=8$')
	check "$nfull" -ge 7 "$kind: $nfull samples"
	check "$ncomp" -eq "$nfull" "  compact: every sample, 8 registers stored ($ncomp)"
	[ $kind = n=40 ] ||
		check "$("$LWPROF" dump "$small" | grep -c 'SDELTA')" -eq 6 "  its delta copies too"
	fb=$(du -cb "$full"/cpu.*.rec | tail -n 1 | cut -f1)
	cb=$(du -cb "$small"/cpu.*.rec | tail -n 1 | cut -f1)
	check "$cb" -lt "$fb" "  its record files smaller ($cb bytes for $fb)"
	for v in -functions -calltree -lines -overview; do
		want=$("$LWPROF" print $v "$full" 2>&1 | sed "s|$full|EXP|g")
		got=$("$LWPROF" print $v "$small" 2>&1 | sed "s|$small|EXP|g")
		check "$got" = "$want" "  $v: as on the whole samples"
	done
	check "$(user_of "$small" main)" = "$(user_of "$small" cmp)" \
		"  all of cmp's time unwinds to main ($(user_of "$small" main) s)"
done
done_testing
