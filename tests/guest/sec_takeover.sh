#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No exclusivity across users (docs/design/security.md): uid 65534 holding a
# session on its own sleep must not block root's whole-machine session
# (lwprof top) nor root's attach to that process; the user's session is
# ended and told why (READ_USAGE's stopped: LWPROF_STOP_REVOKED).  Root's
# machine session still blocks an ordinary user (root wins), and a user's
# own sessions block each other as before.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_takeover
hold=$progs/hold_session

# holder SECS: uid 65534's session on its own sleep for SECS seconds, in
# the background; sets spid (the sleep) and hpid (the holder), output in
# hold.txt once it has attached.
holder() {
	bg_nobody sleep 60 && spid=$bg_pid
	started "$spid" sleep
	bg_nobody "$hold" "$spid" "$1" >hold.txt && hpid=$bg_pid
	for ((i = 0; i < 600; i++)); do
		grep -q . hold.txt && break
		sleep 0.05
	done
	check "$(head -n 1 hold.txt)" = attached "uid 65534 holds a session on its sleep"
}

holder 8
"$LWPROF" top -b -n 1 -d 0.5 >top.txt 2>err.txt
check $? -eq 0 "root's lwprof top (the whole machine) runs meanwhile ($(cat err.txt))"
check "$(grep -c ' sleep ' top.txt)" -ge 1 "  and shows the user's sleep"
wait "$hpid"
check "$(sed -n 2p hold.txt)" = "stopped 4" "  the user's session was ended and says why ($(sed -n 2p hold.txt))"
kill "$spid"; wait "$spid"

holder 6
check "$("$progs/try_attach" "$spid")" = ok "root attaches to the user's process meanwhile"
wait "$hpid"
check "$(sed -n 2p hold.txt)" = "stopped 4" "  the user's session was ended and says why"
kill "$spid"; wait "$spid"

holder 4
check "$(nobody "$progs/try_attach" "$spid")" = EBUSY "the same user's second session on it: EBUSY, as before"
wait "$hpid"
check "$(sed -n 2p hold.txt)" = "stopped 0" "  and the first goes on"
kill "$spid"; wait "$spid"

"$hold" -m 4 >root.txt & rpid=$!
for ((i = 0; i < 600; i++)); do grep -q . root.txt && break; sleep 0.05; done
check "$(head -n 1 root.txt)" = attached "root holds a whole-machine session"
check "$(nobody "$progs/try_attach" self)" = EBUSY "  uid 65534 may not take from it: EBUSY"
wait "$rpid"
check "$(sed -n 2p root.txt)" = "stopped 0" "  and root's session goes on"
collect_done
