#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The collector API and global sample packets on the host (the fake
# module's rings): a program linked with liblwprof_collector.so runs
# normally without collect, leaves alone a descriptor that is not the
# channel, and under collect its calls become named packets, a pause and
# a resume (format 1.4's samples.rec); -l's signal to the command (the
# preloaded handler) and to collect; -S packets; -L and -t END stop
# recording while the command runs on; the flight recorder's snapshot on
# its signal and at the end.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
phases=$LWPROF_BUILD/tests/progs/phases
[ -e "$fake" ] && [ -x "$phases" ] || { echo "FAIL: $fake or $phases not built (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
lw() { LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" "$@"; }
export FAKE_LWPROF_SAMPLES=20

# Without collect: it runs and does nothing else.
"$phases" 20 20 20 >alone.txt 2>&1
check $? -eq 0 "phases runs without collect"
check "$(grep -c '^phase [123] ' alone.txt)" -eq 3 "and prints its three phases"
# A descriptor that is not the channel (a file where the socket was):
# left alone, nothing written to it.
LWPROF_COLLECTOR=3:12345 "$phases" 20 20 20 >out.txt 3>fd3.txt
check $? -eq 0 "with LWPROF_COLLECTOR naming a file: runs"
check ! -s fd3.txt "  and writes nothing to that file"

# Under collect: the packets.
lw collect -S off -o api.er "$phases" 50 50 50 >/dev/null 2>err.txt
check $? -eq 0 "collect phases exits 0 ($(tail -1 err.txt))"
check -f api.er/samples.rec "samples.rec"
lw dump api.er >dump.txt 2>dump.err
check $? -eq 0 "dump reads it ($(head -1 dump.err))"
kinds=$(sed -n 's/.*: PACKET \([a-z]*\) .*/\1/p' dump.txt | tr '\n' ' ')
check "$kinds" = "start api api pause resume api api end " "packets in order: $kinds"
names=$(sed -n 's/.*: PACKET api .*name="\([^"]*\)".*/\1/p' dump.txt | tr '\n' ' ')
check "$names" = "phase1 phase2 phase3 done " "named by the calls: $names"
grep -q ": PACKET resume .* paused=[1-9][0-9]\{7\}" dump.txt
check $? -eq 0 "the resume packet says how long it was paused (50 ms or more)"
pid=$(sed -n 's/^target = //p' api.er/log.txt)
grep -q ": PACKET api .* pid=$pid .* minflt=[1-9]" dump.txt
check $? -eq 0 "with the command's statistics (pid $pid)"
check "$(sed -n 's/^sample_packets = //p' api.er/log.txt)" -eq 8 "log.txt: sample_packets = 8"
lw print -sample_list api.er >list.txt 2>/dev/null
for n in phase1 phase2 phase3 done collector_pause collector_resume; do
	check "$(awk -v n=$n '$NF == n' list.txt | wc -l)" -eq 1 "-sample_list: a sample named $n"
done
check "$(awk '$NF == "collector_pause" { print ($(NF-1) >= 0.05) }' list.txt)" = 1 \
	"  the paused sample's Paused column is its 50 ms"
lw print -sample_select 2-3 -header api.er >/dev/null 2>&1
check $? -eq 0 "-sample_select 2-3"
lw print -sample_select x api.er >/dev/null 2>&1
check $? -ne 0 "-sample_select x is an error"
lw print -filters 'SAMPLE in (1, 3-4)' -overview api.er >/dev/null 2>&1
check $? -eq 0 "-filters with SAMPLE"

# -l USR1: once by the command (to itself), once to collect.
LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" collect -S off -l USR1 -o sig.er sh -c 'kill -USR1 $$; until [ -e go ]; do sleep 0.02; done' \
	>/dev/null 2>err.txt & cpid=$!
for i in $(seq 200); do [ -e sig.er/log.txt ] && break; sleep 0.05; done
sleep 0.3; kill -USR1 $cpid; sleep 0.3; touch go; wait $cpid
check $? -eq 0 "collect -l USR1 exits 0"
check "$(lw dump sig.er 2>/dev/null | grep -c ': PACKET signal .* name="USR1"')" -eq 2 \
	"two USR1 packets: the command's, collect's"

# -S 0.1: periodic packets, one each 0.1 s of the run (which a loaded
# machine makes longer than the command's 0.6 s) and one at its end.
lw collect -S 0.1 -o per.er sleep 0.6 2>/dev/null
n=$(lw dump per.er 2>/dev/null | grep -c ': PACKET periodic ')
most=$(awk '/^start_ns = / { s = $3 } /^end_ns = / { e = $3 } END { printf "%d", (e - s) / 1e8 + 1 }' per.er/log.txt)
check "$n" -ge 3 "-S 0.1 over 0.6 s: $n periodic packets"
check "$n" -le "$most" "  at most one each 0.1 s of the run, and one at its end: $most"

# -t END with a command: recording stops, the command runs on.
lw collect -t 0.2 -o win.er sh -c 'sleep 0.6; exit 4' 2>/dev/null
check $? -eq 4 "-t 0.2: collect waits for the command and passes its status"
check "$(sed -n 's/^stopped = //p' win.er/log.txt)" = "-t END" "log.txt: stopped = -t END"
st=$(sed -n 's/^start_ns = //p' win.er/log.txt); en=$(sed -n 's/^end_ns = //p' win.er/log.txt)
check "$(( (en - st) / 1000000 ))" -lt 500 "recording ended at END ($(( (en - st) / 1000000 )) ms), not with the command"

# -L 1 with many fake samples: stops at the size.
FAKE_LWPROF_SAMPLES=20000 lw collect -L 1 -m 64 -o lim.er sh -c 'sleep 1.5; exit 3' 2>err.txt
check $? -eq 3 "-L 1: the command's status"
size=$(cat lim.er/*.rec | wc -c)
check "$size" -ge $((1 << 20)) "the experiment reached 1 MB ($size)"
# checked at each drain: one write (a ring's lap) past it, and what the
# rings held when the module stopped
check "$size" -le $(((1 << 20) + 3 * 2 * 64 * 4096 + 4096)) "  and stopped within it and the rings' bytes"
grep -q 'data limit (-L 1 MB) was reached' err.txt
check $? -eq 0 "collect says so"

# The flight recorder: a snapshot on USR2, one at the end.
FAKE_LWPROF_SAMPLES=3000 LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" collect --flight 1M -o fl.er sh -c 'until [ -e go2 ]; do sleep 0.02; done' \
	>/dev/null 2>err.txt & cpid=$!
for i in $(seq 200); do [ -n "$(pgrep -P $cpid)" ] && break; sleep 0.05; done
sleep 0.5; kill -USR2 $cpid
for i in $(seq 200); do [ -e fl.er/log.txt ] && break; sleep 0.05; done
touch go2; wait $cpid
check $? -eq 0 "collect --flight exits 0 ($(tail -1 err.txt))"
check -d fl.er "the snapshot on SIGUSR2: fl.er"
check -d fl.2.er "the one at the end: fl.2.er"
grep -q '^flight = the last 1 MB: ' fl.er/log.txt
check $? -eq 0 "log.txt: flight = the last 1 MB ..."
bytes=$(cat fl.er/cpu.*.rec | wc -c)
check "$bytes" -le $(((1 << 20) + 65536)) "the window fits 1 MB ($bytes bytes)"
lw dump fl.2.er >/dev/null 2>dump.err
check $? -eq 0 "dump reads the last window ($(head -1 dump.err))"
done_testing
