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

# module_gap TEXT: does the loaded module say the kernel keeps it from
# something (a "kernel: ..." line of lwprof version holding TEXT)?
module_gap() {
	"$LWPROF" version 2>/dev/null | grep -q "^kernel: .*$1"
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

# bg_nobody CMD...: run CMD as uid 65534 in the background; bg_pid its pid
# (setpriv's, which becomes CMD's: the nobody function's $! would be a
# subshell's).
bg_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@" & bg_pid=$!
}

# started PID NAME: wait (up to 60 s) until process PID runs program NAME:
# an attach before that would find setpriv, still changing its IDs.
started() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	echo "FAIL: process $1 never ran $2"
	t_failed=1
}
