# SPDX-License-Identifier: GPL-2.0
# The kernel's own trace of the scheduler (tracefs events sched_switch,
# sched_wakeup, sched_wakeup_new, sched_process_fork), a truth for a
# thread's run time and run-queue wait.  Source tests/lib/test.sh first.
#
# Why not /proc/PID/schedstat: its times are the run queue's clock
# (rq_clock()), read at the __schedule() entry, and a wakeup that asks for
# a reschedule even freezes it (check_preempt_curr() ->
# rq_clock_skip_update()): the __schedule() that follows does not read
# the clock, so the thread switched out is charged the time since the last
# clock update as run-queue wait instead of run time, and the thread
# switched in loses as much wait and gains as much run time.  On hardware
# that is microseconds; in the TCG test guest a vCPU acts on the
# reschedule up to 12 ms later (a new child queued on a CPU whose thread
# was in a system call), so schedstat moved up to 10 ms of one child's wait
# to another.  A trace event takes its own clock reading in the tracepoint,
# as lwprof's probe on it does.
#
# Even so, two probes' readings of one event differ by whatever the host
# does between them: a TCG vCPU stalled by a loaded host gave one event
# 20.6 ms between the trace's reading and lwprof's.  So st_bounds takes two
# traces: one started before lwprof.ko attaches its probes (at its first
# session) and one after (a session holding them: tests/lib/session.sh's
# hold_session; mstate.sh sources it).  A
# tracepoint calls its probes in the order they were registered, so for
# every event the first trace's reading comes before lwprof's and the
# second's after it: together they bracket lwprof's reading exactly,
# whatever the host does (the bracket is then as wide as the stall).
#
# Each trace is a tracefs instance of its own (instances/NAME), removed
# at its stop: the global settings are never touched.
#
#   st_start COMM [NAME]   trace tasks named COMM in instance NAME (default
#                          lwprof_st), CLOCK_MONOTONIC time stamps
#   st_stop FILE [NAME]    stop, save the trace to FILE, remove the instance
#                          (and unmount tracefs if st_start mounted it);
#                          fails the test if the ring overwrote events
#   st_pair BEFORE AFTER   "N M BAD": the events of two traces of the same
#                          tasks (N and M), and how many of the first
#                          trace's do not match the second's in order on
#                          their CPU (0: they pair)
#   st_bounds BEFORE AFTER TID
#                          "RUN_LO RUN_HI WAIT_LO WAIT_HI LIFE_LO LIFE_HI
#                          BLOCK_LO BLOCK_HI WOKEN FORKED" of TID in ns:
#                          what lwprof's readings between those of the two
#                          traces make of its run time, its run-queue wait
#                          (from sched_wakeup_new, a wakeup or a preemption
#                          to the next switch-in), its life (sched_wakeup_new
#                          to its last switch-out) and its time blocked (a
#                          switch-out not runnable to its wakeup: a sleep,
#                          a lock, a fault or a stop), at least and at
#                          most; and the first trace's times of its
#                          sched_wakeup_new and its fork
#   st_ptime COMM NAME PROG...  ptime of PROG between two such traces
#   st_check NAME TID      lwprof's figures of TID within those bounds
#   st_cleanup             remove what st_start left (for an EXIT trap;
#                          keeps $?)

st_dir=/sys/kernel/tracing

st_events="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new sched/sched_process_fork"
st_active=0
st_mounted=0

st_start() {
	local comm=$1 d=$st_dir/instances/${2:-lwprof_st} e

	if [ ! -r $st_dir/trace ] && mount -t tracefs nodev $st_dir 2>/dev/null; then
		st_mounted=1
	fi
	[ -w $st_dir/trace ] || skip "no tracefs at $st_dir"
	mkdir "$d" 2>/dev/null || skip "cannot make a tracefs instance $d"
	st_active=$((st_active + 1))
	echo 0 >"$d/tracing_on"
	echo mono >"$d/trace_clock"
	echo 4096 >"$d/buffer_size_kb"
	echo "prev_comm == \"$comm\" || next_comm == \"$comm\"" \
		>"$d/events/sched/sched_switch/filter"
	echo "comm == \"$comm\"" >"$d/events/sched/sched_wakeup/filter"
	echo "comm == \"$comm\"" >"$d/events/sched/sched_wakeup_new/filter"
	echo "parent_comm == \"$comm\"" >"$d/events/sched/sched_process_fork/filter"
	for e in $st_events; do
		echo 1 >"$d/events/$e/enable"
	done
	echo 1 >"$d/tracing_on"
}

