#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Samples in a PLT stub keep their real caller.
# tests/progs/unwind_sampler in "plt" mode (-O2 -fomit-frame-pointer):
# first its lazy strlen@plt call single-stepped (a snapshot at each
# instruction in the executable: the entry's jmp, push and jmp, the .plt
# header's push and jmp, so every row of the .plt's CFI, whose CFA is an
# expression of rsp and rip), then 16 bound strlen@plt calls of plt_loop()
# single-stepped too (so the stub has samples under plt_loop wherever a
# CPU's timer interrupts land), then a profiling timer over plt_loop(), a
# hot loop of strlen@plt calls.  Ground truth: the traced snapshots all run
# under plt_traced <- main, and every snapshot in the stub itself was
# called by plt_loop or plt_traced; so the callers' inclusive time holds
# the stub's.  The CFI cache must step the PLT itself (no frame-pointer
# fallback), the same as libdwfl.  Twice: as built (lazy .plt entries:
# jmp, push, jmp) and built with IBT PLT entries (unwind_sampler_ibt:
# strlen@plt in .plt.sec, endbr64 and jmp; the lazy .plt entries endbr64,
# push, jmp, whose CFA expression compares rip & 15 with 9).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

n=512

plt_case() {
	local prog=$1 offs=$2 cap=$PRINT_OUT/$1.cap
	echo "# $prog"
	out=$(env -u LD_BIND_NOW "$LWPROF_BUILD/tests/progs/$prog" "$cap" $n plt) ||
		{ echo "FAIL: $prog"; exit 1; }
	k=$(sed -n 's/^plt: traced \([0-9]*\)$/\1/p' <<<"$out")
	check "${k:-0}" -ge 5 "the lazy call traced through the PLT ($k snapshots)"
	exp=$(printf 'capture %s\nusage auto\n' "$cap" | gen_exp "$prog" -)

	stats=$(LWPROF_UNWIND=check LWPROF_UNWIND_STATS=1 "$LWPROF" print -functions "$exp" 2>&1 >/dev/null)
	echo "$stats"
	num() { sed -n "s/.*[ (]\([0-9][0-9]*\) $1.*/\1/p" <<<"$stats"; }
	check "$(num differ)" -eq 0 "cached and libdwfl stacks identical in every sample"
	check "$(num 'kept frame pointers')" -eq 0 "no sample left to its frame-pointer stack"

	pcs=$("$LWPROF" print -printmode csv -metrics e.user:name -pcs "$exp")
	for off in $offs; do
		check "$(csv_field "$pcs" "strlen@plt + $off" 1)" != "" \
			"a snapshot at strlen@plt + $off"
	done

	all=$("$LWPROF" print -printmode csv -metrics i.user:name -functions "$exp")
	unit=$(awk -v t="$(csv_field "$all" '<Total>' 1)" -v n=$n 'BEGIN { printf "%.6f", t / n }')
	tr=$("$LWPROF" print -printmode csv -metrics i.user:name \
		-filters 'inStack("plt_traced")' -functions "$exp")
	want=$(awk -v k="$k" -v u="$unit" 'BEGIN { printf "%.3f", k * u }')
	check "$(csv_field "$tr" '<Total>' 1)" = "$want" "all $k traced snapshots under plt_traced"
	check "$(csv_field "$tr" main 1)" = "$want" "and under main"

	stub=$("$LWPROF" print -printmode csv -metrics i.user:name \
		-filters 'leaf("strlen@plt")' -functions "$exp")
	t=$(csv_field "$stub" '<Total>' 1)
	echo "$stub"
	check "$(awk -v t="$t" -v u="$unit" 'BEGIN { print (t >= 10 * u) }')" -eq 1 \
		"at least 10 samples in the stub ($t s)"
	inner=$(awk -F, 'NR > 1 && ($2 == "plt_loop" || $2 == "plt_traced") { s += $1 }
		END { printf "%.3f", s }' <<<"$stub")
	check "$inner" = "$t" "every stub sample has plt_loop or plt_traced as caller"
	check "$(csv_field "$stub" main 1)" = "$t" "and main above it"

	cc=$("$LWPROF" print -printmode csv -metrics a.user:name -csingle strlen@plt "$exp")
	echo "$cc"
	callers=$(sed -n '2,/^[0-9.]*,\* /p' <<<"$cc" | sed '$d' | cut -d, -f2 | sort | tr '\n' ' ')
	check "$callers" = "plt_loop plt_traced " "strlen@plt's callers: plt_loop and plt_traced ($callers)"
}

plt_case unwind_sampler "0x0 0x6 0xb"
readelf -SW "$LWPROF_BUILD/tests/progs/unwind_sampler_ibt" | grep -q ' \.plt\.sec '
check $? -eq 0 "unwind_sampler_ibt has a .plt.sec"
plt_case unwind_sampler_ibt "0x0 0x4"
done_testing
