#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# collect -a on the perf backend names the threads that existed before it
# started and resolves their code: perf reports forks, execs, renames and
# mappings only as they happen, so the recorder reads /proc for the rest
# (userspace/backend/perf/proc.c).  Ground truth: named_spin names its two threads
# (prctl) and spins in nspin_outer() -> nspin_inner() before collect
# starts; the names are read back from /proc/PID/task/*/comm, the
# functions from the binary's symbol table.  Also: a rename during the
# recording wins over what /proc said at its start (the perf record is
# later), the recorder's own threads and the kernel's (kthreadd) are
# named, and print reads the experiment without a warning.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 0 ]; then
	skip "-a needs root or perf_event_paranoid 0 (it is $paranoid)"
fi
work=$(mktemp -d /tmp/perf_preexist.XXXXXX) || exit 1
spin=$ms_progs/named_spin
trap 'kill $sp 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

# start: wait for "ready", then read the truth while it runs
start_spin() {
	coproc SPIN { exec "$spin" "$1"; }
	sp=$SPIN_PID
	read -r -t 10 ready pid <&"${SPIN[0]}"
	check "$ready:$pid" = "ready:$sp" "named_spin $sp is ready"
}
for f in nspin_inner nspin_outer; do
	nm "$spin" | grep -Eq " [tT] $f$"
	check $? -eq 0 "truth: $f is in named_spin's symbol table"
done

start_spin 60
declare -A comm
for t in /proc/"$sp"/task/*; do
	comm[${t##*/}]=$(cat "$t/comm")
done
echo "# truth: $(for t in "${!comm[@]}"; do printf '%s=%s ' "$t" "${comm[$t]}"; done)"
kcomm=$(cat /proc/2/comm 2>/dev/null)
"$LWPROF" collect -a --backend perf -t 1 -o pre.er 2>pre.err &
cp=$!
wait "$cp"
check $? -eq 0 "collect -a --backend perf -t 1 while named_spin runs"
sed 's/^/# /' pre.err
grep '^perf_proc_scan' pre.er/log.txt | sed 's/^/# log.txt: /'
grep -Eq '^perf_proc_scan = [1-9][0-9]* threads of [1-9][0-9]* processes' pre.er/log.txt
check $? -eq 0 "log.txt says how many threads /proc gave and how long it took"

tl=$("$LWPROF" print -thread_list pre.er 2>tl.err)
check $? -eq 0 "print -thread_list"
sed 's/^/# print: /' tl.err
# (records lost to a full ring on a loaded machine are said, not errors)
check "$(grep -vc 'records were lost (ring full)' tl.err)" -eq 0 "print finds no bad record (pid 0, time outside the run)"
awk -v p="$sp" '$3 == p' <<<"$tl" | sed 's/^/# /'
check "${#comm[@]}" -eq 2 "truth: named_spin has two threads"
for t in "${!comm[@]}"; do
	name=$(awk -v p="$sp" -v t="$t" '$3 == p && $4 == t { print $5 }' <<<"$tl")
	check "$name" = "${comm[$t]}" "thread $t is named '${comm[$t]}' (/proc's comm), not '$name'"
done
own=$(awk -v p="$cp" '$3 == p' <<<"$tl")
echo "$own" | sed 's/^/# recorder: /'
check "$(grep -c . <<<"$own")" -ge 2 "the recorder's own threads are listed (pid $cp)"
check "$(awk '$5 == "?"' <<<"$own" | grep -c .)" -eq 0 "... all named"
if [ -n "$kcomm" ]; then
	name=$(awk '$3 == 2 && $4 == 2 { print $5 }' <<<"$tl")
	check "$name" = "$kcomm" "kernel thread 2 is named '$kcomm', not '$name'"
fi
unnamed=$(awk 'NR > 1 && $5 == "?"' <<<"$tl" | wc -l)
echo "# threads named ? (ran, then exited before the scan read them): $unnamed of $(($(wc -l <<<"$tl") - 1))"

sel=$(awk -v p="$sp" '$3 == p { printf "%s%s", s, $1; s = "," }' <<<"$tl")
f=$("$LWPROF" print -thread_select "$sel" -printmode csv -metrics i.total:e.user:name -functions pre.er 2>/dev/null)
echo "$f" | head -6 | sed 's/^/# /'
read -r outer inner <<<"$(awk -F, '$NF == "<Total>" { t = $1; u = $2 } $NF == "nspin_outer" { o = $1 }
	$NF == "nspin_inner" { i = $2 }
	END { if (t > 0 && u > 0) printf "%.0f %.0f", 100 * o / t, 100 * i / u }' <<<"$f")"
total=$(awk -F, '$NF == "<Total>" { print int(1000 * $1) }' <<<"$f")
# each thread's account runs from the scan's time (just after the enable)
# to its last packet at the end: twice the end less a few ms
end=$(awk -v p="$sp" '$3 == p { if ($NF > e) e = $NF } END { print int(1000 * e) }' <<<"$tl")
check "${total:-0}" -ge $((2 * ${end:-0} - 40)) "named_spin's two threads: ${total:-0} ms of Total Thread Time, 2 x ${end:-0} ms less 40 at most (every ns from the start)"
check "${total:-0}" -le $((2 * ${end:-0} + 2)) "... and no more than 2 x ${end:-0} ms"
check "${outer:-0}" -ge 95 "nspin_outer() is on the stack of ${outer:-0}% of named_spin's time (its mappings from /proc)"
check "${inner:-0}" -ge 90 "nspin_inner() has ${inner:-0}% of named_spin's User CPU"
kill "$sp"
wait "$sp" 2>/dev/null

# A rename while recording: the perf record is later than the scan's
# time, whether it lands before, during or after the scan.
start_spin 60
"$LWPROF" collect -a --backend perf -o ren.er -- sh -c "kill -USR1 $sp; sleep 0.5" 2>ren.err
check $? -eq 0 "collect -a --backend perf -- (rename named_spin's main thread)"
sed 's/^/# /' ren.err
name=$("$LWPROF" print -thread_list ren.er 2>/dev/null | awk -v p="$sp" '$3 == p && $4 == p { print $5 }')
check "$name" = "$(cat /proc/"$sp"/comm)" "the renamed thread is named by the later record: '$name'"
check "$name" = nspin_renamed "... which is nspin_renamed"
kill "$sp"
wait "$sp" 2>/dev/null
done_testing
