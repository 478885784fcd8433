#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel-heavy loop pinned to one CPU, through collect -a -K and print
# tests/progs/zero_reader (read() of /dev/zero, almost all of
# it in the kernel) and tests/progs/spin_nap (2 ms of user spin, then an
# 8 ms nanosleep) both under taskset -c 1, recorded with collect -a -K -t 3
# while they run.  Ground truth: what runs where is pinned.
#  - functions: read_zero has the reader's System CPU (at least 80% of it,
#    inclusive; of its packets with a kernel stack where the module keeps
#    none of a thread switched out), the reader's time is mostly System;
#  - -cpu_list: CPU 1 is busy (System its largest part, under 5% idle),
#    CPU 0 mostly idle but for the recorder (which runs there or on CPU 1);
#  - -cpu_select 0 and 1 split every view: with -functions read_zero's
#    System CPU is all on CPU 1 and none on CPU 0, each CPU's <Total> is
#    its -cpu_list Sum, the two add up to the whole; with -callers-callees
#    (-csingle read_zero) CPU 1's view is the whole one and CPU 0 has no
#    time in read_zero;
#  - User CPU never lands on a kernel function: no kernel object
#    ([kernel.kallsyms], a module's) has User CPU in -objects, and
#    do_nanosleep has most of spin_nap's Sleep and none of its User CPU (a
#    packet taken at the return from nanosleep holds the spin's User CPU
#    and the nap's Sleep; only the Sleep belongs to the kernel stack where
#    the thread blocked; naps that end before a grid point have their
#    Sleep in the next packet, a tick in the spin; not where the module
#    keeps no kernel stack of a thread that blocked).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
need_kprof
[ "$(grep -c '^cpu[0-9]' /proc/stat)" -ge 2 ] || skip "needs 2 CPUs"
work=$(mktemp -d /tmp/collect_pinned.XXXXXX) || exit 1
cd "$work" || exit 1
# Both run until the recording is over, then are stopped: how long collect
# takes to start varies (over 4 s once in a busy guest, where workloads of
# a fixed 6 s ended 1.7 s into the 3 s recording and left CPU 1 idle).
taskset -c 1 "$LWPROF_BUILD/tests/progs/zero_reader" 600000 >zr.out &
zr=$!
taskset -c 1 "$LWPROF_BUILD/tests/progs/spin_nap" 600000 >sn.out &
sn=$!
sleep 0.5
"$LWPROF" collect -a -K -t 3 -o p.er >/dev/null 2>collect.err &
cpid=$!
wait $cpid
check $? -eq 0 "collect -a -K -t 3 of zero_reader and spin_nap on CPU 1"
kill -TERM $zr $sn
wait $zr
check $? -eq 143 "zero_reader ran through the recording (stopped by SIGTERM after it)"
wait $sn
check $? -eq 143 "spin_nap ran through the recording (stopped by SIGTERM after it)"

tl=$("$LWPROF" print -thread_list p.er)
zt=$(awk -v p=$zr '$3 == p && $4 == p { print $1 }' <<<"$tl")
st=$(awk -v p=$sn '$3 == p && $4 == p { print $1 }' <<<"$tl")
check -n "$zt" "zero_reader ($zr) in -thread_list"
check -n "$st" "spin_nap ($sn) in -thread_list"

# -cpu_list: CPU 1 busy in the kernel, CPU 0 idle.
cl=$("$LWPROF" print -cpu_list p.er)
echo "$cl"
read -r u1 s1 i1 d1 m1 < <(awk '$1 == 1 { print $3, $4, $5, $6, $7 }' <<<"$cl")
read -r u0 s0 i0 d0 m0 < <(awk '$1 == 0 { print $3, $4, $5, $6, $7 }' <<<"$cl")
awk -v u="$u1" -v s="$s1" -v i="$i1" -v d="$d1" 'BEGIN { exit !(s > u && s > i && s > d) }'
check $? -eq 0 "cpu 1: System $s1 s its largest part (user $u1, interrupt $i1, idle $d1)"
awk -v d="$d1" -v m="$m1" 'BEGIN { exit !(m > 0 && d < 0.05 * m) }'
check $? -eq 0 "cpu 1: idle $d1 s under 5% of $m1 s"
# CPU 0 but for the recorder itself (its threads' time in usage.txt, on
# either CPU), which is no part of the workload: in the PREEMPT_RT guest
# it took 1.4 s of a 3.2 s run, its io_uring workers included.
rec=$(awk -v p="$cpid" 'NR > 1 && $1 == p { s += $7 + $8 + $9 } END { printf "%.3f", s / 1e9 }' p.er/usage.txt)
awk -v d="$d0" -v m="$m0" -v r="$rec" 'BEGIN { exit !(m > 0 && d >= 0.8 * (m - r)) }'
check $? -eq 0 "cpu 0: idle $d0 s at least 80% of its $m0 s less the recorder's $rec s"

