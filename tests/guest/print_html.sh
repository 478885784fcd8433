#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The html export of a real experiment: tests/progs/spin_nap recorded with
# the module (each packet User CPU and Sleep), then export html.  The page's
# timeline must carry every nanosecond of the sampled thread time (the sum
# of its intervals is print's <Total>), its functions the program's, its
# threads the program's.  The page is kept in $LWPROF_OUT/html/ (a browser
# test of a page is host/print_html's).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
work=$(mktemp -d /tmp/print_html.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -p 1ms -o nap.er "$LWPROF_BUILD/tests/progs/spin_nap" 500 >/dev/null
check $? -eq 0 "collect spin_nap"
"$LWPROF" export html -o nap.html nap.er
check $? -eq 0 "export html"
total=$("$LWPROF" print -printmode csv -metrics e.total:name -functions nap.er |
	awk -F, '$NF == "<Total>" { print $1 }')
# the timeline's "m" arrays: per sample a count, then ns * 16 + state codes
got=$(grep -o '"m":\[[0-9,]*\]' nap.html | sed 's/"m":\[//; s/\]//' | tr ',' '\n' |
	awk 'BEGIN { k = 0 } { if (k == 0) { k = $1; next } s += int($1 / 16); k-- }
		END { printf "%.3f", s / 1e9 }')
check "$got" = "$total" "the timeline's intervals sum to print's <Total> ($total s)"
check "$(grep -c '\["spin","spin_nap",' nap.html)" -eq 1 "the page has spin() of spin_nap"
check "$(grep -o '"c":"spin_nap"' nap.html | wc -l)" -ge 1 "the page has the spin_nap thread"
check "$(grep -c 'data-lwprof' nap.html)" -ge 1 "the page's script is in it"
mkdir -p "$LWPROF_OUT/html" && cp nap.html "$LWPROF_OUT/html/spin_nap.html"
done_testing
