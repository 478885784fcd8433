#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Global sample packets, pause/resume and data limits on the real module
# tests/progs/phases calls the collector API around three CPU
# phases of known thread CPU time (it prints what each took): the packets
# carry its names, -sample_select of a phase gives that phase's CPU time,
# the paused phase is in no metric and costs the others no caller; -S
# packets come every interval; -l and -y signals sent from the shell, to
# the command and to collect, record packets and pause and resume; -t
# START-END records a window of a command; -L stops at its size while the
# command runs on.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_samples

# cpu EXP [print args]: the experiment's Total CPU (s) under the filters.
cpu() { local e=$1; shift
	"$LWPROF" print "$@" -printmode csv -metrics e.totalcpu:name -functions "$e" 2>/dev/null |
		awk -F, '$2 == "<Total>" { print $1 }'; }
# fcpu EXP FUNC [print args]: FUNC's inclusive Total CPU (s), 0 if absent.
fcpu() { local e=$1 f=$2; shift 2
	"$LWPROF" print "$@" -printmode csv -metrics i.totalcpu:name -functions "$e" 2>/dev/null |
		awk -F, -v f="$f" '$2 == f { v = $1 } END { print v + 0 }'; }
# sample EXP NAME: the number of the sample NAME begins.
sample() { "$LWPROF" print -sample_list "$1" 2>/dev/null | awk -v n="$2" '$NF == n { print $2; exit }'; }
# near A B MS: |A - B| <= MS milliseconds (A, B in seconds)
near() { awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 1000 <= m) }'; }

# 1. The collector API: phases 500 300 600 ms, the second paused.
"$LWPROF" collect -S off -o api.er "$progs/phases" 500 300 600 >phases.txt 2>err.txt
check $? -eq 0 "collect -S off phases exits 0 ($(tail -1 err.txt))"
read -r _ _ p1 <<<"$(sed -n 1p phases.txt)"
read -r _ _ p2 <<<"$(sed -n 2p phases.txt)"
read -r _ _ p3 <<<"$(sed -n 3p phases.txt)"
"$LWPROF" dump api.er >api.dump 2>&1
for n in phase1 phase2 phase3 done; do
	check "$(grep -c ": PACKET api .* name=\"$n\"" api.dump)" -eq 1 "a packet named $n"
done
check "$(grep -c ': PACKET pause ' api.dump)" -eq 1 "one pause packet"
check "$(grep -c ': PACKET resume ' api.dump)" -eq 1 "one resume packet"
check "$(grep -c ': PACKET periodic ' api.dump)" -eq 0 "-S off: no periodic packets"
grep -q ': PACKET end .* minflt=[1-9]' api.dump
check $? -eq 0 "the end packet has the process's final counts"
paused=$(key api.er paused_ns)
# the pause spans phase 2's CPU time at least
check "$(awk -v p="$paused" -v c="$p2" 'BEGIN { print (p / 1e6 >= c * 0.98) }')" -eq 1 \
	"log.txt paused_ns $paused covers phase 2's ${p2} ms"
"$LWPROF" print -header api.er 2>/dev/null | grep -q 'Sample packets: 8, recording paused'
check $? -eq 0 "-header: 8 packets (start, 4 named, pause, resume, end) and the paused time"
for i in 1 3; do
	n=$(sample api.er phase$i)
	want=$([ $i = 1 ] && echo "$p1" || echo "$p3")
	got=$(cpu api.er -sample_select "$n")
	# a phase's edges are within a 10 ms packet of its sample's
	near "$got" "$(awk -v w="$want" 'BEGIN { print w / 1000 }')" 30
	check $? -eq 0 "-sample_select $n (phase$i): Total CPU $got s, the phase took $want ms"
	# most of it in burn$i: the packet at the wake-up from the 20 ms sleep
	# after it charges its last tick's CPU (later in a busy guest) to
	# clock_nanosleep
	got=$(fcpu api.er burn$i -sample_select "$n")
	check "$(awk -v g="$got" -v w="$want" 'BEGIN { print (g >= 0.8 * w / 1000 && g <= w / 1000 + 0.03) }')" -eq 1 \
		"  of it burn$i: $got s"
	eval "burn$i=\$got"
done
n=$(sample api.er phase1)
check "$(fcpu api.er burn3 -sample_select "$n")" = 0 "burn3 is not in phase1's sample"
got=$(fcpu api.er burn3 -filters "SAMPLE == $(sample api.er phase3)")
check "$got" = "$burn3" "-filters 'SAMPLE == N' selects as -sample_select: burn3 $got s"

# paused: burn2 at most the straddling packet's unpaused share (10 ms)
got=$(fcpu api.er burn2)
near "$got" 0 12
check $? -eq 0 "the paused phase (burn2, ${p2} ms) is in no metric: $got s"
# and costs no caller: a packet it leaves out still hands its stack copy
# to the reader, the base of the delta copies after the resume
err=$("$LWPROF" print -functions api.er 2>&1 >/dev/null)
check "$(grep -c 'without their base' <<<"$err")" -eq 0 "no delta copy without its base across the pause ($err)"
got=$(fcpu api.er main)
check "$(awk -v m="$got" -v a="$burn1" -v b="$burn3" 'BEGIN { print (m >= a + b - 0.001) }')" -eq 1 \
	"main's inclusive CPU $got s holds burn1's and burn3's ($burn1 + $burn3 s)"
