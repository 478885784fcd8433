#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf backend's microstates (docs/perf-backend.md) against the
# ground-truth workloads of tests/progs, recorded on this host without the
# module.  Off-CPU times come from PERF_RECORD_SWITCH, at the scheduler's
# own switch instants, so a blocked thread's Sleep or User Lock within its
# blocking call lies between the time the scheduler's trace has it blocked
# in the call (tracefs: its switch-out not runnable to its sched_wakeup,
# read in the same tracepoints as ours, a trace started before collect
# reading first) and the call's wall time (which also holds the call's own
# CPU time and the run-queue wait after the wake-up, which our off-CPU
# interval holds too where there is no sched:sched_wakeup:
# host/perf_wakewait checks that split): those bounds, +- 1 ms, are the
# tolerance.  (Not schedstat's sleep time: it starts at the dequeue, and a
# loaded host stalled the TCG guest's vCPU between that and the switch for
# 1.1 ms, System CPU for the switch records.)  Lock and sleep are told
# apart by the kernel stack at switch-out (a futex system call is User
# Lock): each thread must show the one it did and (less than 1 ms of) not
# the other.  On-CPU time is exact (switch records) but its split into
# User and System is by where the clock samples landed: the spinning
# thread, which makes no system calls, must be User CPU, the /dev/zero
# reader mostly System.  Their sum is at least the thread's CPU clock (- 1%
# for the clock reads' places) and at most 2% more (its start and end
# outside the clock's phase) plus, on a virtual machine, the steal time
# meanwhile: the hypervisor's, on CPU for the switch records, not for the
# CPU clock (paravirt steal accounting).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/schedtrace.sh"

pb_need
ms_dir=$LWPROF_OUT/perf_mstate
rm -rf "$ms_dir"
mkdir -p "$ms_dir"
[ "$(id -u)" -eq 0 ] || skip "needs root for kernel samples (see perf_absent for a user)"
trap st_cleanup EXIT

# between WHAT GOT LO HI: LO - 1 ms <= GOT <= HI + 1 ms
between() {
	local lo=$(($3 - 1000000)) hi=$(($4 + 1000000))
	check "${2:-0}" -ge "$lo" "$1: $(ms_ms "${2:-0}") >= $(ms_ms "$3") - 1 ms"
	check "${2:-0}" -le "$hi" "$1: $(ms_ms "${2:-0}") <= $(ms_ms "$4") + 1 ms"
}

# within WHO STATE KEY: WHO's STATE within the call of truth KEY (its
# packets from the call's start to its end: ms_window), not what the
# thread did before or after it.  The rest of a thread's life blocks too,
# and on a busy host for milliseconds: the guest saw 3.6 ms of Sleep at
# the holder's start (its page-ins over 9p) and 1.9 ms of User Lock after
# the waiter's call (stdout's lock, held by the holder as it printed).
within() {
	local t0 t1

	read -r t0 t1 < <(ms_window "$3")
	pb_sum "$(ms_tid "$1")" "$2" "${t0:-0}" "${t1:-0}"
}

# blocked WHO KEY TRACE: WHO's time blocked within the call of truth KEY
# by the scheduler's trace TRACE: from each switch-out not runnable to
# the wake-up that follows.
blocked() {
	local t0 t1

	read -r t0 t1 < <(ms_window "$2")
	awk -v P="$(ms_tid "$1")" -v a="${t0:-0}" -v b="${t1:-0}" "$st_awk_lib"'
	/^#/ || !match($0, / [0-9]+\.[0-9]+: /) { next }
	{ e = event(); s = stamp() }
	e == "sched_switch" && field("prev_pid") == P &&
	    field("prev_state") !~ /^[RXZ]/ { out = s; next }
	e == "sched_wakeup" && field("pid") == P && out {
		if (out >= a && s <= b)
			sum += s - out
		out = 0
	}
	END { printf "%.0f\n", sum }' "$3"
}

