#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Delta stack copies (--stack-delta, LWPROF_RS_SDELTA) on the real module.
# tests/progs/deep_recurse (-O2 -fomit-frame-pointer: the frame-pointer
# walk finds only the pc) recurses 30 to 49 rec_a/rec_b pairs deep and
# spins in leaf_spin; its call graph is known: leaf_spin <- rec_b <- rec_a
# <- {rec_b, descend}, descend <- main (for a recursive function csingle
# lists the caller of its innermost call: rec_a <- rec_b, or descend for a
# sample taken while the recursion is one level deep, as it is for a moment
# each time its depth changes).  Collected with delta copies on
# and off, the analyzer's DWARF unwinding must find exactly those callers
# both ways, with main on the stack of nearly all the time, and no delta
# without its base; the experiment with deltas must be much smaller per
# sample.  Then a 16 KiB ring, so that records are dropped: the module
# must keep naming bases the reader has.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_sdelta
"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[4567cdef]\)' ||
	skip "the module has no delta stack copies (LWPROF_FEAT_SDELTA)"

# callers EXP FUNC, callees EXP FUNC: sorted, space-separated.
callers() {
	"$LWPROF" print -printmode csv -metrics a.user:name -csingle "$2" "$1" \
		2>/dev/null | awk -F, 'NR > 1 { if ($2 ~ /^\* /) exit; print $2 }' |
		sort | tr '\n' ' '
}
# attr EXP FUNC CALLER: CALLER's attributed user time in FUNC's csingle.
attr() {
	"$LWPROF" print -printmode csv -metrics a.user:name -csingle "$2" "$1" \
		2>/dev/null | awk -F, -v c="^$3\$" '$2 ~ c { print $1; exit }'
}
callees() {
	"$LWPROF" print -printmode csv -metrics a.user:name -csingle "$2" "$1" \
		2>/dev/null | awk -F, 'f { print $2 } $2 ~ /^\* / { f = 1 }' |
		sort | tr '\n' ' '
}
# bytes EXP: the bytes of its cpu.N.rec files.
bytes() { cat "$1"/cpu.*.rec | wc -c; }
# stacks DUMP: samples with a stack copy.
stacks() { grep -c ': SAMPLE .* stack=[1-9]' "$1"; }

declare -A per
for d in on off; do
	e=d$d.er
	"$LWPROF" collect -o $e --stack-delta $d "$progs/deep_recurse" 3 \
		>/dev/null 2>err.$d
	check $? -eq 0 "collect --stack-delta $d deep_recurse 3 exits 0"
	check "$(key $e stack_delta)" = "$([ $d = on ] && echo 1 || echo 0)" \
		"  log.txt says stack_delta for $d"
	"$LWPROF" dump $e >$e.dump 2>$e.err
	check $? -eq 0 "  dump reads it cleanly"
	n=$(stacks $e.dump)
	nd=$(grep -c ': SAMPLE .*flags=[^ ]*SDELTA' $e.dump)
	if [ $d = on ]; then
		check "$nd" -ge $((n / 2)) "  most of its $n stack copies are deltas ($nd)"
		check "$(grep -c ' sdelta sp=' $e.dump)" -eq "$nd" \
			"  dump shows each delta's blocks"
	else
		check "$nd" -eq 0 "  no deltas ($nd)"
	fi
	check "$n" -ge 100 "  enough samples with a stack ($n)"
	per[$d]=$(( $(bytes $e) / (n ? n : 1) ))
	echo "# $d: $(bytes $e) bytes, $n samples with a stack, ${per[$d]} bytes each"
	"$LWPROF" print -metrics i.user:name -calltree $e >$e.tree 2>$e.perr
	check $? -eq 0 "  print -calltree exits 0"
	check "$(grep -c 'without their base' $e.perr)" -eq 0 \
		"  every delta had its base"
	# Outside the dynamic loader's start (before main: its share grows
	# with the host's load: main had 94.8% of all once at load 8, 99.9% of
	# the rest).
	f=$("$LWPROF" print -printmode csv -metrics i.user:name \
		-filters '!inStack("_dl_start")' -functions $e 2>/dev/null)
	total=$(awk -F, '$2 == "<Total>" { print $1 }' <<<"$f")
	main=$(awk -F, '$2 == "main" { print $1 }' <<<"$f")
	awk -v m="$main" -v t="$total" 'BEGIN { exit !(t > 0 && m >= 0.95 * t) }'
	check $? -eq 0 "  main is on the stack of >= 95% of the user time outside _dl_start ($main of $total s)"
	check "$(callers $e leaf_spin)" = "rec_b " "  leaf_spin <- rec_b only"
	check "$(callers $e rec_b)" = "rec_a " "  rec_b <- rec_a only"
	c=$(callers $e rec_a)
	check "${c/descend /}" = "rec_b " "  rec_a <- rec_b (recursion), or descend ($c)"
	a=$(attr $e rec_a rec_b) t=$(attr $e rec_a '[*] rec_a')
	awk -v a="$a" -v t="$t" 'BEGIN { exit !(t > 0 && a >= 0.95 * t) }'
	check $? -eq 0 "  rec_b has >= 95% of rec_a's attributed time ($a of $t s)"
	check "$(callees $e descend)" = "rec_a " "  descend -> rec_a"
	check "$(callers $e descend)" = "main " "  descend <- main"
done
awk -v a="${per[on]}" -v b="${per[off]}" 'BEGIN { exit !(a * 4 <= b) }'
check $? -eq 0 "delta copies are at most a quarter of full ones per sample (${per[on]} vs ${per[off]} bytes)"

# A 16 KiB ring holds one full sample: some are dropped while the recorder
# sleeps.  A dropped record's copy never becomes a base.
e=small.er
"$LWPROF" collect -o $e -m 4 -p 1ms "$progs/deep_recurse" 2 >/dev/null 2>err.small
check $? -eq 0 "collect -m 4 -p 1ms deep_recurse 2 exits 0"
echo "# lost with a 16 KiB ring: $(key $e lost)"
"$LWPROF" dump $e >$e.dump 2>$e.err
check $? -eq 0 "  dump reads it cleanly"
"$LWPROF" print -metrics i.user:name -calltree $e >$e.tree 2>$e.perr
check $? -eq 0 "  print -calltree exits 0"
check "$(grep -c 'without their base' $e.perr)" -eq 0 "  every delta had its base"
check "$(callers $e leaf_spin)" = "rec_b " "  leaf_spin <- rec_b only"
collect_done
