#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stacks deeper than the perf backend can see end in <Truncated-stack>:
# tests/progs/deep_fp recurses 500 deep (frame pointers) and spins at
# the bottom, deeper than perf's chain (kernel.perf_event_max_stack) and
# than the 8 KiB stack copy, so no sample of deep_spin can reach main:
# each is rooted at <Truncated-stack>, none at deep_rec.  At 20 deep each
# reaches main and none is cut.  print -header's depth is the one the
# chains had: perf_max_stack from log.txt where it capped the asked one.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
work=$(mktemp -d /tmp/perf_truncated.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# rec DEPTH: record deep_fp DEPTH deep into dDEPTH.er
rec() {
	"$LWPROF" collect --backend perf -p 1ms -o d$1.er "$ms_progs/deep_fp" "$1" 0.5 >/dev/null 2>err
	check $? -eq 0 "collect --backend perf deep_fp $1 0.5"
}

# shares DEPTH: "spin trunc main", inclusive User CPU in ms
shares() {
	"$LWPROF" print -printmode csv -metrics i.user:name -functions d$1.er 2>&1 |
		tee d$1.fn | awk -F, '$NF == "deep_spin" { s = $1 * 1000 } $NF == "<Truncated-stack>" { t = $1 * 1000 }
			$NF == "main" { m = $1 * 1000 } END { printf "%d %d %d", s, t, m }'
}

rec 500
read -r spin trunc main <<<"$(shares 500)"
sed 's/^/# /' d500.fn | head -n 8
check "$spin" -ge 20 "500 deep: deep_spin sampled ($spin ms of User CPU)"
check "$trunc" -ge "$spin" "500 deep: <Truncated-stack> holds all of deep_spin ($trunc of $spin ms)"
check "$((main * 20))" -le "$spin" "500 deep: main holds under 5% of it ($main ms)"
t=$("$LWPROF" print -metrics i.user:name -calltree d500.er 2>&1)
check "$(grep -Ec '^ +[0-9.]+  \+-deep_(rec|spin)$' <<<"$t")" -eq 0 "500 deep: -calltree: no deep_rec or deep_spin root"
h=$("$LWPROF" print -header d500.er 2>&1 | grep '^  Stacks:')
echo "# $h"
cap=$(sed -n 's/^perf_max_stack = //p' d500.er/log.txt)
asked=$(sed -n 's/^max_depth = //p' d500.er/log.txt)
check "$(awk '{ sub(/,$/, "", $3); print $3 }' <<<"$h")" = "${cap:-$asked}" "-header: depth ${cap:-$asked}, as log.txt (perf_max_stack ${cap:-none}, max_depth $asked)"

rec 20
read -r spin trunc main <<<"$(shares 20)"
sed 's/^/# /' d20.fn | head -n 8
check "$spin" -ge 20 "20 deep: deep_spin sampled ($spin ms of User CPU)"
check "$trunc" -eq 0 "20 deep: no <Truncated-stack> ($trunc ms)"
check "$main" -ge "$spin" "20 deep: main holds all of deep_spin ($main of $spin ms)"
done_testing
