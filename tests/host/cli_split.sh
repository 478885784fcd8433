#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The analyzer is its own program: build/lwprof (collect, ptime, top,
# dump) needs none of libdw, libcapstone, libstdc++, directly or through
# its libraries, and lwprof print execs lwprof-print, found beside lwprof
# (the build tree) or in ../libexec/lwprof/ (make install), with a clear
# error when neither is there.  ptime and print work.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
print=$LWPROF_BUILD/lwprof-print
heavy='libdw\.|libcapstone|libstdc++'

needed=$(readelf -d "$LWPROF" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
check -n "$needed" "lwprof's DT_NEEDED: $needed"
grep -Eq "$heavy" <<<"$needed"
check $? -ne 0 "  none of libdw, libcapstone, libstdc++"
grep -Eq "$heavy" <<<"$(ldd "$LWPROF")"
check $? -ne 0 "  nor among the libraries it loads (ldd)"
check "$(readelf -d "$print" | grep -Ec "NEEDED.*($heavy)")" -eq 3 \
	"lwprof-print needs all three"

err=$(LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" ptime true 2>&1)
check $? -eq 0 "ptime runs"
check "$(awk '$1 == "real" { print $2 }' <<<"$err")" = 0.100000000 "  and shows the real time"

exp=$(gen_exp seed)
total() { "$1" print -printmode csv -metrics e.total:name -functions "$exp" |
	awk -F, '$NF == "<Total>" { print $1 }'; }
check "$(total "$LWPROF")" = 32.000 "lwprof print runs lwprof-print beside it"

# An installed layout: PREFIX/bin/lwprof, PREFIX/libexec/lwprof/lwprof-print
pre=$PRINT_OUT/prefix
mkdir -p "$pre/bin" "$pre/libexec/lwprof"
cp "$LWPROF" "$pre/bin/lwprof"
cp "$print" "$pre/libexec/lwprof/lwprof-print"
check "$(total "$pre/bin/lwprof")" = 32.000 "  or in ../libexec/lwprof/"
rm "$pre/libexec/lwprof/lwprof-print"
err=$("$pre/bin/lwprof" print -functions "$exp" 2>&1); rc=$?
check $rc -eq 1 "  neither there: exit 1"
check "$err" = "lwprof print: the analyzer is not installed: no $pre/bin/lwprof-print nor $pre/bin/../libexec/lwprof/lwprof-print" \
	"  saying where it looked"
check "$("$pre/bin/lwprof" --version 2>&1 | grep -c '^lwprof ')" -eq 1 "  the other commands still run"
done_testing
