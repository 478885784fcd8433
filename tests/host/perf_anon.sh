#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code of no file on the perf backend: perf names an anonymous executable
# mapping "//anon", which is no path; the experiment must hold it as the
# module does (an anonymous mapping, no file to archive or read) and the
# analyzer show its code as the one pseudo function of the anonymous
# object, not as <static>@ADDR of a file that does not exist.  The truth:
# tests/progs/anon_code spends all but a clock read per million loop
# iterations in its loop, copied into an anonymous mapping whose address
# it prints.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
work=$(mktemp -d /tmp/perf_anon.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$ms_progs/anon_code" 0 >/dev/null 2>&1
[ $? -ne 77 ] || skip "anon_code cannot run code of no file here"
"$LWPROF" collect --backend perf -p 1ms -o a.er "$ms_progs/anon_code" 0.3 >out 2>err
check $? -eq 0 "collect --backend perf anon_code 0.3"
addr=$(head -n 1 out)
m=$("$LWPROF" dump a.er 2>/dev/null | grep " MMAP " | grep -F "start=$addr ")
echo "# $m"
check "$(grep -c ' anon path=//anon$' <<<"$m")" -ge 1 "dump: the mapping at $addr is anonymous, //anon"
f=$("$LWPROF" print -printmode csv -metrics e.user:name -functions a.er 2>&1)
echo "$f" | sed 's/^/# /'
share=$(awk -F, '$NF == "<Total>" { t = $1 } $NF == "anon" { a = $1 }
	END { if (t > 0) printf "%.0f", 100 * a / t }' <<<"$f")
check "${share:-0}" -ge 90 "-functions: the anonymous code's pseudo function has ${share:-0}% of User CPU"
check "$(grep -c '(anon)' <<<"$f")" -eq 0 "-functions: no <static>@ADDR of a file named anon"
check "$(awk '$NF ~ /^\/\//' a.er/archives/index.txt 2>/dev/null | wc -l)" -eq 0 "archives: nothing copied for it"
done_testing
