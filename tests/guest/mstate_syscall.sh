#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# System-call entries, through both ways lwprof can see them: the ftrace
# hook on the system-call dispatchers (the default; enabled_functions must
# show it on x64_sys_call and ia32_sys_call) and the sys_enter tracepoint
# (module parameter sys_tracepoint=1; no ftrace hook).  Each way: thread
# "caller" makes 20000 getppid() calls, all counted (SCL) and none missed;
# thread "compat" makes 2000 32-bit calls (int $0x80), all counted, and a
# 32-bit futex wait of 300 ms that is USER_LOCK.  The hook is permanent
# (kernel.ftrace_enabled cannot be cleared under it), and with function
# tracing off the module falls back to the tracepoint, counting the same.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

n=20000
n32=2000
tracing=/sys/kernel/tracing
[ -r $tracing/enabled_functions ] || mount -t tracefs nodev $tracing

# hooked: the lines of enabled_functions that are lwprof's.
hooked() {
	grep lwprof $tracing/enabled_functions 2>/dev/null | awk '{ print $1 }' | sort | tr '\n' ' '
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
run "ftrace hook"
check "$(hooked)" = "ia32_sys_call x32_sys_call x64_sys_call " \
	"the ftrace hook is on the three dispatchers (got: $(hooked))"
check -n "$(echo 0 2>&1 >/proc/sys/kernel/ftrace_enabled)" \
	"kernel.ftrace_enabled cannot be cleared while the hook is on"
check "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 "kernel.ftrace_enabled is still 1"

# again NAME: a fresh $ms_dir for the module just loaded.
again() {
	ms_dir=$LWPROF_OUT/mstate/$1
	rm -rf "$ms_dir"
	mkdir -p "$ms_dir"
}

# The hook is registered at load: function tracing off then means the
# tracepoint for as long as the module stays.
rmmod lwprof
echo 0 >/proc/sys/kernel/ftrace_enabled
insmod "$LWPROF_KO" || { echo 1 >/proc/sys/kernel/ftrace_enabled; echo "FAIL: insmod"; exit 1; }
echo 1 >/proc/sys/kernel/ftrace_enabled
again syscall_noftrace
run "function tracing off at load"
check -z "$(hooked)" "no ftrace hook when function tracing was off at load (got: $(hooked))"

rmmod lwprof
insmod "$LWPROF_KO" sys_tracepoint=1 || { echo "FAIL: insmod sys_tracepoint=1"; exit 1; }
again syscall_tp
run "sys_enter tracepoint"
check -z "$(hooked)" "no ftrace hook with sys_tracepoint=1 (got: $(hooked))"
done_testing
