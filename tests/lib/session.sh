# SPDX-License-Identifier: GPL-2.0
# For guest shell tests of lwprof sessions; source after test.sh.
#
# load_lwprof [PARAM=VALUE...]: insmod lwprof.ko with those module
# parameters (removing a copy a crashed test or an earlier load left) and,
# whatever happens next, kill the test's background jobs and rmmod it on
# exit; a module that will not unload fails the test.  Skips when the
# module has no microstate accounting (LWPROF_FEAT_MSTATE, bit 0).
load_lwprof() {
	[ "$(id -u)" = 0 ] || skip "needs root (insmod)"
	rmmod_lwprof || { echo "FAIL: rmmod lwprof (loaded before)"; exit 1; }
	insmod "$LWPROF_KO" "$@" || { echo "FAIL: insmod $LWPROF_KO $*"; exit 1; }
	trap unload_lwprof EXIT
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[13579bdf]\)' ||
		skip "the module has no microstate accounting (LWPROF_FEAT_MSTATE)"
}

# need_sampling: skip unless the loaded module samples (LWPROF_FEAT_SAMPLE).
need_sampling() {
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[2367abef]\)' ||
		skip "the module cannot sample (LWPROF_FEAT_SAMPLE)"
}

# need_kprof: skip unless the loaded module records whole-machine kernel
# profiles (ABI 1.4: idle packets, off-CPU kernel stacks).
need_kprof() {
	"$LWPROF" version | grep -Eq 'ABI 1\.([4-9]|[1-9][0-9])' ||
		skip "the module has no whole-machine kernel profiling (ABI 1.4)"
}

# module_gap TEXT: does the loaded module say the kernel keeps it from
# something (a "kernel: ..." line of lwprof version holding TEXT)?
module_gap() {
	"$LWPROF" version 2>/dev/null | grep -q "^kernel: .*$1"
}

unload_lwprof() {
	local rc=$?

	kill $(jobs -p) 2>/dev/null
	wait
	if ! rmmod_lwprof; then
		echo "FAIL: rmmod lwprof"
		[ $rc -eq 0 ] && rc=1
	fi
	exit $rc
}

# rmmod_lwprof: rmmod lwprof.ko if it is loaded.  A recorder's last
# reference to /dev/lwprof can outlive it: collect polls the device
# through io_uring, and the kernel drops an exited ring's requests, and
# their files, in a work item of its own after the process is gone.  So
# wait (10 s at most) for the module's count to reach 0; a reference
# still held then is a leak, and rmmod fails.
rmmod_lwprof() {
	local i

	grep -q '^lwprof ' /proc/modules || return 0
	for ((i = 0; i < 100; i++)); do
		[ "$(cat /sys/module/lwprof/refcnt 2>/dev/null || echo 0)" = 0 ] && break
		sleep 0.1
	done
	rmmod lwprof
}

# nobody CMD...: run CMD as uid/gid 65534 with no supplementary groups.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# hold_session: open a session that holds lwprof.ko's probes attached
# (tests/progs/ms_hold) until release_session, and wait until it is open.
# lwprof attaches its probes when the first session starts and detaches
# them when the last one ends; a test whose checks depend on the order of
# its probes against others' (a trace started after them) holds one.
hold_session() {
	local line

	coproc LWPROF_HOLD { exec "$LWPROF_BUILD/tests/progs/ms_hold"; }
	hold_pid=$LWPROF_HOLD_PID
	read -r line <&"${LWPROF_HOLD[0]}"
	[ "$line" = attached ] || { echo "FAIL: ms_hold: no session"; exit 1; }
}

release_session() {
	[ -n "${hold_pid:-}" ] || return 0
	kill "$hold_pid" 2>/dev/null
	wait "$hold_pid" 2>/dev/null
	hold_pid=
}

# lwprof_thread_objs: entries in use in the module's slab cache of threads,
# when it has its own (slab_nomerge; tests/run boots the guest so),
# "merged" otherwise.  Shrinking first flushes the per-CPU slabs, whose
# free objects slabinfo would count as in use.
lwprof_thread_objs() {
	local d=/sys/kernel/slab/lwprof_thread
	if [ -L $d ] || [ ! -e $d/shrink ]; then
		echo merged
		return
	fi
	echo 1 >$d/shrink
	awk '$1 == "lwprof_thread" { print $2 }' /proc/slabinfo
}

# lwprof_leftovers WHAT: with no session open, what lwprof.ko still holds,
# one line each: vmalloc areas (rings, scratch), thread entries, ftrace
# hooks (tracefs mounted), references to the module.  WHAT names the
# moment in the lines.  The last entries go in RCU callbacks, and the last
# rings once the recorder's io_uring has let go of its file (a kernel
# worker): a few seconds are allowed.
lwprof_leftovers() {
	local what=$1 m o i h u

	for i in 0 1 2 3 4 5; do
		[ $i = 0 ] || sleep 1
		m=$(grep -c '\[lwprof\]' /proc/vmallocinfo)
		o=$(lwprof_thread_objs)
		[ "$m" = 0 ] || continue
		case $o in 0|merged) break ;; esac
	done
	[ "$m" = 0 ] || echo "$what: $m vmalloc areas of lwprof's left"
	case $o in 0|merged) ;; *) echo "$what: $o thread entries left" ;; esac
	h=$(grep -c lwprof /sys/kernel/tracing/enabled_functions 2>/dev/null)
	[ "${h:-0}" = 0 ] || echo "$what: $h ftrace hooks of lwprof's left"
	u=$(awk '$1 == "lwprof" { print $3 }' /proc/modules)
	[ "${u:-0}" = 0 ] || echo "$what: the module's use count is $u"
}

# reap_recorders NAME: SIGKILL a random half of the recorders whose pids
# the array NAME holds, at once ($kills counts them), then wait for the
# others (60 s more each, for a busy guest; then they are killed): NAME
# then holds each one's exit status, "killed", or "hung".
reap_recorders() {
	local -n rec_pids=$1
	local i

	for i in "${!rec_pids[@]}"; do
		if [ $((RANDOM % 2)) = 0 ]; then
			kill -9 "${rec_pids[$i]}" 2>/dev/null && kills=$((kills + 1))
			wait "${rec_pids[$i]}" 2>/dev/null
			rec_pids[$i]=killed
		fi
	done
	for i in "${!rec_pids[@]}"; do
		[ "${rec_pids[$i]}" = killed ] && continue
		if ! timeout 60 tail --pid="${rec_pids[$i]}" -f /dev/null; then
			kill -9 "${rec_pids[$i]}" 2>/dev/null
			wait "${rec_pids[$i]}" 2>/dev/null
			rec_pids[$i]=hung
			continue
		fi
		wait "${rec_pids[$i]}"
		rec_pids[$i]=$?
	done
}

# bg_nobody CMD...: run CMD as uid 65534 in the background; bg_pid its pid
# (setpriv's, which becomes CMD's: the nobody function's $! would be a
# subshell's).
bg_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@" & bg_pid=$!
}

# started PID NAME: wait (up to 60 s) until process PID runs program NAME:
# an attach before that would find setpriv, still changing its IDs.
started() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	echo "FAIL: process $1 never ran $2"
	t_failed=1
}