# from phase1 to done (the loading before it and the exit after it are
# the program's too, slow in a TCG guest)
sel=$(sample api.er phase1)-$(($(sample api.er done) - 1))
got=$(cpu api.er -sample_select "$sel")
near "$got" "$(awk -v a="$p1" -v b="$p3" 'BEGIN { print (a + b) / 1000 }')" 60
check $? -eq 0 "-sample_select $sel: Total CPU $got s: phases 1 and 3 ($p1 + $p3 ms), not 2"
"$LWPROF" print -sample_list api.er >list.txt 2>&1
check "$(awk '$NF == "phase1" && $12 >= 0' list.txt | wc -l)" -eq 1 "-sample_list names phase1"
"$LWPROF" print -overview api.er 2>/dev/null | grep -q '^ *1 *[0-9]* .*#.* phase3$'
check $? -eq 0 "-overview shows the samples over time (phase3's bar)"

# 2. -S 0.5: a packet on each 0.5 s of a 2 s run, on a grid from the
# start: the k-th no sooner than k x 0.5 s (a timer in a TCG guest on a
# busy host fires late, never early; a late one does not delay the next,
# and one too late for its point is not made), so at most one per 0.5 s.
"$LWPROF" collect -S 0.5 -o per.er "$progs/cpu_burn" 2 >/dev/null 2>err.txt
check $? -eq 0 "collect -S 0.5 cpu_burn 2"
"$LWPROF" dump per.er | sed -n 's/.*: PACKET [a-z]* t=\([0-9.]*\).*/\1/p' >per.t
n=$(($(wc -l <per.t) - 2))
span=$(awk 'NR == 1 { a = $1 } { b = $1 } END { print b - a }' per.t)
check "$n" -ge 2 "periodic packets: $n in $span s"
check "$(awk -v n="$n" -v s="$span" 'BEGIN { print (n <= s / 0.5) }')" -eq 1 \
	"  at most one per 0.5 s"
