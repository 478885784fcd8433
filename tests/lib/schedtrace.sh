# SPDX-License-Identifier: GPL-2.0
# The kernel's own trace of the scheduler (tracefs events sched_switch,
# sched_wakeup, sched_wakeup_new, sched_process_fork), a truth for a
# thread's run time and run-queue wait.  Source tests/lib/test.sh first.
#
# Why not /proc/PID/schedstat: its times are the run queue's clock
# (rq_clock()), which a wakeup that asks for a reschedule freezes
# (check_preempt_curr() -> rq_clock_skip_update()): the __schedule() that
# follows does not read the clock, so the thread switched out is charged
# the time since the last clock update as run-queue wait instead of run
# time, and the thread switched in loses as much wait and gains as much run
# time.  On hardware that is microseconds; in the TCG test guest a vCPU
# acts on the reschedule up to 12 ms later (a new child queued on a CPU
# whose thread was in a system call), so schedstat moved up to 10 ms of one
# child's wait to another.  A trace event takes its own clock reading,
# like lwprof's probe on the same tracepoint.
#
#   st_start COMM      trace tasks named COMM (CLOCK_MONOTONIC time stamps)
#   st_stop FILE       stop, save the trace to FILE, restore tracefs; fails
#                      the test if the ring overwrote events
#   st_thread FILE TID "RUN WAIT WOKEN FORKED END" of TID in ns: run time,
#                      run-queue wait (from sched_wakeup_new, a wakeup or a
#                      preemption to the next switch-in), and the times of
#                      its sched_wakeup_new, its fork and its last switch-out

st_dir=/sys/kernel/tracing

st_events="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new sched/sched_process_fork"

st_start() {
	local comm=$1 e

	[ -r $st_dir/trace ] || mount -t tracefs nodev $st_dir 2>/dev/null
	[ -w $st_dir/trace ] || skip "no tracefs at $st_dir"
	echo 0 >$st_dir/tracing_on
	echo mono >$st_dir/trace_clock
	echo 4096 >$st_dir/buffer_size_kb
	echo "prev_comm == \"$comm\" || next_comm == \"$comm\"" \
		>$st_dir/events/sched/sched_switch/filter
	echo "comm == \"$comm\"" >$st_dir/events/sched/sched_wakeup/filter
	echo "comm == \"$comm\"" >$st_dir/events/sched/sched_wakeup_new/filter
	echo "parent_comm == \"$comm\"" >$st_dir/events/sched/sched_process_fork/filter
	for e in $st_events; do
		echo 1 >$st_dir/events/$e/enable
	done
	echo >$st_dir/trace
	echo 1 >$st_dir/tracing_on
}

st_stop() {
	local file=$1 e counts

	echo 0 >$st_dir/tracing_on
	cat $st_dir/trace >"$file"
	for e in $st_events; do
		echo 0 >$st_dir/events/$e/enable
		echo 0 >$st_dir/events/$e/filter
	done
	echo local >$st_dir/trace_clock
	echo >$st_dir/trace
	# "# entries-in-buffer/entries-written: 500/500   #P:2"
	counts=$(awk '/entries-in-buffer\/entries-written:/ { print $3; exit }' "$file")
	check "${counts%/*}" = "${counts#*/}" "the scheduler trace kept every event ($counts)"
}

st_thread() {
	awk -v P="$2" '
	function stamp(   a) {
		match($0, / [0-9]+\.[0-9]+: /)
		split(substr($0, RSTART + 1, RLENGTH - 3), a, ".")
		return a[1] * 1e9 + a[2] * 1000
	}
	function field(name,   r) {
		if (!match($0, " " name "=[^ ]+")) return ""
		r = substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
		return r
	}
	/^#/ { next }
	{ t = stamp() }
	/ sched_process_fork: / && field("child_pid") == P { forked = t }
	/ sched_wakeup_new: / && field("pid") == P { woken = t; q = t }
	/ sched_wakeup: / && field("pid") == P && q == "" && !oncpu { q = t }
	/ sched_switch: / {
		if (field("prev_pid") == P) {
			run += t - tin; oncpu = 0; end = t
			q = field("prev_state") ~ /^R/ ? t : ""
		}
		if (field("next_pid") == P) {
			if (q != "") wait += t - q
			q = ""; tin = t; oncpu = 1
		}
	}
	END { printf "%.0f %.0f %.0f %.0f %.0f\n", run, wait, woken, forked, end }
	' "$1"
}
