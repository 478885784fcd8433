#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every command of lwprof --help answers -h and --help the same way: its
# usage on stdout, nothing on stderr, exit 0; an unknown option is still
# a usage error (exit 2).  collect -h is Oracle's: with no other argument
# it lists this machine's counters (docs/guide/commands.md), also exit 0.
. "$(dirname "$0")/../lib/test.sh"
[ -x "$LWPROF" ] || { echo "FAIL: $LWPROF not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands as lwprof --help lists them, so that a new one is covered.
cmds=$("$LWPROF" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check "$(wc -w <<<"$cmds")" -ge 7 "lwprof --help lists $(echo $cmds)"

for o in -h --help help; do
	"$LWPROF" $o >"$tmp/out" 2>"$tmp/err"
	check $? -eq 0 "lwprof $o exits 0"
	check "$(head -n 1 "$tmp/out")" = "usage: lwprof COMMAND [ARGS]" "lwprof $o: usage on stdout"
done

for c in $cmds; do
	for o in -h --help; do
		LWPROF_DEVICE=/nonexistent/lwprof timeout 20 "$LWPROF" "$c" $o \
			>"$tmp/out" 2>"$tmp/err"
		check $? -eq 0 "lwprof $c $o exits 0"
		check "$(cat "$tmp/err")" = "" "lwprof $c $o: nothing on stderr"
		if [ "$c $o" = "collect -h" ]; then
			grep -q '^Software counters available for profiling:$' "$tmp/out"
			check $? -eq 0 "lwprof collect -h lists the software counters"
			grep -q '^task-clock,[0-9]* ' "$tmp/out"
			check $? -eq 0 "lwprof collect -h lists task-clock with its interval"
			continue
		fi
		grep -qE "^usage: lwprof $c( |\$)" "$tmp/out"
		check $? -eq 0 "lwprof $c $o: 'usage: lwprof $c' on stdout ($(head -n 1 "$tmp/out"))"
	done
	# -h and --help are not just any argument: an unknown option is a
	# usage error, on stderr.
	LWPROF_DEVICE=/nonexistent/lwprof timeout 20 "$LWPROF" "$c" --no-such-option \
		>"$tmp/out" 2>"$tmp/err"
	check $? -eq 2 "lwprof $c --no-such-option exits 2"
	check -s "$tmp/err" "lwprof $c --no-such-option: says so on stderr"
done
done_testing
