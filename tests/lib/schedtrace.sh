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
#   st_stop FILE       stop, save the trace to FILE, put back every tracefs
#                      setting st_start changed as st_start found it (and
#                      unmount tracefs if it mounted it); fails the test if
#                      the ring overwrote events
#   st_thread FILE TID "RUN WAIT WOKEN FORKED END" of TID in ns: run time,
#                      run-queue wait (from sched_wakeup_new, a wakeup or a
#                      preemption to the next switch-in), and the times of
#                      its sched_wakeup_new, its fork and its last switch-out

st_dir=/sys/kernel/tracing

st_events="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new sched/sched_process_fork"

# st_get FILE: a tracefs setting, in st_val, as it is written: the chosen
# word of a list ("local global [mono] ..."), the size buffer_size_kb
# grows to ("7 (expanded: 1408)"), the first character of an event's
# enable ("0*": soft-disabled), 0 for an event's filter "none".  Shell
# builtins only: a process costs a good part of a second in a loaded
# TCG guest.
st_get() {
	IFS= read -r st_val <$st_dir/$1
	case $1 in
	trace_clock) st_val=${st_val#*\[} st_val=${st_val%%\]*} ;;
	buffer_size_kb)
		case $st_val in
		*expanded:*) st_val=${st_val##*expanded: } st_val=${st_val%)} ;;
		esac ;;
	*/enable) st_val=${st_val:0:1} ;;
	*/filter) [ "$st_val" != none ] || st_val=0 ;;
	esac
}

# st_save: the settings st_start changes, tracing_on first, as
# "FILE<tab>VALUE" lines in st_saved.
st_save() {
	local files="tracing_on trace_clock buffer_size_kb" f e

	for e in $st_events; do
		files+=" events/$e/enable events/$e/filter"
	done
	st_saved=""
	for f in $files; do
		st_get $f
		st_saved+="$f"$'\t'"$st_val"$'\n'
	done
}

# st_restore: write back what st_save found, where it changed, in the
# reverse order (tracing_on last); an unreadable value ("X": CPUs with
# buffers of different sizes) is left alone.
st_restore() {
	local lines i f v

	readarray -t lines <<<"${st_saved%$'\n'}"
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		f=${lines[i]%%$'\t'*} v=${lines[i]#*$'\t'}
		st_get "$f"
		[ "$v" = X ] || [ "$st_val" = "$v" ] || echo "$v" >$st_dir/$f
	done
}

st_start() {
	local comm=$1 e

	st_mounted=0
	[ -r $st_dir/trace ] || { mount -t tracefs nodev $st_dir 2>/dev/null &&
		st_mounted=1; }
	[ -w $st_dir/trace ] || skip "no tracefs at $st_dir"
	st_save
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
	local file=$1 counts

	echo 0 >$st_dir/tracing_on
	cat $st_dir/trace >"$file"
	echo >$st_dir/trace
	st_restore
	[ $st_mounted = 0 ] || umount $st_dir
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
