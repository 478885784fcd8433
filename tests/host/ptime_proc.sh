#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof ptime without the module (--backend perf: /proc and taskstats),
# on this host, against the workloads' own ground truth:
#   - ms_waitcpu: three threads spinning on one CPU; each one's LAT at
#     least its time off CPU from the start gate to its park plus its wait
#     before (less 2% or 5 ms), and at least its schedstat wait then; its
#     USER+SYS at least its CPU time then (exact in schedstat and in the
#     taskstats exit record that ptime reads when the thread is gone).
#     Only lower bounds here: the wake-up from the park to the exit waits
#     for a CPU on this busy host, as long as other people's load makes it
#     (17 ms seen); the guest's ptime_nomod checks both sides;
#   - nthreads: each thread sleeps only in one nanosleep, whose time as the
#     thread saw it is its sleep plus its wake-up's wait for a CPU (LAT)
#     plus microseconds of CPU: SLP <= that + a tick, and SLP + LAT + USR
#     + SYS >= that - 1 ms (check_nthreads in tests/lib/ptime_perf.sh;
#     the wake-up wait is milliseconds on this shared host, so LAT is not
#     a constant to compare with);
#   - cpu_burn, run as nobody (no taskstats: exited threads keep their last
#     reading): user+sys still counts every exited thread (the command's
#     rusage), within 0.6 s CPU - 1% and + 50 ms (the loop reads its CPU
#     clock every million additions, 1 to 3 ms here, per thread, and exec);
#     nthreads' workers, as nobody, keep a reading from near their end;
#   - processes too short for any /proc reading still get their rows (their
#     exit records), and an orphan is read to its end;
#   - the columns /proc cannot fill are "-", never 0; SCL and SIG too
#     without tracefs, and with it (mounted in a private mount namespace)
#     they count: scl_burst N K's main thread makes N getppid() calls and
#     K raise()s more than scl_burst 0 0's, and glibc's raise() is a
#     tgkill, an rt_sigreturn and two rt_sigprocmask: N + 2K <= SCL
#     difference <= N + 4K; SIG is exactly K;
#   - refusals say what would allow them.
# Runs as root (taskstats needs CAP_NET_ADMIN); the nobody parts use
# setpriv.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/tracefs.sh"
. "$(dirname "$0")/../lib/ptime_perf.sh"

pp_setup host/ptime_proc

wrap=notrace

# The backend: auto takes perf when /dev/lwprof does not answer.
err=$(LWPROF_DEVICE=/nonexistent "$LWPROF" ptime true 2>&1)
check $? -eq 0 "auto without the module: ptime runs"
grep -q '^lwprof ptime: backend perf (/dev/lwprof is missing: load the module (modprobe lwprof)): ' <<<"$err"
check $? -eq 0 "and its log names the perf backend and why"
grep -q 'exited threads: exact (taskstats exit records)' <<<"$err"
check $? -eq 0 "as root, exited threads' totals come from taskstats"

# WAIT_CPU, and CPU time of threads that exited before the end.
ms_dir_save=$ms_dir
pt waitcpu "$progs/ms_waitcpu"
check $? -eq 0 "ptime ms_waitcpu exits 0"
check_waitcpu waitcpu busy
ms_check_sums
check "$(awk 'NR > 1 && ($6 != "-" || $10 != "-" || $13 != "-" || $18 != "-" || $19 != "-")' \
	"$ms_dir/waitcpu.table" | wc -l)" -eq 0 "rows: TRAP LOCK STOP SCL SIG are - on every row"
check "$(awk 'NR > 1 && $14 == "-"' "$ms_dir/waitcpu.table" | wc -l)" -eq 0 \
	"rows: VCX is a number on every row"

# SLEEP: nthreads' workers, each one nanosleep of 200 ms, exited by the end.
pt nthreads "$progs/nthreads" 3 200
check $? -eq 0 "ptime nthreads exits 0"
check "$(awk 'NR > 1' "$ms_dir/nthreads.table" | wc -l)" -eq 4 \
	"four rows: main and the three exited workers"
check_nthreads nthreads

# Processes that live less than a /proc reading's interval (100 ms): their
# rows come from their exit records.
pt short sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done'
check "$(awk 'NR > 1 && $NF == "true"' "$ms_dir/short.table" | wc -l)" -eq 10 \
	"ten /bin/true processes, ten rows"

# An orphan (its parent exits at once) is still the command's: ptime, its
# subreaper, reads it to its end and reaps it.
pt orphan sh -c "$progs/nap 0.3 & exit 0"
check $? -eq 0 "ptime of a command that leaves an orphan exits 0"
check -z "$(grep -i warning "$ms_dir/orphan.err")" "no warning: the orphan ended within 2 s"
nap_tid=$(awk 'NR > 1 && $NF == "nap" { print $2 }' "$ms_dir/orphan.table")
exp=$(awk '{ printf "%.0f", $2 * 1e9 }' "$ms_dir/orphan.out")
s=$(col orphan "$nap_tid" slp)
rest=$(awk -v t="$nap_tid" 'NR > 1 && $2 == t { print $11 + $12 + $4 + $5 }' "$ms_dir/orphan.table")
# Unlike a thread, nap's life holds its exec and dynamic loading, which
# may sleep reading the page cache in, and its exit's last tick: 20 ms.
check "${s:-0}" -le $((exp + 20000000)) "the orphan nap: SLP $(ms_ms "${s:-0}") <= its sleep $(ms_ms "$exp") + 20 ms"
check "${rest:-0}" -ge $((exp - 1000000)) "the orphan nap: SLP+LAT+USR+SYS $(ms_ms "${rest:-0}") >= its sleep - 1 ms"

