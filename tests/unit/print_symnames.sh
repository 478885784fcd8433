#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Names that must not be ambiguous:
# - the vDSO's functions by its own global names (__vdso_clock_gettime), not
#   their weak aliases, so they do not share a row name with libc's
#   clock_gettime; code before its first symbol is <static>@ADDR ([vdso])
#   with ADDR where its section starts, not <static>@0x0.  The image is this
#   machine's vDSO (tests/progs/vdso_loop --dump), mapped and archived as
#   the recorder does; the truth is its own symbol table (readelf).
# - -objects gives <Truncated-stack> its own row instead of adding the cut
#   stacks to <Unknown> (tests/data/exp/pseudo.gen: 3 cut stacks, 0.03 s;
#   <Unknown> is the unmapped pc and the stackless exit, 0.02 + 0.07 s).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

vdso=$PRINT_OUT/vdso.so
"$LWPROF_BUILD/tests/progs/vdso_loop" --dump "$vdso" || { echo "FAIL: vdso_loop --dump"; exit 1; }
libc=$(ldd "$LWPROF_BUILD/tests/progs/vdso_loop" | awk '/libc\.so/ { print $3 }')
sym() { readelf -W --dyn-syms "$1" | awk -v n="$2" '$8 == n || $8 ~ "^" n "@" { print $2; exit }'; }
vgt=$(sym "$vdso" __vdso_clock_gettime) weak=$(sym "$vdso" clock_gettime)
cgt=$(sym "$libc" clock_gettime)
check -n "$vgt" "the vDSO has __vdso_clock_gettime (0x$vgt)"
check "$weak" = "$vgt" "and its weak alias clock_gettime at the same address"
check -n "$cgt" "libc has clock_gettime (0x$cgt)"
text=$(readelf -W -S "$vdso" | awk '$2 == ".text" { print $4 }')
first=$(readelf -W --dyn-syms "$vdso" | awk '$4 == "FUNC" { print $2 }' | sort | head -1)
vb=0x7fff00000000 lb=0x7f0000000000
hex() { printf '0x%x' $(($1)); }
exp=$(gen_exp vdso - <<EOF
binary vdso $vdso vdso
binary libc $libc
map 70 vdso $vb
map 70 libc $lb
task start 70 70 1 vdso
sample pid=70 tid=70 t=0 n=3 ms=user:10000000 stack=$(hex "$vb + 0x$vgt + 4"),$(hex "$lb + 0x$cgt + 9")
sample pid=70 tid=70 t=100000000 n=2 ms=user:10000000 stack=$(hex "$lb + 0x$cgt + 2")
sample pid=70 tid=70 t=200000000 n=1 ms=user:10000000 stack=$(hex "$vb + 0x$text")
usage auto
EOF
)
f=$("$LWPROF" print -printmode csv -metrics e.user:i.user:name -functions "$exp")
echo "$f"
check "$(cut -d, -f3- <<<"$f" | sort | uniq -d | tr '\n' ' ')" = "" "no two rows of one name"
check "$(csv_field "$f" __vdso_clock_gettime 1)" = 0.030 "the vDSO's samples: __vdso_clock_gettime"
check "$(csv_field "$f" clock_gettime 2)" = 0.050 "libc's clock_gettime: its own 2 and the 3 it called"
if [ $((0x$text)) -lt $((0x$first)) ]; then
	st="<static>@0x$(printf %x $((0x$text))) ([vdso])"
	check "$(csv_field "$f" "$st" 1)" = 0.010 "code before the vDSO's first symbol: $st"
else
	echo "ok: # the vDSO's first symbol is where its text starts: nothing before it"
fi
check "$(grep -cE '<static>@0x0( |$)' <<<"$f")" -eq 0 "no <static>@0x0"

exp=$(gen_exp pseudo)
o=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -objects "$exp")
echo "$o"
check "$(csv_field "$o" '<Truncated-stack>' 2)" = 0.030 "-objects: <Truncated-stack>, its own row"
check "$(csv_field "$o" '<Unknown>' 2)" = 0.090 "<Unknown>: the unmapped pc and the stackless exit only"
done_testing
