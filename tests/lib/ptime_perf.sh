# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of lwprof ptime and top without the module
# (--backend perf); source tests/lib/test.sh and tests/lib/tracefs.sh
# first, call pp_setup, and set $wrap (notrace, withtrace or empty).

# pp_setup DIR: as root (taskstats' exit records need CAP_NET_ADMIN, the
# runs as nobody setpriv), else skip; $progs, and $ms_dir, the output
# directory $LWPROF_OUT/DIR, empty and readable by nobody.
pp_setup() {
	[ "$(id -u)" = 0 ] || skip "needs root (taskstats exit records, setpriv)"
	progs=$LWPROF_BUILD/tests/progs
	ms_dir=$LWPROF_OUT/$1
	rm -rf "$ms_dir"
	mkdir -p "$ms_dir"
	chmod 755 "$ms_dir"
}

# pt OUT ARGS...: lwprof ptime --backend perf -m -L ARGS, its report in
# OUT.err, the command's stdout in OUT.out, and the table in OUT.table
# (times in ns, "-" kept as "-", lower-case header).
pt() {
	local out=$ms_dir/$1 rc
	shift
	$wrap "$LWPROF" ptime --backend perf -m -L "$@" >"$out.out" 2>"$out.err"
	rc=$?
	echo "# ptime $* (exit $rc):"
	sed 's/^/#   /' "$out.err" | head -n 30
	table "$out"
	return $rc
}

table() {
	awk '
	$1 == "PID" && $2 == "TID" { n = NF; intable = 1; print tolower($0); next }
	intable && NF >= n && $1 ~ /^[0-9]+$/ {
		line = $1 " " $2
		for (i = 3; i <= 13; i++)
			line = line ($i == "-" ? " -" : sprintf(" %.0f", $i * 1e9))
		for (i = 14; i <= NF; i++) line = line " " $i
		print line
	}' "$1.err" >"$1.table"
	awk 'NF == 2 && $1 ~ /^(real|user|sys|trap|tflt|dflt|kflt|lock|slp|lat|stop)$/ {
		printf "%s %s\n", $1, $2 == "-" ? "-" : sprintf("%.0f", $2 * 1e9) }' \
		"$1.err" >"$1.totals"
}

# col OUT TID COLUMN; total OUT NAME
col() {
	awk -v t="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$2 == t && k { print $k; exit }' "$ms_dir/$1.table"
}
total() {
	awk -v n="$2" '$1 == n { print $2; exit }' "$ms_dir/$1.totals"
}


# check_waitcpu OUT [busy]: ms_waitcpu's spinning threads (its output in
# OUT.out, ptime's in OUT.table).  ptime reads LAT from the kernel's
# run-queue wait (schedstat, taskstats at the exit): it is at least each
# one's time off CPU since the gate plus its wait before (less 2% or 5 ms:
# the two clocks' reads; that truth leaves out a sibling's preemption
# between its schedstat read and its sleep at the gate, as all three start
# on one CPU; less the CPU's interrupt, softirq and steal time meanwhile,
# which a running thread has in neither its CPU time nor its wait: a
# shared host's hypervisor takes milliseconds), and at least its schedstat wait when it parked (less 0.1%).
# After the park, the thread's wake-up to exit waits for a CPU too:
# microseconds in the quiet guest, so there LAT is also at most that wait
# + 2%; tens of ms or more on a busy shared host (busy: not checked).
check_waitcpu() {
	local s t c got exp tol lost

	cp "$ms_dir/$1.out" "$ms_dir/prog.out"
	cp "$ms_dir/$1.table" "$ms_dir/table"
	lost=$(ms_truth lost_ns)
	for s in spin0 spin1 spin2; do
		t=$(ms_tid $s)
		got=$(col "$1" "$t" lat)
		exp=$(ms_truth ${s}_offcpu_ns)
		tol=$((exp / 50 > 5000000 ? exp / 50 : 5000000))
		check "${got:-0}" -ge $((exp - tol - ${lost:-0})) "$s: LAT $(ms_ms "${got:-0}") >= its time off CPU since the gate + its wait before $(ms_ms "$exp") - $(ms_ms $tol) - the CPU's interrupts and steal $(ms_ms "${lost:-0}")"
		read -r _ _ exp < <(ms_sched $s)
		check "${got:-0}" -ge $((exp - exp / 1000)) "$s: LAT $(ms_ms "${got:-0}") >= its schedstat wait when it parked $(ms_ms "$exp") - 0.1% (its exit waited $(ms_ms $((${got:-0} - exp))))"
		[ -z "${2:-}" ] &&
			check "${got:-0}" -le $((exp + exp / 50)) "$s: LAT $(ms_ms "${got:-0}") <= its schedstat wait when it parked $(ms_ms "$exp") + 2%"
		ms_check_parked $s
	done
	for c in trap tflt dflt kflt lock stop; do
		check "$(total "$1" $c)" = "-" "total $c is absent: -"
	done
}

# check_nthreads OUT: each nthreads worker sleeps only in one nanosleep,
# whose time as the worker saw it ("tid TID slept SECS" in OUT.out) is its
# sleep, its wake-up's wait for a CPU and microseconds of CPU: SLP + LAT +
# USR + SYS >= that - 1 ms, and SLP <= that + 11 ms: the kernel adds a
# running thread's run time to its total at each tick, so the exit record
# misses the exit's last slice, at most a tick (10 ms at HZ=100, the
# least), which lands in SLP (we saw 0.8 ms in the guest).
check_nthreads() {
	local tid slept exp s rest

	while read -r _ tid _ slept _; do
		exp=$(awk -v s="$slept" 'BEGIN { printf "%.0f", s * 1e9 }')
		s=$(col "$1" "$tid" slp)
		rest=$(awk -v t="$tid" 'NR > 1 && $2 == t { print $11 + $12 + $4 + $5 }' "$ms_dir/$1.table")
		check "${s:-0}" -le $((exp + 11000000)) "worker $tid: SLP $(ms_ms "${s:-0}") <= its nanosleep $(ms_ms "$exp") + 11 ms"
		check "${rest:-0}" -ge $((exp - 1000000)) "worker $tid: SLP+LAT+USR+SYS $(ms_ms "${rest:-0}") >= its nanosleep - 1 ms"
	done < <(grep '^tid ' "$ms_dir/$1.out")
}
