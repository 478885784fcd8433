#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect as an ordinary user (uid 65534, no capabilities): with the
# defaults it records (its rings are the largest the module lets it lock,
# named in log.txt), and an -m above that is refused with a message that
# names the option, the size it may use and the capability for more.
# Root keeps the default rings.  The module's rule (docs/design/abi.md): more
# than 128 data pages per CPU need CAP_IPC_LOCK or CAP_PERFMON.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_nobody
chmod 1777 "$work"

# The user's run at the defaults: exit 0, clock packets of the program's
# thread that hold all its user time (their sum is its final total in
# usage.txt; how many there are depends on the timer ticks a TCG guest
# on a busy host loses), nothing lost.
nobody "$LWPROF" collect -o n.er "$progs/cpu_burn" 1 >pid.txt 2>err.txt
check $? -eq 0 "collect cpu_burn 1 as uid 65534 exits 0 ($(cat err.txt))"
pid=$(cat pid.txt)
"$LWPROF" dump n.er >n.dump 2>dump.err
check $? -eq 0 "  dump reads it cleanly ($(head -n 2 dump.err))"
grep ": SAMPLE clock t=[0-9.]* pid=$pid tid=$pid " n.dump >clock.txt
n=$(wc -l <clock.txt)
got=$(field user <clock.txt | awk '{ s += $1 } END { print s + 0 }')
want=$(awk -v p="$pid" '!/^#/ && $2 == p { print $7 }' n.er/usage.txt)
check "$n" -gt 0 -a "$got" = "$want" "  $n clock packets of cpu_burn's thread with its user time: $got ns, usage.txt $want ns"
check "$got" -ge 500000000 "  which is most of its 1 s of CPU time"
check "$(key n.er lost)" = 0 "  nothing lost"
check "$(key n.er ring_pages)" = 128 "  log.txt: ring_pages = 128, the most the module allows it"

# An explicit -m above the limit: exit 1, nothing created, and a message
# that says what to do.
nobody "$LWPROF" collect -o big.er -m 1024 "$progs/cpu_burn" 0 >/dev/null 2>err.txt
rc=$?; err=$(cat err.txt)
check $rc -eq 1 "collect -m 1024 as uid 65534 exits 1"
check ! -e big.er "  and leaves no experiment"
for w in '-m 1024' '-m 128' CAP_IPC_LOCK; do
	grep -qF -- "$w" <<<"$err"
	check $? -eq 0 "  the message names '$w': $err"
done

# An -m within the limit is taken as given.
nobody "$LWPROF" collect -o small.er -m 64 "$progs/cpu_burn" 0 >/dev/null 2>err.txt
check $? -eq 0 "collect -m 64 as uid 65534 exits 0 ($(cat err.txt))"
check "$(key small.er ring_pages)" = 64 "  log.txt: ring_pages = 64"

# Root: the default rings (256 pages) and more on request.
"$LWPROF" collect -o r.er "$progs/cpu_burn" 0 >/dev/null 2>err.txt
check $? -eq 0 "collect as root exits 0 ($(cat err.txt))"
check "$(key r.er ring_pages)" = 256 "  log.txt: ring_pages = 256 (the default)"
"$LWPROF" collect -o rbig.er -m 1024 "$progs/cpu_burn" 0 >/dev/null 2>err.txt
check $? -eq 0 "collect -m 1024 as root exits 0 ($(cat err.txt))"
check "$(key rbig.er ring_pages)" = 1024 "  log.txt: ring_pages = 1024"
collect_done
