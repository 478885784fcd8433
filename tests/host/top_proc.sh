#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof top without the module (--backend perf: /proc and taskstats), on
# this host:
#   - a thread spinning in user mode never sleeps: no voluntary switch,
#     more USR than SYS.  Its SLP in an interval is not 0 but not bounded
#     either: the kernel adds a run-queue wait to schedstat when the wait
#     ends, so the wait in progress at a refresh is missing from that
#     interval's LAT (and shows as SLP) and lands in the next one; on this
#     shared host a wait can last over 100 ms.  What holds is checked on an
#     exit (below);
#   - a thread asleep in one nanosleep is 100% SLP (>= 99%: the same skew);
#   - a thread that exits during an interval shows once more with its last
#     piece of life (its taskstats exit record, where every wait has
#     ended: USR+SYS+LAT >= 97% for a spinner's last 0.5 s: its run time
#     since its last tick, 10 ms at most at HZ=100, is not in the record
#     and counts as SLP), then top -p ends;
#   - the columns /proc cannot fill are "-" on every row (SCL and SIG
#     too without tracefs); with tracefs, a thread asleep makes no system
#     call and gets no signal: SCL and SIG are 0, exactly;
#   - the whole machine needs CAP_PERFMON or CAP_SYS_ADMIN, like the module.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/tracefs.sh"
. "$(dirname "$0")/../lib/ptime_perf.sh"

pp_setup host/top_proc

# field FILE PID COL...: the columns of PID's row in the last refresh.
row() {
	awk -v p="$2" '$1 == p && $2 == p { r = $0 } END { print r }' "$1"
}

"$progs/spin" 4 & spid=$!
"$progs/nap" 10 >/dev/null & npid=$!
sleep 0.2
notrace "$LWPROF" top --backend perf -b -n 2 -d 1 -p $spid >"$ms_dir/spin" 2>"$ms_dir/spin.err"
check $? -eq 0 "top -p of a spinning process exits 0"
sed 's/^/#   /' "$ms_dir/spin" "$ms_dir/spin.err"
grep -q '^lwprof top: backend perf' "$ms_dir/spin.err"
check $? -eq 0 "its log names the backend"
read -r usr sys vcx < <(row "$ms_dir/spin" $spid | awk '{ print $4, $5, $14 }')
check "$vcx" = 0 "spin: no voluntary context switch"
check "$(awk -v u="$usr" -v s="$sys" 'BEGIN { print (u > s) }')" = 1 "spin: USR $usr > SYS $sys"
check "$(row "$ms_dir/spin" $spid | awk '{ print $6, $7, $8, $9, $10, $13, $16, $17 }')" = \
	"- - - - - - - -" "spin: TRP TFL DFL KFL LCK STP SCL SIG are -"

withtrace "$LWPROF" top --backend perf -b -n 2 -d 0.5 -p $npid >"$ms_dir/nap" 2>/dev/null
read -r slp vcx scl sig < <(row "$ms_dir/nap" $npid | awk '{ print $11, $14, $16, $17 }')
check "$scl $sig" = "0 0" "nap, with tracefs: SCL and SIG counted: 0 in the interval"
check "$(awk -v v="$slp" 'BEGIN { print (v >= 99) }')" = 1 "nap: SLP $slp >= 99%"
check "$vcx" = 0 "nap: no context switch in the interval"
kill $spid $npid 2>/dev/null
wait $spid $npid 2>/dev/null

# An exit between refreshes: spin 1.5 under refreshes at 1 s and 2 s.
"$progs/spin" 1.5 & spid=$!
timeout 20 "$LWPROF" top --backend perf -b -d 1 -n 5 -p $spid >"$ms_dir/exit" 2>/dev/null
check $? -eq 0 "top -p ends when the process is gone"
wait $spid
sed 's/^/#   /' "$ms_dir/exit"
check "$(grep -c ' threads$' "$ms_dir/exit")" -le 3 "after at most three refreshes (1.5 s of life)"
read -r usr sys lat < <(row "$ms_dir/exit" $spid | awk '{ print $4, $5, $12 }')
check "$(awk -v u="$usr" -v s="$sys" -v l="$lat" 'BEGIN { print (u + s + l >= 97) }')" = 1 \
	"its last refresh has its last piece (its exit record): USR+SYS+LAT $usr+$sys+$lat >= 97%"

# The whole machine.
err=$(nobody "$LWPROF" top --backend perf -b -n 1 2>&1); rc=$?
check $rc -eq 1 "nobody, whole machine: exit 1"
check "$err" = "lwprof top: whole-machine sessions need CAP_PERFMON or CAP_SYS_ADMIN (run as root, or give the lwprof binary cap_perfmon with setcap, or use -p PID)" \
	"and says what would allow it"
"$LWPROF" top --backend perf -b -n 1 -d 0.2 >"$ms_dir/machine" 2>/dev/null
check $? -eq 0 "root, whole machine: exit 0"
check "$(awk '$1 ~ /^[0-9]+$/' "$ms_dir/machine" | wc -l)" -ge 10 "root, whole machine: many threads"
check -n "$(row "$ms_dir/machine" 1)" "root, whole machine: PID 1 is there"
done_testing
