#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What an ordinary user can make the module hold (docs/design/security.md):
# uid 65534, in a memory cgroup of its own, opens sessions with rings on
# children of its own until the module refuses (EDQUOT: its locked-memory
# budget, kernel.perf_event_mlock_kb per CPU and then RLIMIT_MEMLOCK),
# and the cgroup's memory.current holds what they pinned (a collect then
# says why it cannot lock its memory); sessions without
# rings until EUSERS (the module parameter user_sessions); and a sampling
# session through which 1500 short threads pass, each leaving 128 KiB of
# stack-delta buffers in the module before, which now go with the
# thread: the machine's available memory barely moves.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_memory
cg=/sys/fs/cgroup
mounted=
if ! grep -q " $cg cgroup2 " /proc/mounts; then
	mount -t cgroup2 none "$cg" || skip "cannot mount cgroup2"
	mounted=1
fi
grep -qw memory "$cg/cgroup.controllers" || skip "no memory controller"
echo +memory >"$cg/cgroup.subtree_control" 2>/dev/null
grp=$cg/lwprof_sec_memory
mkdir -p "$grp" && echo 512M >"$grp/memory.max" || skip "cannot make a memory cgroup"
cleanup() {
	local r=$?
	[ -n "$pin" ] && kill "$pin" 2>/dev/null
	wait 2>/dev/null
	rmdir "$grp" 2>/dev/null
	[ -n "$mounted" ] && umount "$cg"
	(exit $r)
	unload_lwprof
}
trap cleanup EXIT

# in_cg CMD...: CMD as uid 65534 in the cgroup.
in_cg() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"' "$grp" "$@"
}

base=$(cat "$grp/memory.current")
coproc pin { in_cg "$progs/pin_sessions" 40 128; }
read -r -t 300 _ n why <&"${pin[0]}"
kb=$(( $(getconf PAGESIZE) / 1024 ))
cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
rings=$(( n * cpus * 129 * kb ))
cur=$(( ($(cat "$grp/memory.current") - base) / 1024 ))
echo "# $n sessions with rings of 128 pages on $cpus CPUs: $rings KiB; memory.current +$cur KiB; then $why"
check "$why" = EDQUOT "uid 65534's sessions with rings end at its locked-memory budget ($n sessions, then $why)"
check "$n" -lt 40 "  a bounded number of them ($n)"
check "$cur" -ge $(( rings * 9 / 10 )) "  and its cgroup holds their rings ($cur KiB charged for $rings KiB)"
# Meanwhile the user's budget is used up: collect, with ulimit -l 64,
# finds room for small rings but not for its stacks' scratch space, and
# says what to do.
in_cg sh -c 'ulimit -l 64 && exec "$0" collect -o m.er "$1" 0.1' \
	"$LWPROF" "$progs/spin" >/dev/null 2>err.txt
rc=$?
check $rc -eq 1 "collect with the budget used up exits 1"
grep -q "locked memory" err.txt
check $? -eq 0 "  and says why: $(cat err.txt)"
exec {pin[1]}>&-
wait "$pin_PID"

coproc pin { in_cg "$progs/pin_sessions" 100 0; }
read -r -t 300 _ n why <&"${pin[0]}"
check "$why $n" = "EUSERS $(cat /sys/module/lwprof/parameters/user_sessions)" \
	"sessions without rings end at user_sessions ($n, then $why)"
exec {pin[1]}>&-
wait "$pin_PID"
pin=

read -r _ before after <<<"$(in_cg "$progs/thread_churn" 1500 3)"
drop=$(( (before - after) / 1024 ))
check "${before:-0}" -gt 0 "1500 short sampled threads of uid 65534 ran (MemAvailable $before -> $after KiB)"
check "$drop" -lt 48 "  the module held little after them: MemAvailable down $drop MiB"
collect_done
