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

# ms_vmstat: the memory events that can block a thread that only computes
# (a THP collapse, compaction's migration, reclaim), for the log.
ms_vmstat() {
	local k v _

	while read -r k v _; do
		case $k in
		thp_collapse_alloc|thp_fault_alloc|compact_stall|pgmigrate_success|pgmajfault|pgsteal_direct)
			printf '%s=%s ' "$k" "$v" ;;
		esac
	done </proc/vmstat
}

# ms_ptime [-s SUFFIX] PROG ARGS...: run PROG under ptime; its stdout goes to
# $ms_dir/prog.out, ptime's report to $ms_dir/ptime.out, and the table, in
# nanoseconds with lower-case column names, to $ms_dir/table.
ms_ptime() {
	local rc

	echo "# vmstat before: $(ms_vmstat)"
	"$LWPROF" ptime -m -L "$@" 2>"$ms_dir/ptime.out" >"$ms_dir/prog.out"
	rc=$?
	echo "# vmstat after:  $(ms_vmstat)"
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

# ms_window KEY: the workload's "window KEY T0 T1", as "T0 T1".
ms_window() {
	awk -v k="$1" '$1 == "window" && $2 == k { print $3, $4; exit }' "$ms_dir/prog.out"
}

# ms_lwprof KEY: the workload's "lwprof KEY N", the module's own figure
# read by the thread from its slot (tests/lib/mslot.h).
ms_lwprof() {
	awk -v k="$1" '$1 == "lwprof" && $2 == k { print $3; exit }' "$ms_dir/prog.out"
}

# ms_clocks WINDOW_NS: what two clocks of the guest's TSC may differ by over
# a window: the module's (the TSC scaled to ns within a part per billion),
# CLOCK_MONOTONIC (the TSC clocksource, no NTP in the guest) and the CPU
# clock (sched_clock(), the TSC too) each round their scale to well under
# 10 ppm; allow 100 ppm plus 2 us for the readings' last digits.
ms_clocks() {
	echo $((2000 + $1 / 10000))
}

# ms_between WHAT GOT LO HI [SLACK_NS]: LO - SLACK <= GOT <= HI + SLACK,
# for bounds that are exact (mslot.h); SLACK is what the clocks may differ.
ms_between() {
	local what=$1 got=${2:-} lo=${3:-} hi=${4:-} slack=${5:-0}

	if [ -z "$got" ] || [ -z "$lo" ] || [ -z "$hi" ]; then
		check x = y "$what: no value (got '$got', bounds '$lo' '$hi')"
		return
	fi
	check "$got" -ge $((lo - slack)) -a "$got" -le $((hi + slack)) \
		"$what: $(ms_ms "$lo") <= $(ms_ms "$got") <= $(ms_ms "$hi") (clocks: $(ms_ms "$slack"))"
}

# ms_check_continues ROLE TID COLUMN KEY: ptime's final COLUMN of thread TID
# continues the slot's total read at the end of the thread's window
# (lwprof ROLE_end_KEY_ns): at least that, and at most that plus all of
# the thread's time after it (REAL less the slot's sum of states then).
ms_check_continues() {
	local role=$1 tid=$2 col=$3 key=$4 got end sum real

	got=$(ms_get "$tid" "$col")
	end=$(ms_lwprof "${role}_end_${key}_ns")
	sum=$(ms_lwprof "${role}_end_sum_ns")
	real=$(ms_get "$tid" real)
	ms_between "$role: ptime's ${col^^} continues the slot's at the window's end" \
		"$got" "$end" $((end + ${real:-0} - ${sum:-0}))
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
	awk -v t="$1" 'NR > 1 && $2 == t { printf "%.0f\n", $4 + $5 + $6; exit }' "$ms_dir/table"
}

# ms_blocked TID: TFLT+DFLT+KFLT+LOCK+SLP+STOP of that thread.
ms_blocked() {
	awk -v t="$1" 'NR > 1 && $2 == t { printf "%.0f\n", $7 + $8 + $9 + $10 + $11 + $13; exit }' "$ms_dir/table"
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

# ms_oncpu_or_waiting TID: USER+SYS+TRAP+LAT of that thread.
ms_oncpu_or_waiting() {
	awk -v t="$1" 'NR > 1 && $2 == t { printf "%.0f\n", $4 + $5 + $6 + $12; exit }' "$ms_dir/table"
}

# ms_check_parked ROLE: for a worker whose schedstat was read while it slept
# parked before its exit (struct ms_worker): its run time then is at most
# its USER+SYS+TRAP+LAT.  Exact: the kernel's run time begins at the
# __schedule() entry of each switch-in, the module's at the sched_switch
# tracepoint after it, and in between the thread is still WAIT_CPU (a
# host stall there is run time to one, wait to the other).
ms_check_parked() {
	local role=$1 tid run wait got

	read -r tid run wait < <(ms_sched "$role")
	got=$(ms_oncpu_or_waiting "$tid")
	check "${got:-0}" -ge "${run:-1}" "$role: USER+SYS+TRAP+LAT $(ms_ms "${got:-0}") >= schedstat run time before its exit $(ms_ms "${run:-0}") (CPU $(ms_ms "$(ms_cpu "$tid")"))"
}
