#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Who may open which session: an unprivileged user (uid 65534) may account
# its own processes, not root's, and not the whole machine; lwprof top and
# ptime say why.  Root may do all of it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

try=$LWPROF_BUILD/tests/progs/try_attach
load_lwprof
# Root's process, for the whole test (a loaded 6.12 guest took 34 s over
# it: a sleep of 30 had ended before the last check); unload_lwprof kills
# it at the exit.
sleep 600 & root_pid=$!

out=$(nobody "$try" "$root_pid")
check "$out" = EPERM "nobody attaching to a root process -> EPERM"
out=$(nobody "$try" self)
check "$out" = ok "nobody attaching to its own process works"
out=$(nobody "$try" -m)
check "$out" = EPERM "nobody attaching to the machine -> EPERM"
out=$(nobody "$try" 1)
check "$out" = EPERM "nobody attaching to pid 1 -> EPERM"
# Its own process, once non-dumpable (as ssh-agent makes itself): not its.
tmp=$(mktemp -d /tmp/permissions.XXXXXX) && chmod 755 "$tmp" || exit 1
head -c 32 /dev/urandom >"$tmp/secret" && chmod 644 "$tmp/secret"
bg_nobody "$LWPROF_BUILD/tests/progs/secret_spin" -n "$tmp/secret" 30 >/dev/null
nd=$bg_pid
started "$nd" secret_spin
for ((i = 0; i < 200; i++)); do	# non-dumpable: its files are root's
	[ "$(stat -c %u "/proc/$nd/stat")" = 0 ] && break
	sleep 0.05
done
out=$(nobody "$try" "$nd")
check "$out" = EPERM "nobody attaching to its own non-dumpable process -> EPERM"
kill "$nd"; wait "$nd" 2>/dev/null

# PID reuse: a session holds threads, not numbers.  Its process exits,
# another gets its pid; the session's records are the first one's alone.
# The sleep ends when the session holds it (killed), not after a time a
# starved guest may spend before the attach.
bg_nobody sleep 600 && a=$bg_pid
started "$a" sleep
nobody "$LWPROF_BUILD/tests/progs/hold_session" "$a" 5 >"$tmp/reuse" & h=$!
for ((i = 0; i < 200; i++)); do grep -q . "$tmp/reuse" && break; sleep 0.05; done
check "$(head -n 1 "$tmp/reuse")" = attached "nobody holds a session on its sleep"
kill "$a"
wait "$a"
echo $((a - 1)) >/proc/sys/kernel/ns_last_pid
"$LWPROF_BUILD/tests/progs/spin" 3 & b=$!
wait "$h"
if [ "$b" = "$a" ]; then
	recs=$(grep "^thread $a $a " "$tmp/reuse")
	check "$(grep -c . <<<"$recs")" = 1 "pid $a reused: the session has one record of it"
	check "$(cut -d' ' -f5 <<<"$recs")" = sleep "  the first process's (sleep, not spin)"
	check "$(( $(cut -d' ' -f4 <<<"$recs") & 1 ))" = 1 "  and it is its final one"
else
	echo "# pid $a was not reused ($b): the PID reuse check is left out"
fi
kill "$b" 2>/dev/null; wait "$b" 2>/dev/null
rm -rf "$tmp"
out=$("$try" "$root_pid")
check "$out" = ok "root attaching to a root process works"
out=$("$try" -m)
check "$out" = ok "root attaching to the machine works"

err=$(nobody "$LWPROF" top -b -n 1 -d 0.1 2>&1); rc=$?
check $rc -eq 1 "lwprof top (machine) as nobody exits 1"
grep -q 'CAP_PERFMON' <<<"$err"
check $? -eq 0 "and the message names CAP_PERFMON: $err"
err=$(nobody "$LWPROF" ptime -p "$root_pid" 2>&1); rc=$?
check $rc -eq 1 "lwprof ptime -p ROOT_PID as nobody exits 1"
check "$err" = "lwprof ptime: not allowed to trace PID $root_pid (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)" \
	"and says it may not trace that PID"
nobody "$LWPROF" ptime true 2>/dev/null
check $? -eq 0 "lwprof ptime CMD as nobody works"
done_testing
