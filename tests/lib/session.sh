# SPDX-License-Identifier: GPL-2.0
# For guest shell tests of lwprof sessions; source after test.sh.
#
# load_lwprof: insmod lwprof.ko and, whatever happens next, kill the test's
# background jobs and rmmod it on exit; skip when the module has no
# microstate accounting (LWPROF_FEAT_MSTATE, bit 0 of the features).
load_lwprof() {
	insmod "$LWPROF_KO" || { echo "FAIL: insmod $LWPROF_KO"; exit 1; }
	trap 'kill $(jobs -p) 2>/dev/null; wait; rmmod lwprof' EXIT
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[13579bdf]\)' ||
		skip "the module has no microstate accounting (LWPROF_FEAT_MSTATE)"
}

# nobody CMD...: run CMD as uid/gid 65534 with no supplementary groups.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}
