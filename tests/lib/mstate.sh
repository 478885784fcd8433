# SPDX-License-Identifier: GPL-2.0
# Helpers for the microstate guest tests (tests/guest/mstate_*.sh); source
# tests/lib/test.sh first.  A test calls ms_setup NAME (loads lwprof.ko and
# unloads it on exit), ms_ptime PROG ARGS... (runs the workload under
# `lwprof ptime -m -L`), then compares ptime's numbers with the workload's
# own ground truth (see tests/lib/mstate.h) using ms_near and friends.
# All times here are integer nanoseconds.

. "$(dirname "${BASH_SOURCE[0]}")/session.sh"

ms_progs=$LWPROF_BUILD/tests/progs

# ms_setup NAME: a fresh output directory $ms_dir and a loaded module.
ms_setup() {
	ms_dir=$LWPROF_OUT/mstate/$1
	rm -rf "$ms_dir"
	mkdir -p "$ms_dir"
	# The scheduler's own sleep statistics, a truth for blocked time.
	[ -w /proc/sys/kernel/sched_schedstats ] &&
		echo 1 >/proc/sys/kernel/sched_schedstats
	load_lwprof
}

# ms_ptime [-s SUFFIX] PROG ARGS...: run PROG under ptime; its stdout goes to
# $ms_dir/prog.out, ptime's report to $ms_dir/ptime.out, and the table, in
# nanoseconds with lower-case column names, to $ms_dir/table.
ms_ptime() {
	local rc

	"$LWPROF" ptime -m -L "$@" 2>"$ms_dir/ptime.out" >"$ms_dir/prog.out"
	rc=$?
	echo "# $* (exit $rc); its output:"
	sed 's/^/#   /' "$ms_dir/prog.out" | head -n 40
	echo "# ptime's report:"
	sed 's/^/#   /' "$ms_dir/ptime.out" | head -n 40
	check "$rc" -eq 0 "lwprof ptime -m -L $(basename "$1") exits 0"
	check -z "$(grep -i 'warning' "$ms_dir/ptime.out")" "ptime printed no warnings"
	awk '
	$1 == "PID" && $2 == "TID" { for (i = 1; i <= NF; i++) col[i] = tolower($i)
		n = NF; intable = 1; print tolower($0); next }
	intable && NF >= n && $1 ~ /^[0-9]+$/ {
		line = $1 " " $2
		for (i = 3; i <= 13; i++) line = line sprintf(" %.0f", $i * 1e9)
		for (i = 14; i <= NF; i++) line = line " " $i
		print line
	}' "$ms_dir/ptime.out" >"$ms_dir/table"
	awk 'NF == 2 && $1 ~ /^(real|user|sys|trap|tflt|dflt|kflt|lock|slp|lat|stop)$/ {
		printf "%s %.0f\n", $1, $2 * 1e9 }' "$ms_dir/ptime.out" >"$ms_dir/totals"
	return $rc
}

# ms_tid ROLE: the workload's "tid ROLE N" (the first one).
ms_tid() {
	awk -v r="$1" '$1 == "tid" && $2 == r { print $3; exit }' "$ms_dir/prog.out"
}

# ms_truth KEY: the workload's "truth KEY N".
ms_truth() {
	awk -v k="$1" '$1 == "truth" && $2 == k { print $3; exit }' "$ms_dir/prog.out"
}

# ms_asleep KEY: a blocking call's time asleep: KEY_slept_ns, the
# scheduler's statistics (ms_slept() in mstate.h), or its wall time KEY_ns
# when schedstats are off (then a vCPU stall in the call's on-CPU part
# counts too).
ms_asleep() {
	local v

	v=$(ms_truth "$1_slept_ns")
	if [ -z "$v" ]; then
		echo "# no schedstats: $1's wall time is the truth" >&2
		v=$(ms_truth "$1_ns")
	fi
	echo "$v"
}

# ms_get TID COLUMN: that thread's value (ns for times) from ptime's table.
ms_get() {
	awk -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$2 == t && k { print $k; exit }' "$ms_dir/table"
}

