#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process that makes itself non-dumpable (docs/design/security.md), as
# ssh-agent and gpg-agent do: secret_spin -n runs 0.5 s, calls
# prctl(PR_SET_DUMPABLE, 0) and then computes on its own secret.  Its
# user may no longer ptrace it, so its recording stops there, with the
# clock (collect), attached (-P), and with no sampling at all (ptime,
# where the owner's usage read finds it).  Root records it whole.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_nodump
chown 65534 secret	# the program's own secret

nobody "$LWPROF" collect -o n.er "$progs/secret_spin" -p 0.5 -n secret 1.5 \
	>pid.txt 2>err.txt
check $? -eq 0 "uid 65534: collect secret_spin -n exits 0 ($(cat err.txt))"
pid=$(cat pid.txt)
check "$(leaked n.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
n=$("$LWPROF" dump n.er | grep -c ": SAMPLE clock t=[0-9.]* pid=$pid ")
check "$n" -gt 0 "  its 0.5 s before recorded ($n clock packets)"
says_stopped n.er "$pid" 3

bg_nobody "$progs/secret_spin" -w go -p 0.5 -n secret 1.5 >/dev/null
pid=$bg_pid
started "$pid" secret_spin
attach_go "$pid" p.er nobody
check $rc -eq 0 "uid 65534: collect -P exits 0 ($(cat err.txt))"
wait "$pid"
check "$(leaked p.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
says_stopped p.er "$pid" 3

nobody "$LWPROF" ptime -m -L "$progs/secret_spin" -p 0.5 -n secret 1.5 \
	>pid.txt 2>err.txt
check $? -eq 0 "uid 65534: ptime secret_spin -n exits 0"
pid=$(cat pid.txt)
grep -q "^lwprof ptime: warning: pid $pid tid $pid (secret_spin) not accounted from then on: it made itself non-dumpable" err.txt
check $? -eq 0 "  ptime says its accounting stopped: $(grep warning err.txt)"
user=$(awk -v p="$pid" '$1 == p && $2 == p { print $4 * 1000 }' err.txt)
check "${user%.*}" -lt 1500 "  its user time ends at the stop: ${user} ms of 2 s"

"$LWPROF" collect -o r.er "$progs/secret_spin" -p 0.5 -n secret 1.5 >/dev/null 2>err.txt
check $? -eq 0 "root: the same exits 0 ($(cat err.txt))"
check "$(leaked r.er)" -gt 0 "  root's experiment holds the secret"
check "$("$LWPROF" dump r.er | grep -c ': STOP ')" -eq 0 "  and no STOP record"
collect_done
