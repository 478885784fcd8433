#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ring overflow (the reliability battery): tiny rings (-m 4), clock
# packets every 1 ms, a target that forks 64-thread children over and
# over, the recorder stopped (SIGSTOP) for a second.  The rings must overflow, and then: collect exits 0 and warns; the
# lost records are counted in log.txt, per CPU, and the LOST records in
# the files add up to that count; every record file reads back whole
# (dump) with as many records as the module says it wrote; print reads
# the experiment.  LWPROF_STRESS_SECS (default 3) sizes it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/collect.sh"

load_lwprof
need_sampling
secs=${LWPROF_STRESS_SECS:-3}
work=$(mktemp -d /tmp/stress_overflow.XXXXXX) || exit 1
cd "$work" || exit 1

# The recorder is stopped for a second mid-run, so that the rings overflow
# whatever the machine's speed (an idle guest drains 4 pages in time).
"$LWPROF" collect -o o.er -m 4 --stack-bytes 2048 -p 1ms \
	"$LWPROF_BUILD/tests/progs/churn_target" $((secs + 1)) 64 >/dev/null 2>err.txt &
rec=$!
sleep 1
kill -STOP $rec; sleep 1; kill -CONT $rec
wait $rec
check $? -eq 0 "collect with 4-page rings exits 0"
err=$(cat err.txt)
lost=$(key o.er lost) recs=$(key o.er records)
echo "# records $recs, lost $lost"
check "${lost:-0}" -gt 0 "the rings overflowed: $lost records lost"
grep -q 'records lost on CPU' <<<"$err"
check $? -eq 0 "collect warns about the lost records: $(grep -m1 'records lost on CPU' <<<"$err")"
percpu=$(sed -n 's/^lost\.cpu[0-9]* = //p' o.er/log.txt | awk '{ s += $1 } END { print s + 0 }')
check "$percpu" -eq "${lost:-0}" "log.txt's lost.cpuN add up to lost ($percpu)"

d=$("$LWPROF" dump o.er 2>dump.err >dump.out; echo $?)
check "$d" -eq 0 "dump reads every file whole (exit $d: $(head -n 2 dump.err))"
# "cpu.N.rec: R records: ... L LOST (X lost) ..." for each file.
frecs=$(sed -n 's/^.*cpu\.[0-9]*\.rec: \([0-9]*\) records: .*/\1/p' dump.out | awk '{ s += $1 } END { print s + 0 }')
flost=$(sed -n 's/^.*cpu\.[0-9]*\.rec: .* LOST (\([0-9]*\) lost).*/\1/p' dump.out | awk '{ s += $1 } END { print s + 0 }')
echo "# files: $frecs records, LOST records say $flost lost"
check "$flost" -eq "${lost:-0}" "the LOST records in the files count every lost record ($flost)"
check "$frecs" -eq "${recs:-0}" "the files hold every record the module wrote ($frecs of $recs)"
"$LWPROF" print -statistics o.er >/dev/null 2>print.err
check $? -eq 0 "print -statistics reads it ($(head -n 1 print.err))"
done_testing
