#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.perf_event_paranoid is taken from the kernel, never through a path
# the caller controls.  The attack: root makes a
# private mount namespace and binds a file holding -1 over
# /proc/sys/kernel/perf_event_paranoid, then drops to uid 65534 and runs
# collect -K; an unprivileged user gets the same namespace with unshare
# -rm.  With the real value above 1 the experiment must hold no kernel
# frame.  The control: with the real sysctl at 1 the same user's -K run
# does record kernel frames, so the count below can see them.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
knob=/proc/sys/kernel/perf_event_paranoid
orig=$(cat $knob)
restore() { local r=$?; echo "$orig" >$knob; (exit $r); unload_lwprof; }
trap restore EXIT
work=$(mktemp -d /tmp/perm_paranoid.XXXXXX) || exit 1
chmod 777 "$work"
echo -1 >"$work/fake"
prog=$LWPROF_BUILD/tests/progs/zero_reader

# kframes EXP: how many kernel frames the experiment's samples hold (none
# when collect left no experiment).
kframes() {
	[ -d "$1" ] || { echo 0; return; }
	"$LWPROF" dump "$1" 2>/dev/null | grep -c 'kip\['
}

# as_nobody_in_fake_ns EXP: the attack, as an unprivileged user would make it.
as_nobody_in_fake_ns() {
	unshare -m --propagation private sh -c '
		mount --bind "$1/fake" /proc/sys/kernel/perf_event_paranoid &&
		test "$(cat /proc/sys/kernel/perf_event_paranoid)" = -1 &&
		setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			"$2" collect -m 64 -K -p 1ms -d "$1" -o "$3" "$4" 300' \
		sh "$work" "$LWPROF" "$1" "$prog" 2>&1 >/dev/null
}

echo 2 >$knob
err=$(as_nobody_in_fake_ns fake.er); rc=$?
echo "$err"
check $rc -ne 0 "uid 65534's collect -K is refused although the bound knob reads -1"
grep -q 'perf_event_paranoid' <<<"$err"
check $? -eq 0 "and the refusal names perf_event_paranoid"
n=$(kframes "$work/fake.er")
check "$n" -eq 0 "real paranoid 2: no kernel frame recorded ($n)"

echo 1 >$knob
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"$LWPROF" collect -m 64 -K -p 1ms -d "$work" -o real1.er "$prog" 300 >/dev/null
check $? -eq 0 "uid 65534 collects -K with the real paranoid at 1"
n=$(kframes "$work/real1.er")
check "$n" -gt 10 "real paranoid 1: kernel frames recorded ($n)"
done_testing