# Without taskstats (nobody): exited threads keep their last reading, but
# the totals still count them all (the command's rusage).
err=$(nobody "$LWPROF" ptime --backend perf "$progs/cpu_burn" 0.2 3 2>&1 >/dev/null)
echo "$err" | sed 's/^/#   /'
grep -q 'taskstats exit records need CAP_NET_ADMIN' <<<"$err"
check $? -eq 0 "as nobody, the log says what taskstats would need"
cpu=$(awk '$1 == "user" || $1 == "sys" { s += $2 * 1e9 } END { printf "%.0f", s }' <<<"$err")
check "$cpu" -ge 594000000 "user+sys $(ms_ms "$cpu") >= 3 x 200 ms - 1%"
check "$cpu" -le 650000000 "user+sys $(ms_ms "$cpu") <= 3 x 200 ms + 50 ms"
nobody "$LWPROF" ptime --backend perf -m -L "$progs/nthreads" 2 1000 2>"$ms_dir/nb.err" >"$ms_dir/nb.out"
table "$ms_dir/nb"
check "$(awk 'NR > 1' "$ms_dir/nb.table" | wc -l)" -eq 3 "nobody: the workers, read while alive, have rows"
while read -r _ tid _ slept _; do
	s=$(col nb "$tid" slp)
	exp=$(awk -v s="$slept" 'BEGIN { printf "%.0f", s * 1e9 }')
	rest=$(awk -v t="$tid" 'NR > 1 && $2 == t { print $11 + $12 + $4 + $5 }' "$ms_dir/nb.table")
	# A reading every 100 ms while alive; on this shared host ptime may
	# itself wait tens of ms for a CPU first (we saw 80 ms): the last one
	# is within 300 ms of the worker's end, the life it saw at least
	# the 1 s nanosleep less that.
	check "${s:-0}" -le $((exp + 11000000)) "nobody, worker $tid: SLP $(ms_ms "${s:-0}") <= its nanosleep $(ms_ms "$exp") + 11 ms"
	check "${rest:-0}" -ge $((exp - 300000000)) "nobody, worker $tid: SLP+LAT+USR+SYS $(ms_ms "${rest:-0}") >= its nanosleep - 300 ms"
done < <(grep '^tid ' "$ms_dir/nb.out")

# Syscall and signal counts: perf's tracepoint counters, with tracefs.
grep -q 'no syscall or signal counts (no tracefs mounted' "$ms_dir/waitcpu.err"
check $? -eq 0 "without tracefs, the log says why SCL and SIG are -"
wrap=withtrace
pt scl0 "$progs/scl_burst" 0 0
pt scl "$progs/scl_burst" 5000 30
check $? -eq 0 "ptime scl_burst 5000 30 exits 0 (its handler ran 30 times)"
grep -q 'syscalls and signals: perf counters' "$ms_dir/scl.err"
check $? -eq 0 "with tracefs, the log says SCL and SIG are counted"
read -r scl0 < <(awk 'NR == 2 { print $18 }' "$ms_dir/scl0.table")
read -r scl sig < <(awk 'NR == 2 { print $18, $19 }' "$ms_dir/scl.table")
d=$((scl - scl0))
check "$d" -ge $((5000 + 2 * 30)) "SCL $scl - $scl0 (the same program without the calls) >= 5000 + 2 x 30"
check "$d" -le $((5000 + 4 * 30)) "SCL $scl - $scl0 <= 5000 + 4 x 30"
check "$sig" = 30 "SIG is the 30 signals delivered"
err=$(withtrace setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"$LWPROF" ptime --backend perf true 2>&1)
grep -q "no syscall or signal counts (perf's tracepoints need CAP_PERFMON" <<<"$err"
check $? -eq 0 "nobody, with tracefs: the log says what counting would need"
wrap=notrace

# -p: permissions and the end of the process.
err=$(nobody "$LWPROF" ptime --backend perf -p 1 2>&1); rc=$?
check $rc -eq 1 "nobody, -p 1: exit 1"
check "$err" = "lwprof ptime: not allowed to trace PID 1 (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)" \
	"and says what would allow it"
err=$("$LWPROF" ptime --backend perf -p 4000000 2>&1)
check "$err" = "lwprof ptime: no such process: PID 4000000" "-p of no process"
# real counts from the attach: the process started 0.3 s before ptime,
# so real within ptime's own wall time shows that it does.
"$progs/nap" 0.8 >/dev/null & npid=$!
sleep 0.3
t0=$(date +%s%N)
"$LWPROF" ptime --backend perf -m -L -p $npid 2>"$ms_dir/p.err"; rc=$?
t1=$(date +%s%N)
table "$ms_dir/p"
check $rc -eq 0 "-p PID: exit 0 when PID ends"
r=$(total p real)
check "${r:-0}" -le $((t1 - t0)) "-p: real $(ms_ms "${r:-0}") <= ptime's own wall time $(ms_ms $((t1 - t0)))"
check "$(total p lat)" != "-" "-p: lat is filled"
wait $npid
done_testing
