# SPDX-License-Identifier: GPL-2.0
# Helpers for the perf backend's host tests (tests/host/perf_*.sh; source
# tests/lib/test.sh and tests/lib/mstate.sh first): record a ground-truth
# workload with `lwprof collect --backend perf`, then read each thread's
# microstates back from `lwprof print -statistics` in nanoseconds.

# pb_need: skip unless perf_event_open works here for this user.
pb_need() {
	local d

	d=$(mktemp -d /tmp/perfbe.XXXXXX) || exit 1
	if ! "$LWPROF" collect --backend perf -o "$d/probe.er" true >"$d/out" 2>&1; then
		cat "$d/out"
		rm -rf "$d"
		skip "perf_event_open does not work here"
	fi
	rm -rf "$d"
}

# pb_collect NAME [COLLECT OPTIONS --] PROG ARGS...: record into
# $ms_dir/NAME.er; the workload's stdout in $ms_dir/prog.out (what
# ms_tid and ms_truth read), -statistics in $ms_dir/NAME.stat.
pb_collect() {
	local name=$1 rc
	shift
	rm -rf "$ms_dir/$name.er"
	pb_steal_ns=$(pb_steal)
	"$LWPROF" collect --backend perf -o "$ms_dir/$name.er" "$@" \
		>"$ms_dir/prog.out" 2>"$ms_dir/collect.err"
	rc=$?
	pb_steal_ns=$(($(pb_steal) - pb_steal_ns))
	echo "# collect $*: exit $rc; steal time meanwhile $((pb_steal_ns / 1000000)) ms"
	sed 's/^/#   /' "$ms_dir/collect.err" "$ms_dir/prog.out" | head -n 30
	check "$rc" -eq 0 "collect --backend perf ($name) exits 0"
	"$LWPROF" print -statistics "$ms_dir/$name.er" >"$ms_dir/$name.stat" 2>&1
	pb_stat="$ms_dir/$name.stat"
	pb_packets "$ms_dir/$name.er" >"$ms_dir/$name.pk"
	pb_pk="$ms_dir/$name.pk"
}

# pb_packets EXPERIMENT: its packets (lwprof dump's samples), one a line:
# TID TIME_NS USER SYSTEM LOCK SLEEP WAIT, each state's ns since the
# thread's packet before.
pb_packets() {
	"$LWPROF" dump "$1" 2>/dev/null | awk '$2 == "SAMPLE" {
		delete f
		for (i = 3; i <= NF; i++)
			if ((k = index($i, "=")))
				f[substr($i, 1, k - 1)] = substr($i, k + 1)
		sub(/\./, "", f["t"])
		printf "%s %s %.0f %.0f %.0f %.0f %.0f\n", f["tid"], f["t"],
		       f["user"], f["system"], f["lock"], f["sleep"], f["wait"] }'
}

# pb_sum TID STATE FROM TO: the thread's STATE (user, system, lock, sleep
# or wait) in ns over its packets from time FROM to TO (ns, inclusive).
# A blocked interval ends in the packet of its switch-in, so a window's
# blocked states are those of the intervals that end in it.
pb_sum() {
	awk -v t="$1" -v c="$2" -v a="$3" -v b="$4" '
	BEGIN { n = split("user system lock sleep wait", k, " ")
		for (i = 1; i <= n; i++) col[k[i]] = i + 2 }
	$1 == t && $2 + 0 >= a + 0 && $2 + 0 <= b + 0 { s += $col[c] }
	END { printf "%.0f\n", s }' "$pb_pk"
}

# pb_steal: all CPUs' steal time (/proc/stat, USER_HZ 100) in ns.  On a
# virtual machine the hypervisor's steal is in the perf backend's on-CPU
# time (a thread switched in is on CPU) but not in the thread's CPU clock.
pb_steal() {
	awk '$1 == "cpu" { printf "%.0f\n", $9 * 10000000 }' /proc/stat
}

# pb_get TID LABEL: the thread's sampled LABEL ("User CPU", "Sleep",
# "User Lock", "Wait CPU", "Total") from -statistics, in ns (0 if none).
pb_get() {
	awk -v t="$1" -v l="$2" '
	/^  Thread [0-9]+: tid / { cur = $4; next }
	cur == t { lab = $1; if ($2 !~ /^[0-9.]+$/) lab = lab " " $2
		if (lab == l) { printf "%.0f\n", $(NF - 1) * 1e9; found = 1; exit } }
	END { if (!found) print 0 }' "$pb_stat"
}
