#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A sample is resolved against the mapping in place at its time, on a
# real program: tests/progs/dl_swap dlopens a copy of libz (libA.so),
# spends 1 s of CPU in its crc32, dlcloses it, dlopens another copy
# (libB.so, the same size: the loader puts it at A's address) and spends
# 2 s in it.  Each library's exclusive CPU time is its phase's CPU time as
# the program measured it, within 5% (a 10 ms clock packet that straddles
# a phase's start or end goes to one side: 2% of A's 1 s; the program's
# clock reads and loop are the rest), not all of it B's, the mapping at
# that address at the end.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup print_dlswap

libz=$(readlink -f /lib/x86_64-linux-gnu/libz.so.1)
[ -f "$libz" ] || skip "no libz.so.1"
cp "$libz" libA.so && cp "$libz" libB.so || exit 1
"$LWPROF" collect -o s.er "$progs/dl_swap" "$work/libA.so" 1 "$work/libB.so" 2 \
	>out.txt 2>err.txt
check $? -eq 0 "collect dl_swap exits 0 ($(cat err.txt))"
read -r _ a_addr a_cpu < <(grep '^A ' out.txt)
read -r _ b_addr b_cpu < <(grep '^B ' out.txt)
[ -n "$a_addr" ] && [ "$a_addr" = "$b_addr" ] ||
	skip "the loader put libB.so's crc32 at $b_addr, not at libA.so's $a_addr"
echo "# crc32 of both at $a_addr; phases: A $a_cpu s, B $b_cpu s of CPU"

"$LWPROF" print -printmode csv -metrics e.totalcpu:name -objects s.er \
	>obj.csv 2>err.txt
check $? -eq 0 "lwprof print -objects ($(cat err.txt))"
obj() { awk -F, -v o="$1" '$NF == o { print $1 }' obj.csv; }
a=$(obj libA.so) b=$(obj libB.so)
echo "# -objects: libA.so ${a:-none} s, libB.so ${b:-none} s"
within "${a:-0}" "$a_cpu" 5
check $? -eq 0 "libA.so: ${a:-0} s, its phase's $a_cpu s within 5%"
within "${b:-0}" "$b_cpu" 5
check $? -eq 0 "libB.so: ${b:-0} s, its phase's $b_cpu s within 5%"
collect_done