# traced NAME PROG: pb_collect NAME PROG under a scheduler trace of PROG's
# threads (started first), kept in $ms_dir/NAME.trace.
traced() {
	st_start "${2##*/}"
	pb_collect "$@"
	st_stop "$ms_dir/$1.trace"
}

# a sleeping thread
traced sleep "$ms_progs/ms_sleep"
between "sleeper: Sleep within nanosleep(300 ms)" "$(within sleeper sleep sleep)" \
	"$(blocked sleeper sleep "$ms_dir/sleep.trace")" "$(ms_truth sleep_ns)"
check "$(within sleeper lock sleep)" -lt 1000000 "sleeper: no User Lock within it"

# a mutex, a condition variable, a join (futex waits) and a nanosleep
traced lock "$ms_progs/ms_lock"
tr=$ms_dir/lock.trace
between "waiter: User Lock within its pthread_mutex_lock()" "$(within waiter lock waiter_lock)" \
	"$(blocked waiter waiter_lock "$tr")" "$(ms_truth waiter_lock_ns)"
between "cvwaiter: User Lock within pthread_cond_wait()" "$(within cvwaiter lock cv_wait)" \
	"$(blocked cvwaiter cv_wait "$tr")" "$(ms_truth cv_wait_ns)"
between "holder: Sleep within its nanosleep(300 ms)" "$(within holder sleep holder_sleep)" \
	"$(blocked holder holder_sleep "$tr")" "$(ms_truth holder_sleep_ns)"
check "$(within holder lock holder_sleep)" -lt 1000000 "holder: no User Lock within it"