early=$(awk -v n="$n" 'NR == 1 { s = $1 } NR > 1 && NR <= n + 1 { if ($1 - s < (NR - 1) * 0.5 - 0.001) bad++ }
	END { print bad + 0 }' per.t)
check "$early" -eq 0 "  the k-th no sooner than k x 0.5 s ($(tr '\n' ' ' <per.t))"

# 3. -l USR1, from the shell: to the command (the preloaded handler) twice,
# then to collect; each packet at its signal's time.  The shell notes the
# clock (/proc/uptime: CLOCK_BOOTTIME, 10 ms steps, the monotonic clock in
# a guest that never suspends) just before and after each kill.
"$LWPROF" collect -S off -l USR1 -o sig.er sh -c \
	'for i in 1 2; do sleep 0.3; read a _ </proc/uptime; kill -USR1 $$; read b _ </proc/uptime; echo "$a $b" >>kills.t; done; until [ -e go ]; do sleep 0.1; done' \
	>/dev/null 2>err.txt & cpid=$!
until [ "$(wc -l 2>/dev/null <kills.t)" = 2 ]; do sleep 0.1; done
read -r a _ </proc/uptime; kill -USR1 $cpid; read -r b _ </proc/uptime
echo "$a $b" >>kills.t
touch go; wait $cpid
check $? -eq 0 "collect -l USR1 exits 0 ($(tail -1 err.txt))"
"$LWPROF" dump sig.er >sig.dump
sed -n 's/.*: PACKET signal t=\([0-9.]*\) .*name="USR1".*/\1/p' sig.dump >sig.t
check "$(wc -l <sig.t)" -eq 3 "three USR1 packets (two to the command, one to collect)"
# the command's: stamped in its handler, between the clock reads; collect's:
# when collect reads its signalfd, after (the guest may be slow: 2 s)
ok=$(paste kills.t sig.t | awk '{ if ($3 >= $1 - 0.011 && $3 <= $2 + (NR == 3 ? 2 : 0.011)) n++ } END { print n + 0 }')
check "$ok" -eq 3 "each packet at its kill ($(paste -d' ' kills.t sig.t | tr '\n' ';'))"

# 4. -y USR2 (,r: recording at first) from the shell: paused in the middle.
"$LWPROF" collect -S off -y USR2,r -o tog.er sh -c \
	"$progs/cpu_burn 0.5 >/dev/null; kill -USR2 \$\$; $progs/cpu_burn 0.6 >/dev/null; kill -USR2 \$\$; $progs/cpu_burn 0.5 >/dev/null" \
	2>err.txt
check $? -eq 0 "collect -y USR2,r exits 0"
"$LWPROF" dump tog.er >tog.dump
check "$(grep -c ': PACKET pause ' tog.dump)/$(grep -c ': PACKET resume ' tog.dump)" = 1/1 \
	"one pause and one resume"
# each cpu_burn process's precise CPU (usage.txt: user + system + trap of
# its thread) is in the samples, but the paused second's is not
burns() { "$LWPROF" dump "$1" 2>/dev/null |
	sed -n 's/.*: TASK exec t=\([0-9.]*\) pid=\([0-9]*\) .*comm="cpu_burn".*/\1 \2/p' |
	sort -n | awk '{ print $2 }'; }
precise() { awk -v p="$2" '$1 == p && $2 == p { print ($7 + $8 + $9) / 1e9 }' "$1/usage.txt"; }
mapfile -t b < <(burns tog.er)
check "${#b[@]}" -eq 3 "three cpu_burn processes"
for i in 0 1 2; do
	got=$(cpu tog.er -filters "PID == ${b[$i]}")
	want=$([ $i = 1 ] && echo 0 || precise tog.er "${b[$i]}")
	near "${got:-0}" "$want" 15
	check $? -eq 0 "cpu_burn $((i + 1)) (pid ${b[$i]}): Total CPU ${got:-0} s, want $want (of $(precise tog.er "${b[$i]}") s)"
done
# without ,r: paused until the first signal
"$LWPROF" collect -S off -y USR2 -o tog2.er sh -c \
	"$progs/cpu_burn 0.6 >/dev/null; kill -USR2 \$\$; $progs/cpu_burn 0.5 >/dev/null" 2>err.txt
mapfile -t b < <(burns tog2.er)
got=$(cpu tog2.er -filters "PID == ${b[0]}")
near "${got:-0}" 0 10
check $? -eq 0 "-y USR2 starts paused: the first cpu_burn ${got:-0} s (of $(precise tog2.er "${b[0]}") s)"
got=$(cpu tog2.er -filters "PID == ${b[1]}")
near "${got:-0}" "$(precise tog2.er "${b[1]}")" 15
check $? -eq 0 "  the second, after the signal, ${got:-0} s (of $(precise tog2.er "${b[1]}") s)"

# 5. -t 2-3 on a command: only that second of a 3 s loop.
"$LWPROF" collect -S off -t 2-3 -o win.er "$progs/cpu_burn" 3 >/dev/null 2>err.txt
check $? -eq 0 "collect -t 2-3 cpu_burn 3 exits 0"
# one thread alive through the window: its Total Thread Time is the window,
# from the resume to the end as the timers fired (a busy guest's fire
# late), less what followed its last packet (a 10 ms tick, later in a
# busy TCG guest)
got=$("$LWPROF" print -printmode csv -metrics e.total:name -functions win.er 2>/dev/null |
	awk -F, '$2 == "<Total>" { print $1 }')
win=$("$LWPROF" dump win.er 2>/dev/null | awk '/: PACKET resume / { split($4, a, "="); r = a[2] }
	/: PACKET end / { split($4, a, "="); e = a[2] } END { print e - r }')
check "$(awk -v g="$got" -v w="$win" 'BEGIN { print (g >= w - 0.05 && g <= w + 0.005) }')" -eq 1 \
	"-t 2-3: Total Thread Time $got s, the window $win s"
ok=$("$LWPROF" dump win.er 2>/dev/null | awk '{ split($4, a, "=") }
	/: PACKET start / { s = a[2] } /: PACKET resume / { r = a[2] } /: PACKET end / { e = a[2] }
	END { print (r - s >= 2 && e - s >= 3) }')
check "$ok" -eq 1 "  resumed no sooner than 2 s, ended no sooner than 3 s"
check "$(grep -c ': PACKET' <("$LWPROF" dump win.er 2>/dev/null))" -eq 4 \
	"  packets: start, pause (-t START), resume, end (-t END)"
check "$(key win.er stopped)" = "-t END" "log.txt: stopped = -t END"

# 6. -L 1: 1 MB, the command runs on to its end and exit status.
start=$(date +%s.%N)
"$LWPROF" collect -L 1 -p 1ms --stack-delta off -o lim.er sh -c "$progs/cpu_burn 3 >/dev/null; exit 5" 2>err.txt
rc=$?
end=$(date +%s.%N)
check $rc -eq 5 "collect -L 1 waits for the command and passes its status (5)"
size=$(du -sb --exclude=archives lim.er | cut -f1)
rings=$(( $(key lim.er ring_pages) * 4096 * $(key lim.er cpus_possible) ))
check "$size" -ge $((1 << 20)) "the experiment reached 1 MB ($size bytes)"
check "$size" -le $(((1 << 20) + 2 * rings + 65536)) "and stopped there, give or take a drain and what the rings held ($rings)"
check "$(key lim.er stopped)" = "data limit" "log.txt: stopped = data limit"
grep -q 'data limit (-L 1 MB) was reached' err.txt
check $? -eq 0 "collect says so"
"$LWPROF" print -header lim.er 2>/dev/null | grep -q 'Stopped early:  data limit'
check $? -eq 0 "-header says so"
"$LWPROF" dump lim.er >lim.dump 2>&1
check $? -eq 0 "a sound experiment"

collect_done
