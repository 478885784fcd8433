#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# collect's own memory stays flat however many short processes a long run
# sees (docs/design/reliability.md).  The fake module scripts N
# exited single-thread processes ($FAKE_LWPROF_EXITS: their final usage
# records, 2000 per read) and each one's TASK and MMAP records (the same
# two files, $FAKE_LWPROF_MMAPS); collect's peak resident memory (VmHWM,
# logged by the fake at collect's exit, after usage.txt and archives/ are
# written) is measured for N and 4N processes.
#
# Ground truth: keeping a thread's totals costs at least one struct
# lwprof_thread_usage (200 bytes), so a recorder that keeps them grows by
# at least 3N x 200 bytes between the runs (2.9 MB for N = 5000).  The
# bound is a quarter of that, 3N x 50
# bytes: far above the noise of VmHWM between runs (about 100 KB: the
# kernel counts resident pages per thread in batches) and far below any
# per-process state.  usage.txt must still hold every thread exactly once.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
[ -e "$fake" ] || { echo "FAIL: $fake not built (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
[ -f "$libc" ] || libc=$(readlink -f "$(command -v sh)")
N=5000

# run N: one recording of N short processes in $tmp/N; its VmHWM (KB)
run() {
	local n=$1 d=$tmp/$1
	mkdir "$d" && cd "$d" || return 1
	awk -v n="$n" -v lib="$libc" 'BEGIN { for (k = 0; k < n; k++) {
		p = 200000 + k
		print "start", p, "sh"; print "exec", p, "true"
		print "mmap", p, "/usr/bin/true"; print "mmap", p, lib
		print "exit", p, "true" } }' >maps
	FAKE_LWPROF_LOG=$d/fake.log FAKE_LWPROF_DONE=$d/done \
	FAKE_LWPROF_MMAPS=$d/maps FAKE_LWPROF_EXITS=$n \
	FAKE_LWPROF_EXITS_PER_READ=2000 FAKE_LWPROF_EXITS_DONE=$d/edone \
	LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null timeout 120 \
		"$LWPROF" collect -m 1 sh -c \
		'until [ -e "$0" ] && [ -e "$1" ]; do sleep 0.02; done' \
		"$d/done" "$d/edone" 2>err.txt
	echo "collect of $n processes: exit $?" >&2
	sed -n 's/^usage_reader hwm_kb=//p' fake.log
}

# every scripted thread once, with its own totals, and the fake's 3
check_usage() {
	local n=$1 u=$tmp/$1/test.1.er/usage.txt
	check -f "$u" "$n processes: usage.txt is there"
	check "$(head -1 "$u" | cut -c1-20)" = "# pid tid ppid flags" \
		"$n processes: usage.txt starts with its column line"
	check "$(awk '!/^#/' "$u" | wc -l)" -eq $((n + 3)) \
		"$n processes: usage.txt has $n + 3 threads"
	check "$(awk -v n="$n" '!/^#/ && $1 >= 200000 {
		k = $1 - 200000
		if (k < n && $2 == $1 && $4 == "0x1" && $7 == k &&
		    $14 == 1000000 - k && $23 == "s" k && !seen[k]++) good++ }
		END { print good + 0 }' "$u")" -eq "$n" \
		"$n processes: each scripted thread exactly once, with its totals"
	check "$(ls -A "$tmp/$1/test.1.er" | grep -c '\.tmp$')" -eq 0 \
		"$n processes: no temporary file is left in the experiment"
	check "$(grep -c -e ' /usr/bin/true$' -e " $libc\$" \
		"$tmp/$1/test.1.er/archives/index.txt")" -eq 2 \
		"$n processes: archives/index.txt names the two files they mapped, once each"
}

small=$(run $N)
big=$(run $((4 * N)))
echo "VmHWM: $N processes ${small:-?} KB, $((4 * N)) processes ${big:-?} KB"
check -n "$small" -a -n "$big" "the fake logged collect's VmHWM both times"
check_usage $N
check_usage $((4 * N))
bound=$((3 * N * 50 / 1024))
check "$((big - small))" -lt "$bound" \
	"collect's peak memory grows by $((big - small)) KB for $((3 * N)) more processes (bound $bound KB; keeping their totals would take >= $((3 * N * 200 / 1024)) KB)"
done_testing
