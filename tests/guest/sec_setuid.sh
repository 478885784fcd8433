#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A set-user-ID exec under an ordinary user's recording (docs/design/security.md):
# uid 65534 records its own program, which execs a set-user-ID root copy
# of secret_spin; that reads a random secret only root may read and
# computes on it, in registers and on its stack, for 1.5 s.  The
# experiment holds no 8 bytes of the secret, records the user's program
# until the exec and says why it stopped there; collect run on the
# set-user-ID program itself records nothing of it.  Root's recording of
# the same holds the secret: the check can see it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_setuid
cp "$progs/secret_spin" suid_spin && chmod 4755 suid_spin

exec_stops n.er suid_spin
n=$("$LWPROF" dump n.er | grep -Ec '^ *k?ip\[[0-9]+\] 0xffff[89a-f]|rip=0xffff[89a-f]')
check "$n" -eq 0 "  and no kernel address (paranoid $(cat /proc/sys/kernel/perf_event_paranoid), no -K)"

# collect on the set-user-ID program: its accounting would begin at that
# exec (LWPROF_ATTACH_EXEC), which stops it at once.
nobody "$LWPROF" collect -o d.er ./suid_spin secret 1 >pid.txt 2>err.txt
check $? -eq 0 "uid 65534: collect suid_spin exits 0 ($(cat err.txt))"
pid=$(head -n 1 pid.txt)
check "$(leaked d.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
check "$("$LWPROF" dump d.er | grep ": SAMPLE .* pid=$pid " | grep -vc " flags=EXIT ")" -eq 0 \
	"  no sample of it but its last, empty one (the exec itself)"
says_stopped d.er "$pid" 1

"$LWPROF" collect -o r.er "$progs/spin_exec" 0.5 ./suid_spin secret 1.5 \
	>pid.txt 2>err.txt
check $? -eq 0 "root: the same collect exits 0 ($(cat err.txt))"
pid=$(head -n 1 pid.txt)
check "$(leaked r.er)" -gt 0 "  root's experiment holds the secret (it is root's to see)"
check "$("$LWPROF" dump r.er | grep -c ': STOP ')" -eq 0 "  and no STOP record"
collect_done