# three threads pinned to one CPU, spinning: their time off CPU is their
# preemptions, their wait at the start gate (a semaphore: User Lock) and
# whatever else blocked them.  The truth is their time off CPU since the
# gate plus their run-queue wait before it, which leaves out the wait at
# the gate itself and whatever slept before it (in the TCG guest, page-ins
# over 9p).  Every off-CPU nanosecond is in a switch record's interval, so
# Wait CPU + User Lock + Sleep is at least the truth (- 1% for the two
# clocks' reads), and Wait CPU at most the truth (+ 1%).  The truth is the
# thread's own sum of its clocks, and its run-queue wait is off CPU too:
# where the sum is below that exact wait (a stall of the TCG guest's vCPU
# runs on the thread's CPU clock), the wait is the better bound.  Wait CPU
# is the preempted part of the run-queue wait, and with sched:sched_wakeup
# the waits after the wake-ups too: at most the thread's schedstat
# run-queue wait, which holds both.  Both truths end where the thread
# parks (main reads its schedstat as it sleeps there), so every figure is
# over its packets up to the park's (its last with User Lock), less that
# packet's Wait CPU after main releases it (with sched:sched_wakeup).
# What the thread does after, its exit, is in no truth: 8.4 ms of User
# CPU once in the TCG guest under host load.
pb_collect waitcpu "$ms_progs/ms_waitcpu"
for s in spin0 spin1 spin2; do
	t=$(ms_tid $s)
	read -r park rel < <(awk -v t="$t" '$1 == t && $5 > 0 { p = $2; w = $7 }
		END { print p + 0, w + 0 }' "$pb_pk")
	w=$(($(pb_sum "$t" wait 0 "$park") - rel))
	l=$(pb_sum "$t" lock 0 "$park") z=$(pb_sum "$t" sleep 0 "$park")
	x=$(ms_truth ${s}_offcpu_ns)
	read -r _ run rq < <(ms_sched $s)
	echo "# $s: Wait CPU $(ms_ms "$w") (and $(ms_ms "$rel") after its release), User Lock $(ms_ms "$l"), Sleep $(ms_ms "$z"), run-queue wait $(ms_ms "${rq:-0}"), truth $(ms_ms "$x")"
	check $((w + l + z)) -ge $((x - x / 100)) "$s: Wait CPU + User Lock + Sleep $(ms_ms $((w + l + z))) >= its time off CPU $(ms_ms "$x") - 1%"
	if [ -n "${PB_SCHEDSTAT_SPLIT:-}" ]; then
		# The TCG guest (guest/perf_backend): schedstat's split of a
		# thread's time between run and wait is not exact there (a
		# reschedule's skipped clock update moved up to 10 ms of one
		# thread's wait to another's run: tests/lib/schedtrace.sh), its
		# sum is (each switch moves both ends together).  So Wait CPU +
		# User + System up to the park is at most run + wait there,
		# + 1% and 2 ms (ten guest runs under host load: at most
		# 4.8 ms over; over the whole life, exit and all, 9.7 ms).
		u=$(pb_sum "$t" user 0 "$park") sy=$(pb_sum "$t" system 0 "$park")
		tot=$((run + ${rq:-0}))
		check $((w + u + sy)) -le $((tot + tot / 100 + 2000000)) "$s: Wait CPU + User + System $(ms_ms $((w + u + sy))) <= its run time + run-queue wait at its park $(ms_ms $tot) + 1% + 2 ms"
		continue
	fi
	off=$((x > ${rq:-0} ? x : ${rq:-0}))
	check "$w" -le $((off + off / 100)) "$s: Wait CPU $(ms_ms "$w") <= its time off CPU (at least its run-queue wait) $(ms_ms "$off") + 1%"
	# (+ 1%: the thread read its schedstat a little before it parked, and
	# a preemption in between is ours only: 0.25 ms of 400 in the guest)
	check "$w" -le $((${rq:-0} + ${rq:-0} / 100 + 1000000)) "$s: Wait CPU $(ms_ms "$w") <= its run-queue wait $(ms_ms "${rq:-0}") + 1% + 1 ms"
done

# user vs system by sample
pb_collect cpu -p 1ms -- "$ms_progs/ms_cpu"
t=$(ms_tid spin)
u=$(pb_get "$t" "User CPU") s=$(pb_get "$t" "System CPU")
# The thread's whole life took more than its phase (its start, its park
# and exit: milliseconds in the TCG guest, whose first run of new code is
# its translation), at most what both threads took up to their release
# (dead_threads_cpu_ns) less the other's run time when it parked.
dead=$(ms_truth dead_threads_cpu_ns)
cpu_vs_clock() {	# cpu_vs_clock WHO GOT TRUTH OTHER: TRUTH - 1% <= GOT <= its life + 2% + steal
	local life

	read -r _ life _ < <(ms_sched "$4")
	life=$((dead - life))
	check "$2" -ge $(($3 - $3 / 100)) "$1: User + System CPU $(ms_ms "$2") >= its CPU clock over its phase $(ms_ms "$3") - 1%"
	check "$2" -le $((life + life / 50 + pb_steal_ns)) "$1: and <= its CPU time up to its release $(ms_ms "$life") + 2% + the machine's steal time $(ms_ms "$pb_steal_ns")"
}
cpu_vs_clock spin $((u + s)) "$(ms_truth spin_cpu_ns)" sys
# the spin makes no system calls: its System CPU is what the samples that
# landed in the kernel took (its start and exit, its interrupts): at most a
# 1 ms period at each end plus the time it saw itself not running its own
# code (spin_wall - spin_run: interrupts, and preemptions, off CPU; in the
# TCG guest interrupts take a third of its time)
brk=$(($(ms_truth spin_wall_ns) - $(ms_truth spin_run_ns)))
check "$s" -le $((2000000 + brk)) "spin: System CPU $(ms_ms "$s") <= 2 ms + its breaks $(ms_ms "$brk")"
t=$(ms_tid sys)
u=$(pb_get "$t" "User CPU") s=$(pb_get "$t" "System CPU")
cpu_vs_clock sys $((u + s)) "$(ms_truth sys_cpu_ns)" spin
check "$s" -ge $((4 * u)) "sys: System CPU $(ms_ms "$s") at least 4x User $(ms_ms "$u")"
done_testing
