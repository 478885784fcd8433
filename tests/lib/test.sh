# SPDX-License-Identifier: GPL-2.0
# Helpers for lwprof's shell tests; source it first.  Same conventions as
# tests/lib/test.h: one line per check, exit 0 / 1, 77 to skip.
# tests/run exports LWPROF_TOP, LWPROF_BUILD, LWPROF, LWPROF_KO, LWPROF_OUT.

: "${LWPROF_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${LWPROF_BUILD:=$LWPROF_TOP/build}"
: "${LWPROF:=$LWPROF_BUILD/lwprof}"
: "${LWPROF_KO:=$LWPROF_TOP/lwprof.ko}"
: "${LWPROF_OUT:=$LWPROF_TOP/tests/out}"
t_failed=0

# check VALUE OP VALUE "what": a numeric or string test(1) comparison.
check() {
	local what=${*: -1}
	if test "${@:1:$#-1}"; then
		echo "ok: $what"
	else
		echo "FAIL: $what (test ${*:1:$#-1})"
		t_failed=1
	fi
}

skip() {
	echo "skip: $*"
	exit 77
}

done_testing() {
	exit $t_failed
}
