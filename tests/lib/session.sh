# SPDX-License-Identifier: GPL-2.0
# For guest shell tests of lwprof sessions; source after test.sh.
#
# load_lwprof: insmod lwprof.ko (removing a copy a crashed test left) and,
# whatever happens next, kill the test's background jobs and rmmod it on
# exit; a module that will not unload fails the test.  Skips when the
# module has no microstate accounting (LWPROF_FEAT_MSTATE, bit 0).
load_lwprof() {
	[ "$(id -u)" = 0 ] || skip "needs root (insmod)"
	grep -q '^lwprof ' /proc/modules && rmmod lwprof
	insmod "$LWPROF_KO" || { echo "FAIL: insmod $LWPROF_KO"; exit 1; }
	trap unload_lwprof EXIT
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[13579bdf]\)' ||
		skip "the module has no microstate accounting (LWPROF_FEAT_MSTATE)"
}

# need_sampling: skip unless the loaded module samples (LWPROF_FEAT_SAMPLE).
need_sampling() {
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[2367abef]\)' ||
		skip "the module cannot sample (LWPROF_FEAT_SAMPLE)"
}

# need_kprof: skip unless the loaded module records whole-machine kernel
# profiles (ABI 1.4: idle packets, off-CPU kernel stacks).
need_kprof() {
	"$LWPROF" version | grep -Eq 'ABI 1\.([4-9]|[1-9][0-9])' ||
		skip "the module has no whole-machine kernel profiling (ABI 1.4)"
}

unload_lwprof() {
	local rc=$?

	kill $(jobs -p) 2>/dev/null
	wait
	if grep -q '^lwprof ' /proc/modules && ! rmmod lwprof; then
		echo "FAIL: rmmod lwprof"
		[ $rc -eq 0 ] && rc=1
	fi
	exit $rc
}

# nobody CMD...: run CMD as uid/gid 65534 with no supplementary groups.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# hold_session: open a session that holds lwprof.ko's probes attached
# (tests/progs/ms_hold) until release_session, and wait until it is open.
# lwprof attaches its probes when the first session starts and detaches
# them when the last one ends; a test whose checks depend on the order of
# its probes against others' (a trace started after them) holds one.
hold_session() {
	local line

	coproc LWPROF_HOLD { exec "$LWPROF_BUILD/tests/progs/ms_hold"; }
	hold_pid=$LWPROF_HOLD_PID
	read -r line <&"${LWPROF_HOLD[0]}"
	[ "$line" = attached ] || { echo "FAIL: ms_hold: no session"; exit 1; }
}

release_session() {
	[ -n "${hold_pid:-}" ] || return 0
	kill "$hold_pid" 2>/dev/null
	wait "$hold_pid" 2>/dev/null
	hold_pid=
}
