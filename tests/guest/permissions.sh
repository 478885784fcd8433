#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Who may open which session: an unprivileged user (uid 65534) may account
# its own processes, not root's, and not the whole machine; lwprof top and
# ptime say why.  Root may do all of it.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

try=$LWPROF_BUILD/tests/progs/try_attach
load_lwprof
sleep 30 & root_pid=$!

out=$(nobody "$try" "$root_pid")
check "$out" = EPERM "nobody attaching to a root process -> EPERM"
out=$(nobody "$try" self)
check "$out" = ok "nobody attaching to its own process works"
out=$(nobody "$try" -m)
check "$out" = EPERM "nobody attaching to the machine -> EPERM"
out=$("$try" "$root_pid")
check "$out" = ok "root attaching to a root process works"
out=$("$try" -m)
check "$out" = ok "root attaching to the machine works"

err=$(nobody "$LWPROF" top -b -n 1 -d 0.1 2>&1); rc=$?
check $rc -eq 1 "lwprof top (machine) as nobody exits 1"
grep -q 'CAP_PERFMON' <<<"$err"
check $? -eq 0 "and the message names CAP_PERFMON: $err"
err=$(nobody "$LWPROF" ptime -p "$root_pid" 2>&1); rc=$?
check $rc -eq 1 "lwprof ptime -p ROOT_PID as nobody exits 1"
check "$err" = "lwprof ptime: not allowed to trace PID $root_pid (need ptrace rights over it: run as its user, or with CAP_SYS_PTRACE)" \
	"and says it may not trace that PID"
nobody "$LWPROF" ptime true 2>/dev/null
check $? -eq 0 "lwprof ptime CMD as nobody works"
done_testing
