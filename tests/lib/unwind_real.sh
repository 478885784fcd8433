# SPDX-License-Identifier: GPL-2.0
# Unwinding what a recorder really wrote for a program without frame
# pointers (Debian's gzip): source tests/lib/test.sh first.

# unwind_check_walks ER METRIC [WHAT]: unwind ER's samples both with the
# per-pc CFI cache and with libdwfl (LWPROF_UNWIND=check): at least 100
# samples with stack copies, none differing, at most 10% left to libdwfl;
# and at least 98% of METRIC (i.total, i.totalcpu) outside the dynamic
# loader's start (_dl_start) has main on the stack.  unwind_stats keeps
# the statistics line, unwind_n the samples; unwind_num KEY reads a count.
unwind_check_walks() {
	local w=${3:+$3: } f tot lsm

	unwind_stats=$(LWPROF_UNWIND=check LWPROF_UNWIND_STATS=1 "$LWPROF" print -functions "$1" 2>&1 >/dev/null)
	echo "# $unwind_stats"
	unwind_n=$(sed -n 's/.*: \([0-9]*\) samples,.*/\1/p' <<<"$unwind_stats")
	check "${unwind_n:-0}" -ge 100 "${w}at least 100 samples with stack copies ($unwind_n)"
	check "$(unwind_num differ)" -eq 0 "${w}cached and libdwfl stacks identical in every sample"
	check "$(unwind_num 'samples by libdwfl')" -le $((${unwind_n:-0} / 10)) "${w}at most 10% left to libdwfl ($(unwind_num 'samples by libdwfl') of $unwind_n)"
	f=$("$LWPROF" print -printmode csv -metrics "$2:name" -functions "$1")
	echo "$f" | head -12 | sed 's/^/# /'
	f=$("$LWPROF" print -printmode csv -metrics "$2:name" \
		-filters '!inStack("_dl_start")' -functions "$1")
	tot=$(awk -F, '$NF == "<Total>" { print $1 }' <<<"$f")
	lsm=$(awk -F, '$NF == "__libc_start_call_main" { print $1 }' <<<"$f")
	awk -v m="$lsm" -v t="$tot" 'BEGIN { exit !(t > 0 && m >= 0.98 * t) }'
	check $? -eq 0 "${w}the walks reach main: __libc_start_call_main has $lsm of the $tot s outside _dl_start"
}

unwind_num() {
	sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" <<<"$unwind_stats"
}
