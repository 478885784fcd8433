#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tick in the kernel that finds saved off-CPU frames: the
# reader of tests/progs/pipe_burst blocks in read() of an empty pipe and,
# woken, copies 8 MiB in the kernel before it returns, so with
# collect -K -p 1ms a tick lands in that copy while the frames of where it
# blocked (pipe_read's __schedule) wait for its return to user mode.  The
# off-CPU time goes in a packet of its own, up to the switch-in (the
# scheduler's own trace says when): the tick-taken packets with the saved
# frames (KMODE and KBLOCK) are stamped there, before their tick, and the
# packet after each is the tick's, with the copy's system time, so that
# none of it is charged to where the thread slept.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

st_start reader lwprof_st_before
trap st_cleanup EXIT
collect_setup sample_ktick
trap 'st_cleanup; release_session; unload_lwprof' EXIT
need_kprof
hold_session	# lwprof's probes after the first trace's
st_start reader lwprof_st_after
"$LWPROF" collect -K -p 1ms -o k.er "$progs/pipe_burst" 30 8 >out 2>collect.err
check $? -eq 0 "collect -K -p 1ms pipe_burst 30 8 ($(head -n 1 collect.err))"
release_session
"$LWPROF" dump k.er >dump.txt 2>dump.err
check $? -eq 0 "dump reads it"
tid=$(awk '$2 == "TASK" && /comm="reader"/ { sub("tid=", "", $6); print $6; exit }' dump.txt)
check -n "$tid" "the reader's tid ($tid)"
# The reader's clock packets in time order ("T VALUE SYSTEM FLAGS KERNEL
# SLEEP": KERNEL is system + trap time), and those taken by a tick with the
# saved frames of a block in read() (KBLOCK, KMODE, REGS: it entered read()
# from user mode; and some Sleep: not frames saved at a preemption).
awk -v t="tid=$tid" '$2 == "SAMPLE" && $6 == t {
		tt = $4; sub("t=", "", tt); v = $8; sub("value=", "", v)
		s = $0; sub(/.* system=/, "", s); sub(/ .*/, "", s)
		tr = $0; sub(/.* trap=/, "", tr); sub(/ .*/, "", tr)
		z = $0; sub(/.* sleep=/, "", z); sub(/ .*/, "", z)
		f = $9; sub("flags=", "", f)
		print tt, v, s, f, s + tr, z
	}' dump.txt | sort -n -k1,1 >packets
# From its naming on (prctl, the TASK comm record): the scheduler traces
# below know it by that name, and before it the exec's own blocks (page
# faults) are of no read().
rn=$(awk -v t="tid=$tid" '$2 == "TASK" && $3 == "comm" && $6 == t && /comm="reader"/ {
		sub("t=", "", $4); print $4; exit }' dump.txt)
check -n "$rn" "its naming ($rn s)"
awk -v r="${rn:-0}" '$1 > r && $4 ~ /KBLOCK/ && $4 ~ /KMODE/ && $4 ~ /REGS/ && $6 > 0 { print $3 }' \
	packets | sort -n >tick_kblock
ntk=$(wc -l <tick_kblock)
check "$ntk" -ge 15 "ticks in the copy found saved frames ($ntk of 30 wake-ups)"
echo "# their system time (ns): $(tr '\n' ' ' <tick_kblock)"
# Exact, whatever the host's load (kmod/offcpu.c, lwprof_offcpu_tick()):
#  - the packet with the saved frames (A) is sent at the tick but ends at
#    the switch-in: its time is lwprof's reading at the reader's
#    sched_switch, which two scheduler traces bracket, one started before
#    lwprof.ko was loaded and one after (tests/lib/schedtrace.sh);
#  - the packet after it (B) is the tick's own, on the copy's stack
#    (KMODE, no KBLOCK) with the copy's kernel time;
#  - the packets tile the thread's time: A's predecessor's time plus A's
#    value and B's is B's time, to the nanosecond;
#  - A carries no trap time: the interrupts' time in its span goes to B,
#    which settles the interrupt packets' share; so A's span ends that
#    much before its time (the "gap": 0 when no interrupt came, as after
#    a packet at the return to user mode, 40-250 us in TCG otherwise) and
#    B holds at least that much trap time.
# The old packet at the tick carried the frames and the copy's system
# time since the switch-in, at the tick's time: no switch-in there.
st_stop before.trace lwprof_st_before
st_stop after.trace lwprof_st_after
read -r n m bad < <(st_pair before.trace after.trace)
check "${bad:-1}" -eq 0 -a "${n:-0}" -gt 0 "the two scheduler traces hold the same events ($n and $m)"
# The reader's switch-ins: "LO HI" (ns), lwprof's reading between them.
awk -v A=before.trace -v B=after.trace -v P="$tid" "$st_awk_lib"'
	BEGIN {
		n = both(A, B)
		for (i = 1; i <= n; i++) {
			$0 = ev[i]
			if (event() == "sched_switch" && field("next_pid") == P)
				printf "%.0f %.0f\n", lo[i], hi[i]
		}
	}' >switchins
echo "# the reader's switch-ins traced: $(wc -l <switchins)"
awk -v r="${rn:-0}" 'function ns(x) { return sprintf("%.0f", x * 1e9) + 0 }
	NR == FNR { lo[++ni] = $1; hi[ni] = $2; next }
	{ t[++np] = ns($1); v[np] = $2; s[np] = $3; f[np] = $4
	  tr[np] = $5 - $3; z[np] = $6 }
	END {
		for (i = 2; i < np; i++) {
			if (f[i] !~ /KBLOCK/ || f[i] !~ /KMODE/ || f[i] !~ /REGS/ || !z[i] ||
			    t[i] <= ns(r))
				continue
			n++
			gap = t[i] - (t[i - 1] + v[i])
			if (f[i + 1] !~ /KMODE/ || f[i + 1] ~ /KBLOCK/ || s[i + 1] <= 0)
				notick++
			if (t[i - 1] + v[i] + v[i + 1] != t[i + 1])
				untiled++
			if (tr[i] != 0 || gap < 0 || gap > tr[i + 1])
				badtrap++
			at = 0
			for (j = 1; j <= ni && !at; j++)
				at = lo[j] <= t[i] && t[i] <= hi[j]
			if (!at)
				away++
			printf "%d ", gap >"gaps"
		}
		print n + 0, notick + 0, untiled + 0, badtrap + 0, away + 0
	}' switchins packets >split
read -r nsplit notick untiled badtrap away <split
echo "# A's span ends before its time by (ns): $(cat gaps 2>/dev/null)"
check "$nsplit" -eq "$ntk" "each of them has packets before and after it ($nsplit of $ntk)"
check "$away" -eq 0 "each one's time is a switch-in of the reader's, as both traces bracket it ($away are not)"
check "$notick" -eq 0 "the next is the tick's own, with the copy's kernel time ($notick are not)"
check "$untiled" -eq 0 "they tile the time: predecessor + A + B = B's time, to the ns ($untiled do not)"
check "$badtrap" -eq 0 "A has no trap time, B at least A's gap ($badtrap do not)"
collect_done
