#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With -K, a thread exiting after its memory is gone (exit_mm()) is
# sampled at the tick with the kernel stack, and with the user pc where it
# entered the kernel (docs/design/sampling.md): the user time it ran since
# its last packet, before the exit began, belongs to its user code, never
# to a kernel function.  mem_hog writes 256 MiB and exits at once: freeing
# them after exit_mm() takes many 1 ms intervals in the guest, and the
# first tick there carries the user time since the last tick in user mode.
# Ground truth: every clock packet of it with user time has a user frame,
# and print's -objects has no user time on a kernel object.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup sample_exit_kstack
need_kprof

"$LWPROF" collect -K -p 1ms -o m.er "$progs/mem_hog" 256 0 >/dev/null 2>err.txt
check $? -eq 0 "collect -K mem_hog 256 0 ($(cat err.txt))"
"$LWPROF" dump m.er >dump.txt
clk=$(grep ': SAMPLE clock ' dump.txt)
# The exit's ticks: kernel-mode packets without the user registers (the
# user pc alone, if any), but the EXIT one.
ek=$(grep -v 'flags=[^ ]*EXIT' <<<"$clk" | grep -v 'flags=[^ ]*REGS' | grep ' kframes=[1-9]')
check "$(grep -c . <<<"$ek")" -ge 1 "ticks in the exit after exit_mm() with a kernel stack"
bad=$(grep ' frames=0 ' <<<"$ek" | grep -vc ' user=0 ')
check "$bad" -eq 0 "none with user time lacks the user pc ($bad)"
grep ' frames=0 ' <<<"$ek" | grep -v ' user=0 ' | head -3
u=$(field user <<<"$ek" | awk '{ s += $1 } END { print s + 0 }')
echo "# user time in the exit's ticks: $u ns"
o=$("$LWPROF" print -printmode csv -metrics e.user:name -objects m.er)
echo "$o"
ko=$(awk '{ printf "[%s]\n", $1 }' /proc/modules; echo '[kernel.kallsyms]')
ku=$(awk -F, 'NR == FNR { k[$0] = 1; next } $2 in k { s += $1 } END { printf "%.3f", s }' <(echo "$ko") - <<<"$o")
check "$ku" = 0.000 "-objects: no user time in kernel objects ($ku s)"
collect_done
