#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module and the ABI header are checkpatch clean (--strict).  compat.h
# alone may test LINUX_VERSION_CODE: that is what it is for.
. "$(dirname "$0")/../lib/test.sh"

cp=${CHECKPATCH:-/usr/local/share/lwprof/checkpatch/checkpatch.pl}
[ -x "$cp" ] || skip "no checkpatch.pl (scripts/deps.sh installs it)"
cd "$LWPROF_TOP" || exit 1

for f in kmod/*.c kmod/*.h uapi/*.h; do
	case $f in
	kmod/compat.h) extra=(--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON) ;;
	*) extra=() ;;
	esac
	# checkpatch exits non-zero on any error, warning or (with --strict) check.
	out=$("$cp" --no-tree --strict --terse --show-types "${extra[@]}" -f "$f" 2>&1)
	check $? -eq 0 "checkpatch --strict $f"
	[ -z "$out" ] || sed 's/^/    /' <<<"$out"
done
done_testing
