#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Samples in an epilogue whose CFI is wrong, on the perf backend:
# tests/progs/epilogue_spin spins in epi_leaf after `pop rbp`, where (as
# in glibc's pthread_mutex_trylock) its CFI still has rbp saved below sp.
# The CFI walk finds epi_caller and stops; the frame-pointer chain skips
# epi_caller and goes on through main.  The truth: every sample in
# epi_leaf is epi_leaf <- epi_caller <- main, so epi_caller is never a
# root and main's inclusive time holds all of epi_leaf's.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"

pb_need
work=$(mktemp -d /tmp/perf_epilogue.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$ms_progs/epilogue_spin" 0
[ $? -ne 77 ] || skip "epilogue_spin has no code for this architecture"
"$LWPROF" collect --backend perf -p 1ms -o e.er "$ms_progs/epilogue_spin" 0.5 >/dev/null 2>err
check $? -eq 0 "collect --backend perf epilogue_spin 0.5"
f=$("$LWPROF" print -printmode csv -metrics i.user:name -functions e.er 2>&1)
echo "$f" | sed 's/^/# /'
read -r leaf caller main <<<"$(awk -F, '$NF == "epi_leaf" { l = $1 * 1000 } $NF == "epi_caller" { c = $1 * 1000 }
	$NF == "main" { m = $1 * 1000 } END { printf "%d %d %d", l, c, m }' <<<"$f")"
check "$leaf" -ge 20 "epi_leaf sampled ($leaf ms of User CPU)"
check "$caller" -ge "$leaf" "epi_caller's inclusive time ($caller ms) holds epi_leaf's ($leaf ms)"
check "$main" -ge "$leaf" "main's inclusive time ($main ms) holds epi_leaf's: no walk stopped at epi_caller won"
t=$("$LWPROF" print -metrics i.user:name -calltree e.er 2>&1)
echo "$t" | sed 's/^/# /'
check "$(grep -Ec '^ +[0-9.]+  \+-epi_(caller|leaf)$' <<<"$t")" -eq 0 "-calltree: neither epi_caller nor epi_leaf is a root"
done_testing