# ms_cpu TID: USER+SYS+TRAP of that thread (empty if it has no row).
ms_cpu() {
	awk -v t="$1" 'NR > 1 && $2 == t { print $4 + $5 + $6; exit }' "$ms_dir/table"
}

# ms_total NAME: ptime's summary line NAME (real, user, sys, ...) in ns.
ms_total() {
	awk -v n="$1" '$1 == n { print $2; exit }' "$ms_dir/totals"
}

ms_ms() {
	awk -v v="$1" 'BEGIN { printf "%.3f ms", v / 1e6 }'
}

# ms_near WHAT GOT EXPECTED [PERCENT [FLOOR_NS]]: GOT within PERCENT of
# EXPECTED or FLOOR_NS, whichever is larger (default: 2% or 5 ms).
ms_near() {
	local what=$1 got=${2:-} exp=${3:-} pct=${4:-2} floor=${5:-5000000} tol diff

	if [ -z "$got" ] || [ -z "$exp" ]; then
		check x = y "$what: no value (got '$got', expected '$exp')"
		return
	fi
	tol=$(awk -v e="$exp" -v p="$pct" -v f="$floor" \
		'BEGIN { t = e * p / 100; if (t < f) t = f; printf "%.0f", t }')
	diff=$((got - exp))
	[ $diff -lt 0 ] && diff=$((-diff))
	check "$diff" -le "$tol" "$what: got $(ms_ms "$got"), expected $(ms_ms "$exp") +- $(ms_ms "$tol")"
}

# ms_pos WHAT GOT: GOT > 0.
ms_pos() {
	check "${2:-0}" -gt 0 "$1: got $(ms_ms "${2:-0}") (> 0)"
}

# ms_check_sums: every thread's ten states add up to its REAL within 0.1%.
ms_check_sums() {
	local rows bad

	rows=$(awk 'NR > 1' "$ms_dir/table" | wc -l)
	bad=$(awk 'NR > 1 { s = 0; for (i = 4; i <= 13; i++) s += $i
		d = s - $3; if (d < 0) d = -d
		if (d > $3 * 0.001) printf "#   tid %s: states sum %d ns, REAL %d ns\n", $2, s, $3 }' \
		"$ms_dir/table")
	[ -n "$bad" ] && echo "$bad"
	check "$rows" -gt 0 "ptime's table has threads ($rows)"
	check -z "$bad" "each thread's ten states sum to its REAL within 0.1% ($rows threads)"
}

# ms_sched ROLE: "TID RUN WAIT" from the workload's "sched ROLE ..." line.
ms_sched() {
	awk -v r="$1" '$1 == "sched" && $2 == r { print $3, $4, $5; exit }' "$ms_dir/prog.out"
}

# ms_check_sched ROLE [run|wait]: the thread's USER+SYS+TRAP within 1% of
# its schedstat run time and its WAIT_CPU within 2% of its run-queue wait
# (the workload printed "sched ROLE TID RUN WAIT" after the thread ended);
# "run" or "wait" checks one of the two.
ms_check_sched() {
	local role=$1 what=${2:-both} tid run wait

	read -r tid run wait < <(ms_sched "$role")
	if [ "$what" != wait ]; then
		ms_near "$role: USER+SYS+TRAP vs schedstat run time" \
			"$(ms_cpu "$tid")" "$run" 1 0
	fi
	if [ "$what" != run ]; then
		ms_near "$role: WAIT_CPU vs schedstat run-queue wait" \
			"$(ms_get "$tid" lat)" "$wait" 2 0
	fi
}

# ms_check_parked ROLE: for a worker whose schedstat was read while it slept
# parked before its exit (struct ms_worker): USER+SYS+TRAP at least the run
# time then (less 1%); what exceeds it is the thread's wake-up and exit.
ms_check_parked() {
	local role=$1 tid run wait cpu lo

	read -r tid run wait < <(ms_sched "$role")
	cpu=$(ms_cpu "$tid")
	lo=$((run - run / 100))
	check "${cpu:-0}" -ge "$lo" "$role: USER+SYS+TRAP $(ms_ms "${cpu:-0}") >= schedstat run time before its exit $(ms_ms "$run") - 1% (exit took $(ms_ms $((${cpu:-0} - run))))"
}
