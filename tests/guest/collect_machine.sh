#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every CPU's time, through collect and print: lwprof collect
# -a -K -t 7 of an idle guest; this script reads /proc/stat and
# /proc/uptime inside the run, waits 5 s and reads them again.
#  - -cpu_list: each CPU's Sum (user + system + interrupt + idle) is at
#    least the run's elapsed time (log.txt's start_ns to end_ns) and at
#    most the time since the attach (usage.txt's start_ns of the threads
#    that existed then), within 1% (a packet goes to the CPU it is taken
#    on, with any time its thread had on another), and so is the
#    machine's, CPUs times those.  The threads that existed at the attach
#    are accounted from it, and their first packets hold that time
#    (docs/design/sampling.md), while idle time counts from SAMPLE_START: what
#    they ran during the recorder's setup is in the Sum (7.399 s of a
#    7.132 s run on a CPU, with the host's load at 6, when the check asked
#    for the elapsed time on both sides);
#  - each CPU's Idle holds the kernel's idle time of the window (/proc/stat
#    idle + iowait, which the kernel keeps in ns and shows in USER_HZ
#    ticks: 2 ticks of rounding over the two reads) and at most that plus
#    the run outside the window: the window lies inside the run; so does
#    <IDLE> in the functions view, for the whole machine;
#  - kernel threads are named as the kernel names them: swapper/N (pid
#    0, tid N) for each CPU's idle, ksoftirqd/N, migration/N and cpuhp/N
#    of each CPU with their pids, every kernel thread's name its comm
#    (task->comm: 15 characters of /proc's full name, and a kworker's
#    without the workqueue's "+desc" or "-desc" that /proc adds), and the
#    kernel threads' time is under kthread(), and none of it is User CPU
#    (usage.txt: a kernel thread runs no user code).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
need_kprof
work=$(mktemp -d /tmp/collect_machine.XXXXXX) || exit 1
cd "$work" || exit 1
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
# The window's reads and waits are bash builtins (mapfile, read -t on a
# fifo): nothing is forked or loaded from the 9p root while it lasts.
snap() {
	local u s
	mapfile -t u </proc/uptime
	mapfile -t s </proc/stat
	printf '%s\n' "${u[@]}" "${s[@]}" >"$1"
}
mkfifo tick && exec 3<>tick
"$LWPROF" collect -a -K -t 7 -o m.er >/dev/null 2>collect.err &
cpid=$!
for ((i = 0; i < 300; i++)); do
	grep -qs '^start_ns' m.er/log.txt && break
	read -r -t 0.1 -u 3
done
read -r -t 0.5 -u 3
snap s0
read -r -t 5 -u 3
snap s1
wait $cpid
check $? -eq 0 "collect -a -K -t 7"
check "$(sed -n 's/^idle = //p' m.er/log.txt)" = 1 "log: idle = 1"
check "$(sed -n 's/^exit = //p' m.er/log.txt)" = running "log: the window was inside the run"
start=$(sed -n 's/^start_ns = //p' m.er/log.txt)
end=$(sed -n 's/^end_ns = //p' m.er/log.txt)
el=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", (e - s) / 1e9 }')

