#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf backend keeps the module's rule (docs/design/security.md): a thread
# the recording user may no longer trace is recorded no further.  perf
# stops its own events only at an exec that leaves the task non-dumpable;
# here uid 65534 records secret_spin, which makes itself non-dumpable and
# then computes on its secret, and its own program exec'ing a copy of
# secret_spin with file capabilities (which stays dumpable) reading a
# secret only root may read.  No 8 bytes of either secret reach the
# experiment, which says where and why recording stopped.  Root's
# recording of the same holds the secret.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

[ "$(id -u)" = 0 ] || skip "needs root (to be uid 65534, and for setcap)"
nob() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
work=$(mktemp -d /tmp/perf_guard.XXXXXX) || exit 1
trap 'cd / && { [ $t_failed = 0 ] && rm -rf "$work" || echo "# kept $work"; }' EXIT
chmod 1777 "$work" && cd "$work" || exit 1
nob "$LWPROF" collect --backend perf -o probe.er true >/dev/null 2>&1 ||
	skip "perf_event_open does not work for uid 65534 here"
leaked() { "$progs/bytes_in" "$1" 8 "$2"; }	# FILE EXP, here

# recorded_first EXP: wait (60 s at most) until the experiment holds a
# clock packet of the program whose pid it printed (pid.txt), then make
# go: what it did before go was surely recorded before it changed.
recorded_first() {
	local i
	for ((i = 0; i < 600; i++)); do
		pid=$(head -n 1 pid.txt 2>/dev/null)
		[ -n "$pid" ] && "$LWPROF" dump "$1" 2>/dev/null |
			grep -q ": SAMPLE clock t=[0-9.]* pid=$pid " && break
		sleep 0.1
	done
	touch go
}

head -c 32 /dev/urandom >own && chown 65534 own && chmod 600 own
nob "$LWPROF" collect --backend perf -o n.er "$progs/secret_spin" -w go -p 0.2 -n own 1.5 \
	>pid.txt 2>err.txt & cpid=$!
recorded_first n.er
wait "$cpid"
check $? -eq 0 "uid 65534: collect --backend perf secret_spin -n exits 0"
check "$(leaked own n.er)" -eq 0 "  no 8 bytes of its secret in the experiment"
n=$("$LWPROF" dump n.er | grep -c ": SAMPLE clock t=[0-9.]* pid=$pid ")
check "$n" -gt 0 "  its time before recorded ($n clock packets)"
stop_recorded n.er "$pid" 3

head -c 32 /dev/urandom >root_only && chmod 600 root_only
if command -v setcap >/dev/null && cp "$progs/secret_spin" caps_spin &&
   setcap cap_dac_read_search+ep caps_spin; then
	rm -f go pid.txt
	nob "$LWPROF" collect --backend perf -o c.er "$progs/spin_exec" -w go 0.2 \
		./caps_spin root_only 1.5 >pid.txt 2>err.txt & cpid=$!
	recorded_first c.er
	wait "$cpid"
	check $? -eq 0 "uid 65534: collect --backend perf spin_exec ... caps_spin exits 0: it read the secret"
	check "$(leaked root_only c.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
	stop_recorded c.er "$pid" 1
else
	echo "# no setcap here: the file-capability case is left out"
fi

"$LWPROF" collect --backend perf -o r.er "$progs/secret_spin" -p 0.5 -n own 1.5 \
	>/dev/null 2>err.txt
check $? -eq 0 "root: the same exits 0"
check "$(leaked own r.er)" -gt 0 "  root's experiment holds the secret"
check "$("$LWPROF" dump r.er | grep -c ': STOP ')" -eq 0 "  and no STOP record"
done_testing
