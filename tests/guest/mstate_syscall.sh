#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# System-call entries and returns to user mode, through every way lwprof
# can see them: direct ftrace calls into lwprof at the entry of the
# system-call dispatchers and of exit_to_user_mode_prepare() where the
# kernel has it as a function (the default; enabled_functions must show
# them while a session is open, and none once it has ended), the
# sys_enter tracepoint and the user-return notifier (with function
# tracing off when the session starts), the tracepoint alone (module
# parameter sys_tracepoint=1), the notifier alone (ret_notifier=1).  Each
# way: thread "caller" makes 20000 getppid() calls, all counted (SCL) and
# none missed; thread "compat" makes 2000 32-bit calls (int $0x80), all
# counted, and a 32-bit futex wait of 300 ms that is USER_LOCK.  While
# the hooks are on, kernel.ftrace_enabled cannot be cleared.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

n=20000
n32=2000
tracing=/sys/kernel/tracing
[ -r $tracing/enabled_functions ] || mount -t tracefs nodev $tracing

# hooked PATTERN: the functions enabled_functions shows calling a symbol
# of lwprof's matching PATTERN (on their own line, or on the next one for
# a direct call).
hooked() {
	awk -v p="$1" '/^[^ \t]/ { fn = $1 } $0 ~ p && /lwprof/ { print fn }' \
		$tracing/enabled_functions 2>/dev/null | sort -u | tr '\n' ' '
}

run() {
	local how=$1 c got

	ms_ptime "$ms_progs/ms_syscall" $n $n32
	c=$(ms_tid caller)
	got=$(ms_get "$c" scl)
	# Besides its getppid() calls, the thread makes a few of its own
	# (gettid, write, the thread's exit): no more than 20.
	check "${got:-0}" -ge $n "$how: caller's SCL ${got:-none} >= its $n calls"
	check "${got:-0}" -le $((n + 20)) "$how: caller's SCL ${got:-none} <= $n + 20"
	ms_pos "$how: caller's SYS" "$(ms_get "$c" sys)"
	if [ "$(ms_truth compat_ok)" = 1 ]; then
		c=$(ms_tid compat)
		got=$(ms_get "$c" scl)
		check "${got:-0}" -ge $((n32 + 1)) "$how: compat's SCL ${got:-none} >= its $n32 + 1 32-bit calls"
		check "${got:-0}" -le $((n32 + 30)) "$how: compat's SCL ${got:-none} <= $n32 + 30"
		ms_near "$how: compat: USER_LOCK vs its 32-bit futex wait's time asleep" \
			"$(ms_get "$c" lock)" "$(ms_asleep compat_wait)"
	else
		echo "# no 32-bit system calls in this kernel: compat checks skipped"
	fi
	ms_check_sums
}

ms_setup syscall
trap 'echo 1 >/proc/sys/kernel/ftrace_enabled; release_session; unload_lwprof' EXIT
run "direct hooks"
hold_session
check "$(hooked lwprof_sys_tramp)" = "ia32_sys_call x32_sys_call x64_sys_call " \
	"a session open: the system-call hook is on the three dispatchers (got: $(hooked lwprof_sys_tramp))"
# Later kernels inline exit_to_user_mode_prepare(): the notifier then.
if grep -qx 'exit_to_user_mode_prepare' $tracing/available_filter_functions; then
	want_ret="exit_to_user_mode_prepare "
else
	want_ret=""
fi
check "$(hooked lwprof_ret_tramp)" = "$want_ret" \
	"a session open: the return hook is on ${want_ret:-nothing (no such function: the notifier)} (got: $(hooked lwprof_ret_tramp))"
check -n "$(echo 0 2>&1 >/proc/sys/kernel/ftrace_enabled)" \
	"kernel.ftrace_enabled cannot be cleared while the hooks are on"
check "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 "kernel.ftrace_enabled is still 1"
release_session
check -z "$(hooked .)" "no session: nothing of lwprof's in enabled_functions (got: $(hooked .))"
echo 0 >/proc/sys/kernel/ftrace_enabled
check "$(cat /proc/sys/kernel/ftrace_enabled)" = 0 "no session: kernel.ftrace_enabled can be cleared"

# again NAME: a fresh $ms_dir.
again() {
	ms_dir=$LWPROF_OUT/mstate/$1
	rm -rf "$ms_dir"
	mkdir -p "$ms_dir"
}

# Function tracing off when the session starts: the tracepoint and the
# notifier for as long as the session lasts.
again syscall_noftrace
run "function tracing off"
echo 1 >/proc/sys/kernel/ftrace_enabled
check -z "$(hooked .)" "no ftrace hook was left by a session with function tracing off (got: $(hooked .))"

rmmod_lwprof
insmod "$LWPROF_KO" sys_tracepoint=1 || { echo "FAIL: insmod sys_tracepoint=1"; exit 1; }
again syscall_tp
run "sys_enter tracepoint"
hold_session
check -z "$(hooked lwprof_sys)" "no system-call hook with sys_tracepoint=1 (got: $(hooked lwprof_sys))"
release_session

rmmod_lwprof
insmod "$LWPROF_KO" ret_notifier=1 || { echo "FAIL: insmod ret_notifier=1"; exit 1; }
again syscall_urn
run "user-return notifier"
hold_session
check -z "$(hooked lwprof_ret)" "no return hook with ret_notifier=1 (got: $(hooked lwprof_ret))"
release_session
done_testing
