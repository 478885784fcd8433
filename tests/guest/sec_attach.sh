#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Attach, then a set-user-ID exec (docs/design/security.md): uid 65534 attaches
# (collect -P) to its own program, which then execs a set-user-ID root
# copy of secret_spin holding a secret only root may read.  The
# experiment has the program's samples before the exec, none of the
# secret and says why it stopped.  A microstate slot that the user's
# thread claimed is given up at its exec, so the processes still mapping
# the area see nothing of the set-user-ID program.  Root's attach holds
# the secret.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_attach
cp "$progs/secret_spin" suid_spin && chmod 4755 suid_spin

# attach_run WHO EXP: WHO ("nobody" or "") starts spin_exec, which execs
# suid_spin 0.5 s of CPU after the session is there, and records it with
# collect -P until it exits; sets pid.
attach_run() {
	rm -f go
	if [ -n "$1" ]; then
		bg_nobody "$progs/spin_exec" -w go 0.5 ./suid_spin secret 1.5 >/dev/null
		pid=$bg_pid
	else
		"$progs/spin_exec" -w go 0.5 ./suid_spin secret 1.5 >/dev/null & pid=$!
	fi
	started "$pid" spin_exec
	attach_go "$pid" "$2" "$1"
	check $rc -eq 0 "${1:-root}: collect -P spin_exec ... suid_spin exits 0 ($(cat err.txt))"
	wait "$pid"
	check $? -eq 0 "  the set-user-ID program read the secret"
}

attach_run nobody p.er
check "$(leaked p.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
n=$("$LWPROF" dump p.er | grep -c ": SAMPLE clock t=[0-9.]* pid=$pid ")
check "$n" -gt 0 "  spin_exec recorded before the exec ($n clock packets)"
says_stopped p.er "$pid" 1

nobody "$progs/slot_exec" ./suid_spin secret 1.5 >slot.txt 2>err.txt
check $? -eq 0 "uid 65534: slot_exec suid_spin exits 0 ($(cat err.txt))"
before=$(sed -n 's/^before //p' slot.txt)
read -r owner writes <<<"$(sed -n 's/^after //p' slot.txt)"
check "${before:-0}" -gt 0 "  the slot was the child's before the exec (tid $before)"
check "$owner" = 0 "  and has no owner after it (tid $owner)"
check "$writes" = 0 "  and is not written while the program runs ($writes writes)"

attach_run "" r.er
check "$(leaked r.er)" -gt 0 "  root's experiment holds the secret"
check "$("$LWPROF" dump r.er | grep -c ': STOP ')" -eq 0 "  and no STOP record"
collect_done
