#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# archives/ is filled while the run goes on: a program that deletes its
# own executable at start, and a library it deletes right after dlopen,
# are both archived (identical copies), their samples resolve to their
# functions after the files are gone, and the vDSO is archived with its
# symbols, which name the time spent in it.  Only what the command mapped
# after its exec is archived, not the recorder's own binary and libraries
# (mapped by the child collect forks, until it execs); a process attached
# with -P has its mappings archived.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_archive

libz=$(readlink -f /lib/x86_64-linux-gnu/libz.so.1)
[ -f "$libz" ] || skip "no libz.so.1"
mkdir gone
cp "$progs/dl_late" gone/gone_exe && cp "$libz" gone/libgone.so || exit 1
"$LWPROF" collect -o g.er gone/gone_exe 1 "$work/gone/libgone.so" >/dev/null 2>err.txt
check $? -eq 0 "collect of a program that deletes its files exits 0 ($(cat err.txt))"
check ! -e gone/gone_exe -a ! -e gone/libgone.so "  both files are gone"
idx=g.er/archives/index.txt
exe=$(grep '  [^ ]*/gone_exe$' "$idx")
check -n "$exe" "  the deleted executable is in index.txt: $exe"
cmp -s "g.er/archives/$(awk '{ print $5 }' <<<"$exe")" "$progs/dl_late"
check $? -eq 0 "  an identical copy of it"
lib=$(grep '  [^ ]*/libgone.so$' "$idx")
check -n "$lib" "  the deleted library is in index.txt: $lib"
cmp -s "g.er/archives/$(awk '{ print $5 }' <<<"$lib")" "$libz"
check $? -eq 0 "  an identical copy of it"
check -z "$(grep '^warning.*gone' g.er/log.txt)" "  no warning about them ($(grep '^warning' g.er/log.txt | head -n 2))"

# Half the CPU time is in crc32 of the deleted library (crc32_z, the
# function crc32 calls, may get most of it), half in main of the deleted
# program: the analyzer resolves both from the archives.
"$LWPROF" print -metrics e.totalcpu -sort e.totalcpu -printmode csv \
	-functions g.er >fn.csv 2>err.txt
check $? -eq 0 "  lwprof print -functions works ($(cat err.txt))"
share() {	# the functions' exclusive CPU as a percentage of <Total>
	awk -F, -v f="^($1)\$" '$NF ~ /<Total>/ { t = $1 } $NF ~ f { v += $1 }
		END { if (t > 0) printf "%.0f", 100 * v / t; else print 0 }' fn.csv
}
c=$(share "crc32|crc32_z") m=$(share main)
check "$c" -ge 35 -a "$c" -le 65 "  crc32 has ${c}% of the CPU time (1 s of 2)"
check "$m" -ge 35 -a "$m" -le 65 "  main has ${m}% of the CPU time (1 s of 2)"

# The vDSO: one index line, an ELF image with the vDSO's symbols.
v=$(grep '  \[vdso\]$' "$idx")
check -n "$v" "  [vdso] is in index.txt: $v"
readelf -Ws "g.er/archives/$(awk '{ print $5 }' <<<"$v")" 2>/dev/null |
	grep -q ' __vdso_clock_gettime'
check $? -eq 0 "  the archived vDSO has __vdso_clock_gettime"

# A loop of clock_gettime(CLOCK_MONOTONIC) spends its time in the vDSO:
# the analyzer names it from the archived image, not as one "[vdso]".  At
# 1 ms (a thousand samples, not a hundred: the share's noise is 1.4%, not
# 4.5%); the vDSO and libc's clock_gettime get about 71% on an idle host,
# 61% with both host cores busy.
"$LWPROF" collect -p 1ms -o v.er "$progs/vdso_loop" 1 2>err.txt
check $? -eq 0 "collect -p 1ms vdso_loop 1 exits 0 ($(cat err.txt))"
"$LWPROF" print -metrics e.totalcpu -sort e.totalcpu -printmode csv \
	-functions v.er >fn.csv 2>err.txt
check $? -eq 0 "  lwprof print -functions works ($(cat err.txt))"
c=$(share "__vdso_clock_gettime|clock_gettime") v=$(share "[[]vdso[]]")
sed 's/^/    /' fn.csv | head -n 8
check "$c" -ge 60 "  __vdso_clock_gettime has ${c}% of the CPU time (most)"
check "$v" -eq 0 "  no time is left on a nameless [vdso] (${v}%)"

# A simple command: archives/ holds exactly its executable, the libraries
# ldd names and the vDSO; none of lwprof's own objects (its binary,
# libcapstone, libstdc++, libdw, ...) that its child mapped before the exec.
# paths: the paths on stdin resolved (readlink -f), sorted, once each.
paths() { while read -r p; do [ "$p" = "[vdso]" ] && echo "$p" || readlink -f "$p"; done | sort -u; }
"$LWPROF" collect -o s.er "$progs/cpu_burn" 0 >/dev/null 2>err.txt
check $? -eq 0 "collect cpu_burn 0 exits 0 ($(cat err.txt))"
got=$(awk -F'  ' '{ print $6 }' s.er/archives/index.txt | paths)
want=$({ echo "$progs/cpu_burn"; echo "[vdso]"
	ldd "$progs/cpu_burn" | awk '$2 == "=>" { print $3; next } $1 ~ /^\// { print $1 }'; } | paths)
check "$got" = "$want" "  archives/ holds cpu_burn, its libraries and the vDSO: $(echo $got)"
for o in "$(readlink -f "$LWPROF")" libcapstone libstdc++ libdw liburing; do
	grep -qF -- "$o" s.er/archives/index.txt
	check $? -ne 0 "  and not lwprof's own $o"
done
echo "# archives/ of cpu_burn: $(du -sk s.er/archives | cut -f1) KiB"

# -P: the attached process's mappings, made before the run, are archived.
"$progs/cpu_burn" 30 >pid.txt & burn=$!
while [ ! -s pid.txt ]; do sleep 0.1; done
"$LWPROF" collect -o p.er -P "$burn" -t 0.3 2>err.txt
check $? -eq 0 "collect -P cpu_burn -t 0.3 exits 0 ($(cat err.txt))"
got=$(awk -F'  ' '{ print $6 }' p.er/archives/index.txt | paths)
check "$got" = "$want" "  archives/ holds cpu_burn, its libraries and the vDSO: $(echo $got)"
kill "$burn"; wait "$burn" 2>/dev/null
collect_done
