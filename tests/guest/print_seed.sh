#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# er_print's worked example as a real program under lwprof collect (1 ms
# clock profiling): tests/progs/seed_example does its units of work as
# measured thread CPU time (user + system), so its truth is known: 40
# units (main 2, A -> C(10), B 5 + 2 x C(7.5), R 4, P/Q 4).  Each
# function's inclusive Total CPU, as a share of main's (the loader and
# exit handlers are outside the units), must be within 3 points of its
# expected share.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/seed.sh"

load_lwprof
need_sampling
"$LWPROF" collect >/dev/null 2>&1 || [ $? -ne 127 ] || skip "no lwprof collect"
work=$(mktemp -d /tmp/print_seed.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -p 1ms -o seed.er "$LWPROF_BUILD/tests/progs/seed_example" 50
check $? -eq 0 "collect seed_example (50 ms a unit)"
seed_check_shares seed.er
got=$(seed_share A 2)
awk -v g="$got" 'BEGIN { exit !(g < 3) }'
check $? -eq 0 "A: (almost) no exclusive time ($got%)"
rm -rf "$LWPROF_OUT/print_seed.er"; cp -r seed.er "$LWPROF_OUT/print_seed.er" 2>/dev/null
done_testing
