#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof top -b on the real module: a spinning process's row shows it in
# user mode, its states add up to 100%, top -p ends with its process, and
# the machine-wide session lists many threads.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

progs=$LWPROF_BUILD/tests/progs
load_lwprof

"$progs/spin" 30 & spid=$!
out=$("$LWPROF" top -b -n 2 -d 0.5 -p $spid); rc=$?
echo "$out" | sed 's/^/    /'
check $rc -eq 0 "top -b -n 2 -d 0.5 -p PID exits 0"
check "$(grep -c ' threads$' <<<"$out")" -eq 2 "two refreshes, each with a title line"
check "$(grep -m1 '^ *PID ' <<<"$out" | xargs)" = \
	"PID TID NAME USR SYS TRP TFL DFL KFL LCK SLP LAT STP VCX ICX SCL SIG" \
	"the header"
row=$(awk -v p=$spid '$1 == p && $2 == p' <<<"$out" | tail -n 1)
check -n "$row" "the spinning thread has a row"
usr=$(awk '{ print $4 }' <<<"$row")
awk -v u="$usr" 'BEGIN { exit !(u >= 80) }'
check $? -eq 0 "its USR is near 100% ($usr)"
sum=$(awk '{ for (i = 4; i <= 13; i++) s += $i; print s }' <<<"$row")
awk -v s="$sum" 'BEGIN { exit !(s >= 99.4 && s <= 100.6) }'
check $? -eq 0 "its ten states add up to 100% ($sum)"
check "$(awk '{ print $3 }' <<<"$row")" = spin "its NAME is spin"
kill $spid; wait $spid

"$progs/spin" 0.5 & spid=$!
out=$(timeout 60 "$LWPROF" top -b -d 0.2 -p $spid); rc=$?
check $rc -eq 0 "top -p without -n ends when the process is gone"
wait $spid

out=$("$LWPROF" top -b -n 1 -d 0.5); rc=$?
check $rc -eq 0 "machine-wide top as root exits 0"
rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' <<<"$out" | wc -l)
title=$(awk '/ threads$/ { print $(NF - 1) }' <<<"$out")
check "$rows" -ge 20 "it lists many threads ($rows)"
check "$rows" -eq "$title" "the title counts them"
awk '$1 ~ /^[0-9]+$/' <<<"$out" | head -n 5 | sed 's/^/    /'
done_testing
