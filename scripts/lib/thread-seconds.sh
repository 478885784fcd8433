# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark scripts that divide an experiment's bytes by
# the seconds its threads lived.
#
# thread_seconds LWPROF EXP: "RUNNABLE TOTAL", seconds summed over EXP's
# threads: RUNNABLE the time they were on a run queue (Total CPU Time plus
# Wait CPU), TOTAL their whole lives (Total Thread Time); "0 0" if EXP
# cannot be read.  Divide by RUNNABLE: in a guest under QEMU's -icount
# (LWPROF_VM_ICOUNT, sleep=off) a wait on the host, such as ld.so opening
# libc on the 9p root or the last close of a file there at exit, moves
# the guest's clock to its next timer deadline each time the vCPU idles:
# 170 s of one thread's Sleep once, where a run of `cpu_burn 1 2` has
# 4 s (docs/design/testbed.md).  The rest is counted instructions, whatever the
# host did.  Both backends give the three metrics.
thread_seconds() {
	"$1" print -printmode csv -metrics e.totalcpu:e.wait:e.total:name \
		-functions "$2" 2>/dev/null |
		awk -F, '$NF == "<Total>" { r = $1 + $2; t = $3 }
		END { printf "%.3f %.3f\n", r, t }'
}
