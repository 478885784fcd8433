#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof ptime and lwprof top against a stand-in for the module's ioctls
# (build/tests/lib/fake_lwprof.so, LD_PRELOADed): options, output format,
# sums, exit statuses and error messages, without a kernel.  The fake's
# threads are described in tests/lib/fake_lwprof.c.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
[ -e "$fake" ] || { echo "FAIL: $fake not built (run make)"; exit 1; }
lw() { LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" "$@"; }

# Exit statuses pass through; output is on stderr only.
out=$(lw ptime sh -c 'exit 3' 2>/dev/null); rc=$?
check $rc -eq 3 "ptime passes exit status 3 through"
check -z "$out" "ptime writes nothing to stdout"
lw ptime sh -c 'kill -9 $$' 2>/dev/null
check $? -eq 137 "command killed by SIGKILL -> 137"
err=$(lw ptime /nonexistent/cmd 2>&1); rc=$?
check $rc -eq 127 "exec failure -> 127"
grep -q '^lwprof ptime: /nonexistent/cmd: No such file or directory$' <<<"$err"
check $? -eq 0 "exec failure names the command and the cause"

# Without -m: a blank line, then real, user, sys (sys includes trap).
err=$(lw ptime true 2>&1)
check "$(sed -n 1p <<<"$err")" = "" "output starts with a blank line"
check "$(sed 1d <<<"$err" | awk '{ printf "%s ", $1 }')" = "real user sys " \
	"without -m: real user sys"
check "$(awk '$1 == "real" { print $2 }' <<<"$err")" = 0.100000000 \
	"real is the main thread's lifetime"
check "$(awk '$1 == "user" { print $2 }' <<<"$err")" = 0.006000000 \
	"user is summed over the threads"
check "$(awk '$1 == "sys" { print $2 }' <<<"$err")" = 0.006900000 \
	"sys is system + trap without -m"
grep -Eq '^real +[0-9]+\.[0-9]{9}$' <<<"$err"
check $? -eq 0 "seconds with 9 decimals"

# With -m: eleven lines, sys without trap.
err=$(lw ptime -m true 2>&1)
check "$(sed 1d <<<"$err" | awk '{ printf "%s ", $1 }')" = \
	"real user sys trap tflt dflt kflt lock slp lat stop " \
	"with -m: the eleven lines in Solaris's order"
check "$(awk '$1 == "sys" { print $2 }' <<<"$err")" = 0.006000000 \
	"sys is system only with -m"
check "$(awk '$1 == "trap" { print $2 }' <<<"$err")" = 0.000900000 "trap"
check "$(awk '$1 == "slp" { print $2 }' <<<"$err")" = 0.587100000 "slp"

# -L: one row per thread after the totals, sorted by pid and tid.
err=$(FAKE_LWPROF_THREADS=150 lw ptime -L true 2>&1)
hdr=$(grep -m1 '^ *PID ' <<<"$err" | xargs)
check "$hdr" = "PID TID REAL USER SYS NAME" "-L header"
rows=$(awk 'f && NF { n++ } /^ *PID / { f = 1 } END { print n }' <<<"$err")
check "$rows" -eq 150 "-L lists all 150 threads (read in several calls)"
sorted=$(awk 'f { print $2 } /^ *PID / { f = 1 }' <<<"$err" | sort -c -n 2>&1)
check -z "$sorted" "-L rows sorted by tid"
check "$(awk 'f && $6 == "worker" && $7 == 2 { print $3, $4 } /^ *PID / { f = 1 }' <<<"$err")" \
	= "0.300000000 0.003000000" "a thread's REAL and USER; NAME keeps its space"
err=$(lw ptime -m -L true 2>&1)
hdr=$(grep -m1 '^ *PID ' <<<"$err" | xargs)
check "$hdr" = "PID TID REAL USER SYS TRAP TFLT DFLT KFLT LOCK SLP LAT STOP VCX ICX MINF MAJF SCL SIG NAME" \
	"-m -L header"
check "$(awk 'f && $1 ~ /^[0-9]+$/ { print $14, $15, $16, $17, $18, $19, $20 } /^ *PID / { f = 1 }' <<<"$err" | tail -n 1)" \
	= "5 1 102 0 7 1 worker" "-m -L counts"

# Errors.
lw ptime >/dev/null 2>&1; check $? -eq 2 "ptime without a command exits 2"
lw ptime -p 1 true >/dev/null 2>&1; check $? -eq 2 "-p and a command exits 2"
lw ptime -p 0 >/dev/null 2>&1; check $? -eq 2 "-p 0 exits 2"
lw ptime -x true >/dev/null 2>&1; check $? -eq 2 "unknown option exits 2"
err=$(FAKE_LWPROF_ATTACH_ERRNO=1 lw ptime -p 1 2>&1); rc=$?
check $rc -eq 1 "-p without ptrace rights exits 1"
check "$err" = "lwprof ptime: not allowed to trace PID 1 (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)" \
	"and says so, and what would allow it"
err=$(FAKE_LWPROF_ATTACH_ERRNO=3 lw ptime -p 4000000 2>&1)
check "$err" = "lwprof ptime: no such process: PID 4000000" "-p of no process"
err=$(FAKE_LWPROF_NO_MSTATE=1 lw ptime true 2>&1); rc=$?
check $rc -eq 1 "a module without microstates: exit 1"
grep -q 'no microstate accounting' <<<"$err"; check $? -eq 0 "and says so"
err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" ptime --backend module true 2>&1); rc=$?
check $rc -eq 1 "--backend module without the module: exit 1"
grep -q 'load the module' <<<"$err"; check $? -eq 0 "and says to load it"
err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" ptime true 2>&1); rc=$?
check $rc -eq 0 "auto without the module: runs on the perf backend"
grep -q '^lwprof ptime: backend perf (/dev/lwprof is missing' <<<"$err"
check $? -eq 0 "and names it and why in its log line"
err=$(lw ptime --backend module true 2>&1)
check "$(awk '$1 == "user" { print $2 }' <<<"$err")" = 0.006000000 \
	"--backend module: the module's times"
grep -q 'backend' <<<"$err"; check $? -eq 1 "the module backend logs no backend line"
lw ptime --backend nope true >/dev/null 2>&1
check $? -eq 2 "--backend with an unknown name exits 2"
lw top --backend nope >/dev/null 2>&1
check $? -eq 2 "top --backend with an unknown name exits 2"

# top, batch mode: a title line per refresh, then the table; with -p it
# ends when the process is gone, after a refresh with its exited threads.
out=$(lw top -b -n 2 -d 0.05 -p $$); rc=$?
check $rc -eq 0 "top -b -n 2 exits 0"
check "$(grep -c ' threads$' <<<"$out")" -eq 2 "two refreshes"
check "$(grep -m1 '^ *PID ' <<<"$out" | xargs)" = \
	"PID TID NAME USR SYS TRP TFL DFL KFL LCK SLP LAT STP VCX ICX SCL SIG" \
	"top header"
check "$(lw top -b -n 1 -d 0.05 -l 1 -p $$ | awk '$1 ~ /^[0-9]+$/' | wc -l)" -eq 1 \
	"-l 1 shows one row"
# The target lives until top has shown it once (top's start can take more
# than a short sleep's life on a loaded host), then goes.
sleep 60 & spid=$!
top_out=$(mktemp)
timeout 20 "$BASH" -c "LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null exec $LWPROF top -b -d 0.05 -p $spid" >"$top_out" &
tpid=$!
for i in $(seq 150); do grep -q ' threads$' "$top_out" && break; sleep 0.1; done
kill $spid; wait $spid 2>/dev/null
wait $tpid; rc=$?
out=$(cat "$top_out"); rm -f "$top_out"
check $rc -eq 0 "top -p ends when the process is gone"
check "$(awk -v t=$((spid + 2)) '$2 == t { print $3, $11, $14, $16 }' <<<"$out" | tail -n 1)" = \
	"worker_2 98.2 5 7" "last refresh: the exited thread's own span, counts; name without spaces"
lw top -s nope >/dev/null 2>&1; check $? -eq 2 "-s with an unknown column exits 2"
lw top -d 0 >/dev/null 2>&1; check $? -eq 2 "-d 0 exits 2"
lw top -n -1 >/dev/null 2>&1; check $? -eq 2 "-n -1 exits 2"
err=$(FAKE_LWPROF_ATTACH_ERRNO=1 lw top -b -n 1 2>&1); rc=$?
check $rc -eq 1 "machine top without the capability exits 1"
grep -q 'CAP_PERFMON' <<<"$err"; check $? -eq 0 "and names CAP_PERFMON"
done_testing
