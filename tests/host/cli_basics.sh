#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The lwprof command's front door: help, unknown commands, and a clear
# message (exit 1) when the module is not there.
. "$(dirname "$0")/../lib/test.sh"

out=$("$LWPROF" --help) ; check $? -eq 0 "lwprof --help exits 0"
grep -q '^  version ' <<<"$out"; check $? -eq 0 "help lists 'version'"

out=$("$LWPROF" frobnicate 2>&1); rc=$?
check $rc -eq 2 "unknown command exits 2"
grep -q "'frobnicate' is not a command" <<<"$out"; check $? -eq 0 "and says so"

"$LWPROF" >/dev/null 2>&1; check $? -eq 2 "no command exits 2"

out=$(LWPROF_DEVICE=/nonexistent/lwprof "$LWPROF" version); rc=$?
check $rc -eq 1 "version without the module exits 1"
grep -q '^lwprof [0-9.]* (ABI [0-9]*\.[0-9]*)$' <<<"$out"
check $? -eq 0 "version prints the tool's version and ABI"
grep -q 'module: not available: .*load the module' <<<"$out"
check $? -eq 0 "version explains the missing module"
done_testing