st_stop() {
	local file=$1 d=$st_dir/instances/${2:-lwprof_st} counts e

	echo 0 >"$d/tracing_on"
	cat "$d/trace" >"$file"
	# Disabled first: an instance with enabled events cannot go.
	for e in $st_events; do
		echo 0 >"$d/events/$e/enable"
	done
	rmdir "$d"
	st_active=$((st_active - 1))
	if [ $st_active = 0 ] && [ $st_mounted = 1 ]; then
		umount $st_dir && st_mounted=0
	fi
	# "# entries-in-buffer/entries-written: 500/500   #P:2"
	counts=$(awk '/entries-in-buffer\/entries-written:/ { print $3; exit }' "$file")
	check "${counts%/*}" = "${counts#*/}" "the scheduler trace ${2:-lwprof_st} kept every event ($counts)"
}

# The awk functions both readers share: an event's time stamp (ns), CPU,
# name and fields.
st_awk_lib='
	function stamp(   a) {
		match($0, / [0-9]+\.[0-9]+: /)
		split(substr($0, RSTART + 1, RLENGTH - 3), a, ".")
		return a[1] * 1e9 + a[2] * 1000
	}
	function cpu() {
		match($0, /\[[0-9]+\]/)
		return substr($0, RSTART + 1, RLENGTH - 2) + 0
	}
	function event(   a) {
		match($0, / [a-z_]+: /)
		return substr($0, RSTART + 1, RLENGTH - 3)
	}
	function field(name,   r) {
		if (!match($0, " " name "=[^ ]+")) return ""
		r = substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
		return r
	}
	# What identifies an event: its name and the tasks it names.
	function key(e) {
		if (e == "sched_switch") return e " " field("prev_pid") " " field("next_pid")
		if (e == "sched_process_fork") return e " " field("child_pid")
		return e " " field("pid")
	}
	# Read the two traces: the first one`s events in order, with their
	# stamp lo[], the second`s stamp of the same event hi[] (its k-th on
	# the same CPU), and in bad the count of events that do not pair.
	function both(before, after,   c, k, n, line) {
		while ((getline line < after) > 0) {
			$0 = line
			if (/^#/ || !match($0, / [0-9]+\.[0-9]+: /)) continue
			c = cpu()
			k = nb[c]++
			bkey[c, k] = key(event())
			bstamp[c, k] = stamp()
		}
		while ((getline line < before) > 0) {
			$0 = line
			if (/^#/ || !match($0, / [0-9]+\.[0-9]+: /)) continue
			c = cpu()
			k = na[c]++
			n++
			ev[n] = line
			lo[n] = stamp()
			if (bkey[c, k] != key(event())) {
				bad++
				hi[n] = lo[n]
			} else {
				# The second trace prints whole microseconds.
				hi[n] = bstamp[c, k] + 1000
			}
		}
		return n
	}
'

st_pair() {
	awk -v A="$1" -v B="$2" "$st_awk_lib"'
	BEGIN {
		n = both(A, B)
		for (c in nb) m += nb[c]
		printf "%d %d %d\n", n, m, bad + (n != m)
	}'
}

st_bounds() {
	awk -v A="$1" -v B="$2" -v P="$3" "$st_awk_lib"'
	function pos(v) { return v > 0 ? v : 0 }
	BEGIN {
		n = both(A, B)
		for (i = 1; i <= n; i++) {
			$0 = ev[i]
			e = event()
			if (e == "sched_process_fork" && field("child_pid") == P)
				forked = lo[i]
			else if (e == "sched_wakeup_new" && field("pid") == P) {
				woken = lo[i]; qlo = lo[i]; qhi = hi[i]; q = 1
				birth_lo = lo[i]; birth_hi = hi[i]
			} else if (e == "sched_wakeup" && field("pid") == P && !q && !oncpu) {
				if (asleep) {
					block_lo += pos(lo[i] - bhi); block_hi += hi[i] - blo
					asleep = 0
				}
				qlo = lo[i]; qhi = hi[i]; q = 1
			} else if (e == "sched_switch") {
				if (field("prev_pid") == P && oncpu) {
					run_lo += pos(lo[i] - inhi); run_hi += hi[i] - inlo
					oncpu = 0; end_lo = lo[i]; end_hi = hi[i]
					q = field("prev_state") ~ /^R/
					asleep = !q && field("prev_state") !~ /^[XZ]/
					qlo = blo = lo[i]; qhi = bhi = hi[i]
				}
				if (field("next_pid") == P) {
					if (q) {
						wait_lo += pos(lo[i] - qhi); wait_hi += hi[i] - qlo
					}
					q = 0; inlo = lo[i]; inhi = hi[i]; oncpu = 1
				}
			}
		}
		printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", run_lo, run_hi,
			wait_lo, wait_hi, pos(end_lo - birth_hi), end_hi - birth_lo,
			block_lo, block_hi, woken, forked
	}'
}

# st_ptime COMM NAME PROG ARGS...: ms_setup NAME (tests/lib/mstate.sh)
# and ms_ptime PROG ARGS... between two traces of the tasks named COMM,
# one started before lwprof.ko's probes attach and one after (a session
# holds them meanwhile), saved as $ms_dir/before.trace and after.trace;
# they must hold the same events.
st_ptime() {
	local comm=$1 name=$2 n m bad

	shift 2
	st_start "$comm" lwprof_st_before
	trap st_cleanup EXIT
	ms_setup "$name"
	trap 'st_cleanup; release_session; unload_lwprof' EXIT
	hold_session
	st_start "$comm" lwprof_st_after
	ms_ptime "$@"
	release_session
	st_stop "$ms_dir/before.trace" lwprof_st_before
	st_stop "$ms_dir/after.trace" lwprof_st_after
	read -r n m bad < <(st_pair "$ms_dir/before.trace" "$ms_dir/after.trace")
	check "${bad:-1}" -eq 0 -a "${n:-0}" -gt 0 "the two traces hold the same events ($n and $m)"
}

# st_check NAME TID: after st_ptime (tests/lib/mstate.sh) and st_stop of
# $ms_dir/before.trace and after.trace: TID's USER+SYS+TRAP, WAIT_CPU,
# REAL and blocked states within what the traces make of its run time,
# run-queue wait, life from sched_wakeup_new and time blocked (st_bounds);
# st_run_width and st_block_width then hold those two brackets' widths.
st_check() {
	local name=$1 tid=$2 rlo rhi wlo whi llo lhi blo bhi woken forked

	read -r rlo rhi wlo whi llo lhi blo bhi woken forked < \
		<(st_bounds "$ms_dir/before.trace" "$ms_dir/after.trace" "$tid")
	echo "# $name ($tid): forked $(ms_ms $((woken - forked))) before its sched_wakeup_new; brackets: run $(ms_ms $((rhi - rlo))), wait $(ms_ms $((whi - wlo))), life $(ms_ms $((lhi - llo))), blocked $(ms_ms $((bhi - blo)))"
	ms_between "$name: USER+SYS+TRAP within its run time in the traces" \
		"$(ms_cpu "$tid")" "$rlo" "$rhi" "$(ms_clocks "$rhi")"
	ms_between "$name: WAIT_CPU within its run-queue wait in the traces" \
		"$(ms_get "$tid" lat)" "$wlo" "$whi" "$(ms_clocks "$whi")"
	ms_between "$name: REAL within its life from sched_wakeup_new in the traces" \
		"$(ms_get "$tid" real)" "$llo" "$lhi" "$(ms_clocks "$lhi")"
	ms_between "$name: its blocked states within its time blocked in the traces" \
		"$(ms_blocked "$tid")" "$blo" "$bhi" "$(ms_clocks "$bhi")"
	st_run_width=$((rhi - rlo))
	st_block_width=$((bhi - blo))
}

st_cleanup() {
	local rc=$? d e

	for d in $st_dir/instances/lwprof_st*; do
		[ -d "$d" ] || continue
		echo 0 >"$d/tracing_on"
		for e in $st_events; do
			echo 0 >"$d/events/$e/enable"
		done
		rmdir "$d"
	done
	if [ $st_mounted = 1 ]; then
		umount $st_dir && st_mounted=0
	fi
	return $rc
}