att=$(awk 'NR > 1 && attached($4) { if (m == "" || $5 < m) m = $5 } END { print m }
	function attached(f) { return f == "0x2" || f == "0x3" }' m.er/usage.txt)
since=$(awk -v a="${att:-$start}" -v e="$end" 'BEGIN { printf "%.6f", (e - a) / 1e9 }')
echo "# $ncpu CPUs, elapsed $el s, $since s since the attach"

# Per CPU and machine: the Sum column between elapsed and the time since
# the attach.
cl=$("$LWPROF" print -cpu_list m.er)
echo "$cl"
check "$(awk '$1 ~ /^[0-9]+$/' <<<"$cl" | wc -l)" -eq "$ncpu" "-cpu_list: a row per CPU"
for ((c = 0; c < ncpu; c++)); do
	sum=$(awk -v c=$c '$1 == c { print $7 }' <<<"$cl")
	awk -v s="$sum" -v e="$el" -v a="$since" 'BEGIN { exit !(s >= e * 0.99 && s <= a * 1.01) }'
	check $? -eq 0 "cpu $c: Sum $sum s between elapsed $el s and $since s since the attach, within 1%"
done
all=$(awk '$1 ~ /^[0-9]+$/ { s += $7 } END { printf "%.3f", s }' <<<"$cl")
awk -v s="$all" -v e="$el" -v a="$since" -v n="$ncpu" \
	'BEGIN { exit !(s >= n * e * 0.99 && s <= n * a * 1.01) }'
check $? -eq 0 "machine: $all s between $ncpu x $el s and $ncpu x $since s, within 1%"

# /proc/stat over the window: idle + iowait per CPU (USER_HZ ticks).
hz=$(getconf CLK_TCK)
w=$(awk 'FNR == 1 { u[FILENAME] = $1 } END { printf "%.2f", u["s1"] - u["s0"] }' s0 s1)
awk -v c="$ncpu" 'FNR == 1 { next } $1 ~ /^cpu[0-9]/ { print FILENAME, $0 }' s0 s1 >stat
all_theirs=0
for ((c = 0; c < ncpu; c++)); do
	read -r k0 k1 < <(awk -v c="cpu$c" -v hz="$hz" '$2 == c {
		v[$1] = ($6 + $7) / hz } END { print v["s0"], v["s1"] }' stat)
	theirs=$(awk -v a="$k0" -v b="$k1" 'BEGIN { printf "%.2f", b - a }')
	all_theirs=$(awk -v a="$all_theirs" -v b="$theirs" 'BEGIN { printf "%.2f", a + b }')
	ours=$(awk -v c=$c '$1 == c { print $6 }' <<<"$cl")
	echo "# cpu $c: window $w s, /proc/stat idle+iowait $theirs s; <IDLE> of the run $ours s (run $el s)"
	awk -v o="$ours" -v t="$theirs" -v hz="$hz" 'BEGIN { exit !(o >= t - 2 / hz) }'
	check $? -eq 0 "cpu $c: <IDLE> $ours s holds the window's idle $theirs s"
	awk -v o="$ours" -v t="$theirs" -v hz="$hz" -v e="$el" -v w="$w" \
		'BEGIN { exit !(o <= t + (e - w) + 2 / hz) }'
	check $? -eq 0 "cpu $c: <IDLE> $ours s at most the window's $theirs s + the run outside it"
done

# <IDLE> in the functions view: the same bounds, for the machine.  (Not a
# share of the machine's time: the idle guest's own work, this script
# and the kernel's threads and ticks, takes as much more of its time as
# the host's load slows the TCG guest's code but not its clock: 93% idle
# with the host's load between 5 and 15, 95% asked.)
f=$("$LWPROF" print -printmode csv -metrics e.user:e.system:e.trap:e.idle:name -functions m.er)
tot=$(awk -F, '$5 == "<Total>" { print $1 + $2 + $3 + $4 }' <<<"$f")
idl=$(awk -F, '$5 == "<IDLE>" { print $4 }' <<<"$f")
echo "# <IDLE> $idl of the machine's $tot s; /proc/stat idle+iowait $all_theirs s in the window"
awk -v o="$idl" -v t="$all_theirs" -v n="$ncpu" -v hz="$hz" -v e="$el" -v w="$w" \
	'BEGIN { exit !(o >= t - 2 * n / hz && o <= t + n * (e - w) + 2 * n / hz) }'
check $? -eq 0 "functions: <IDLE> $idl s holds the window's idle $all_theirs s, at most that + the run outside it"

# Kernel threads' names.
tl=$("$LWPROF" print -thread_list m.er)
for ((c = 0; c < ncpu; c++)); do
	check "$(awk -v c=$c '$3 == 0 && $4 == c { print $5 }' <<<"$tl")" = "swapper/$c" \
		"cpu $c's idle: pid 0 tid $c swapper/$c"
	for k in ksoftirqd migration cpuhp; do
		pid=$(grep -lx "$k/$c" /proc/[0-9]*/comm | cut -d/ -f3)
		check "$(awk -v p="$pid" '$3 == p && $4 == p { print $5 }' <<<"$tl")" = "$k/$c" \
			"$k/$c: thread $pid named $k/$c"
	done
done
bad=0 nk=0 kthr=
while read -r n pid name; do
	[ "$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)" = 2 ] || continue
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
	# A worker's /proc name is its comm, then "+" or "-" and what it
	# works for; on 6.12 a rescuer's comm holds a "-" itself
	# (kworker/R-kvfre of /proc's kworker/R-kvfree_rcu_reclaim).
	case $name in kworker/*)
		rest=${comm#"$name"}
		case $rest in
		"$comm") ;;
		''|[+-]*) comm=$name ;;
		*) [ ${#name} -eq 15 ] && comm=$name ;;
		esac
	esac
	comm=${comm:0:15}
	nk=$((nk + 1))
	kthr=$kthr${kthr:+,}$n
	[ "$name" = "$comm" ] || { echo "# $pid: $name, comm $comm"; bad=$((bad + 1)); }
done < <(awk '$1 ~ /^[0-9]+$/ && $3 == $4 && $3 > 2 { print $1, $3, $5 }' <<<"$tl")
check "$nk" -gt 10 "$nk kernel threads in -thread_list"
check "$bad" -eq 0 "every kernel thread named by its comm"
# A kernel thread runs no user code: no User CPU in usage.txt for any,
# those the attach found running or runnable included.
kuser=
while read -r tid user name; do
	[ "$tid" = 2 ] || [ "$(awk '{ print $4 }' "/proc/$tid/stat" 2>/dev/null)" = 2 ] || continue
	[ "$user" -gt 0 ] && kuser="$kuser $name ($tid) $user ns"
done < <(awk 'NR > 1 && $1 == $2 { print $2, $7, $23 }' m.er/usage.txt)
check -z "$kuser" "no kernel thread has User CPU${kuser:+:$kuser}"
k=$("$LWPROF" print -printmode csv -metrics i.total:name -filters "THRID in ($kthr)" -functions m.er)
kt=$(awk -F, '$2 == "<Total>" { print $1 }' <<<"$k")
kk=$(awk -F, '$2 == "kthread" { print $1 }' <<<"$k")
awk -v a="$kk" -v t="$kt" 'BEGIN { exit !(t > 0 && a >= 0.99 * t) }'
check $? -eq 0 "kernel threads' time under kthread() ($kk of $kt s)"
rm -rf "$LWPROF_OUT/collect_machine.er"; cp -r m.er "$LWPROF_OUT/collect_machine.er" 2>/dev/null
cd / && rm -rf "$work"
done_testing
