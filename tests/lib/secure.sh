# SPDX-License-Identifier: GPL-2.0
# For the guest's security tests (docs/design/security.md); source after test.sh.
#
# sec_setup NAME: collect_setup NAME, a work directory every user may
# write in, and in it a random 32-byte secret only root may read
# (secret).  Skips when the module does not stop recording threads it
# may no longer trace (LWPROF_FEAT_GUARD, ABI 1.7), unless
# LWPROF_SEC_ANY_MODULE is set (to see a test fail on an older module).
. "$(dirname "${BASH_SOURCE[0]}")/collect.sh"

sec_setup() {
	collect_setup "$1"
	if [ -z "${LWPROF_SEC_ANY_MODULE:-}" ] &&
	   ! "$LWPROF" version | grep -Eq 'ABI 1\.([6-9]|[1-9][0-9])'; then
		skip "the module does not guard its sessions (ABI 1.7)"
	fi
	chmod 1777 "$work"
	head -c 32 /dev/urandom >secret && chmod 600 secret
}

# attach_go PID EXP WHO: record process PID, which waits for the file go,
# with collect -P as WHO ("nobody" or ""); once the experiment's rings
# are there (the session is attached), make go; collect's status in rc.
attach_go() {
	local i
	rm -f go
	$3 "$LWPROF" collect -P "$1" -o "$2" >/dev/null 2>err.txt & cpid=$!
	for ((i = 0; i < 1200; i++)); do
		[ -e "$2/cpu.0.rec" ] || ! kill -0 "$cpid" 2>/dev/null && break
		sleep 0.05
	done
	touch go
	wait "$cpid"
	rc=$?
}

# exec_stops EXP PROG: uid 65534 records its own spin_exec, which execs
# ./PROG secret 1.5 after 0.5 s of CPU: PROG is one the user may not
# trace once started.  collect exits 0 (PROG read the secret), and the
# experiment has none of the secret, spin_exec's time before the exec,
# and the stop at the exec said everywhere (says_stopped).  Sets pid.
exec_stops() {
	nobody "$LWPROF" collect -o "$1" "$progs/spin_exec" 0.5 "./$2" secret 1.5 \
		>pid.txt 2>err.txt
	check $? -eq 0 "uid 65534: collect spin_exec ... $2 exits 0: it read the secret ($(cat err.txt))"
	pid=$(head -n 1 pid.txt)
	check "$(leaked "$1")" -eq 0 "  no 8 bytes of the secret in the experiment"
	n=$("$LWPROF" dump "$1" | grep -c ": SAMPLE clock t=[0-9.]* pid=$pid ")
	check "$n" -gt 0 "  spin_exec's 0.5 s before the exec recorded ($n clock packets)"
	says_stopped "$1" "$pid" 1
}

# leaked EXP: how many runs of 8 bytes of the secret EXP holds (any file).
leaked() { "$progs/bytes_in" secret 8 "$1"; }

# stop_recorded EXP PID REASON: EXP's dump has one STOP record of PID's
# main thread for REASON (LWPROF_STOP_*) and no sample, mapping or task
# record of it after that; print -header names it.  Either backend's.
stop_recorded() {
	local exp=$1 pid=$2 why=$3 d at late
	d=$("$LWPROF" dump "$exp" 2>/dev/null)
	check "$(grep -c ": STOP t=[0-9.]* pid=$pid tid=$pid reason=$why " <<<"$d")" -eq 1 \
		"  $exp: one STOP record of pid $pid, reason $why"
	at=$(sed -n "s/.*: STOP t=\([0-9.]*\) pid=$pid .*/\1/p" <<<"$d" | head -n 1)
	late=$(awk -v p="$pid" -v at="${at:-0}" '/: (SAMPLE|MMAP|TASK) / && $0 ~ " pid=" p " " {
		for (i = 1; i <= NF; i++) if ($i ~ /^t=/) t = substr($i, 3) + 0
		if (t > at + 0) n++ } END { print n + 0 }' <<<"$d")
	check "$late" -eq 0 "  no sample, mapping or task record of pid $pid after it (at $at s)"
	"$LWPROF" print -header "$exp" 2>/dev/null | grep -q "Not recorded: *pid $pid tid $pid "
	check $? -eq 0 "  print -header names it"
}

# says_stopped EXP PID REASON: the module's experiment EXP says that it
# stopped recording PID's main thread for REASON: stop_recorded, print
# -thread_list, usage.txt's flags (LWPROF_TU_STOPPED | REASON << 8) and
# log.txt.
says_stopped() {
	local exp=$1 pid=$2 why=$3 flags
	stop_recorded "$exp" "$pid" "$why"
	"$LWPROF" print -thread_list "$exp" 2>/dev/null | grep -Eq " $pid +$pid .* not recorded from [0-9.]+ s: "
	check $? -eq 0 "  print -thread_list says from when and why"
	flags=$(awk -v p="$pid" '!/^#/ && $1 == p && $2 == p { print $4 }' "$exp/usage.txt")
	check "$(( ${flags:-0} & 0xff04 ))" -eq $(( (why << 8) | 4 )) \
		"  usage.txt flags $flags: stopped, reason $why"
	grep -q "^warning = pid $pid tid $pid .* not recorded from then on: " "$exp/log.txt"
	check $? -eq 0 "  log.txt says so"
}