# -functions, whole and per CPU.
m=e.user:e.system:e.trap:e.idle:i.system:e.sleep:name
fn() { "$LWPROF" print -printmode csv -metrics $m "$@" -functions p.er; }
col() { awk -F, -v f="$2" -v c="$3" '$7 == f { v = $c } END { printf "%.3f", v }' <<<"$1"; }
all=$(fn)
c0=$(fn -cpu_select 0)
c1=$(fn -cpu_select 1)
z=$(fn -thread_select "$zt")
zs=$(col "$z" '<Total>' 2)
zrz=$(col "$z" read_zero 5)
ztot=$(awk -F, '$7 == "<Total>" { printf "%.3f", $1 + $2 + $3 + $6 }' <<<"$z")
echo "# zero_reader: total $ztot s, System $zs s, read_zero inclusive System $zrz s"
awk -v s="$zs" -v t="$ztot" 'BEGIN { exit !(t > 0 && s >= 0.5 * t) }'
check $? -eq 0 "zero_reader: System $zs s most of its $ztot s"
# Where the module keeps no kernel stack of a thread switched out (a gap
# lwprof version names: PREEMPT_RT, no allocation in the probes), a packet
# owed across a preemption goes out at the return to user mode with the
# user stack alone, and holds the System time up to the preemption: that
# share cannot be read_zero's (7% of the reader's System in a run on 6.1
# rt, where spin_nap's wakeups preempt it).  read_zero's share is then of
# the System time of the packets that have a kernel stack.
zk=$zs
if module_gap "no kernel stack where off-CPU time began"; then
	zn=$("$LWPROF" dump p.er 2>/dev/null | awk -v t="$zr" '
		/ SAMPLE clock / && $0 ~ " tid=" t " " && / kframes=0 / {
			for (i = 1; i <= NF; i++) if ($i ~ /^system=/) s += substr($i, 8) }
		END { printf "%.3f", s / 1e9 }')
	zk=$(awk -v a="$zs" -v b="$zn" 'BEGIN { printf "%.3f", a - b }')
	echo "# no kernel stack where a thread was switched out: $zn s of its System in packets without a kernel stack"
fi
awk -v r="$zrz" -v s="$zk" 'BEGIN { exit !(s > 0 && r >= 0.8 * s) }'
check $? -eq 0 "zero_reader: read_zero holds $zrz s of its System $zk s with a kernel stack"
check "$(col "$c1" read_zero 5)" = "$(col "$all" read_zero 5)" "-cpu_select 1: all of read_zero's System ($(col "$all" read_zero 5) s)"
check "$(col "$c0" read_zero 5)" = 0.000 "-cpu_select 0: none of read_zero's System"
for c in 0 1; do
	v=c$c
	t=$(awk -F, '$7 == "<Total>" { printf "%.3f", $1 + $2 + $3 + $4 }' <<<"${!v}")
	s=$(awk -v c=$c '$1 == c { print $7 }' <<<"$cl")
	awk -v a="$t" -v b="$s" 'BEGIN { d = a - b; exit !(d * d <= 0.0015 ^ 2) }'
	check $? -eq 0 "-cpu_select $c: <Total> $t s is CPU $c's -cpu_list Sum $s s"
done
for k in 1 2 3 4 6; do
	a=$(col "$all" '<Total>' $k)
	b=$(awk -v x="$(col "$c0" '<Total>' $k)" -v y="$(col "$c1" '<Total>' $k)" 'BEGIN { printf "%.3f", x + y }')
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d * d <= 0.0015 ^ 2) }'
	check $? -eq 0 "-cpu_select 0 + 1: column $k $b s is the whole's $a s"
done

# -callers-callees per CPU, by the attributed metric: what each caller and
# callee took of read_zero's time, all on CPU 1.  (Not a caller's
# inclusive time: vfs_read's is every read's on the machine, and another
# process's on CPU 0 once made the whole's 5 ms more than CPU 1's.)
cc() { "$LWPROF" print -printmode csv -metrics a.system:name "$@" -csingle read_zero p.er; }
ca=$(cc)
ca1=$(cc -cpu_select 1)
ca0=$(cc -cpu_select 0)
echo "$ca1"
check "$ca1" = "$ca" "-cpu_select 1: read_zero's callers-callees are the whole's"
check "$(grep -c read_zero <<<"$ca1")" -ge 1 "  and name read_zero"
nz=$(awk -F, '$1 + 0 > 0' <<<"$ca0" | wc -l)
check "$nz" -eq 0 "-cpu_select 0: no System time around read_zero ($(tr '\n' ' ' <<<"$ca0" | head -c 200))"

# No User CPU on kernel functions.
o=$("$LWPROF" print -printmode csv -metrics e.user:name -objects p.er)
echo "$o"
ko=$(awk '{ printf "[%s]\n", $1 }' /proc/modules; echo '[kernel.kallsyms]')
ku=$(awk -F, 'NR == FNR { k[$0] = 1; next } $2 in k { s += $1 } END { printf "%.3f", s }' <(echo "$ko") - <<<"$o")
check "$ku" = 0.000 "-objects: no User CPU in kernel objects ($ku s)"
s=$(fn -thread_select "$st")
echo "$s"
check "$(col "$s" do_nanosleep 1)" = 0.000 "spin_nap: no User CPU on do_nanosleep"
sl=$(col "$s" do_nanosleep 6)
sa=$(col "$s" '<Total>' 6)
if module_gap "no kernel stack where off-CPU time began"; then
	echo "# no kernel stack where a thread blocked: spin_nap's Sleep is on its user stack ($sa s)"
else
	awk -v a="$sl" -v t="$sa" 'BEGIN { exit !(a > 0 && a >= 0.5 * t) }'
	check $? -eq 0 "spin_nap: do_nanosleep has $sl s of its Sleep $sa s"
fi
su=$(col "$s" '<Total>' 1)
awk -v u="$su" 'BEGIN { exit !(u > 0) }'
check $? -eq 0 "spin_nap: User CPU $su s, on user functions"
rm -rf "$LWPROF_OUT/collect_pinned.er"; cp -r p.er "$LWPROF_OUT/collect_pinned.er" 2>/dev/null
cd / && rm -rf "$work"
done_testing
