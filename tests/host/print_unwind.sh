#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DWARF CFI unwinding: tests/progs/qsort_unwind (-O2 -fomit-frame-pointer)
# saves its registers and stack inside its qsort callback; gen_exp makes
# that a sample whose only frame-pointer frame is the pc.  The analyzer
# must unwind through Debian's libc: the callback's callers are libc's
# merge sort under qsort_r (libc's qsort is a jump to qsort_r, so it
# leaves no frame), then main, then libc's start code and _start.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
exp=$(printf 'capture %s\nusage auto\n' "$cap" | gen_exp qsort -)
tree=$("$LWPROF" print -metrics i.user:name -calltree "$exp")
echo "$tree"
chain=$(sed -n 's/^ *0\.010 *[| ]*+-//p' <<<"$tree" | tr '\n' ' ')
check "${chain%% main *}" != "$chain" "main is on the stack ($chain)"
# without libc's debug symbols (libc6-dbg) the static merge sort is
# <static>@0x... (libc.so.6)
grep -Eq 'main qsort_r ((msort_with_tmp|<static>@0x[0-9a-f]+ \(libc\.so\.6\)) )+cmp $' <<<"$chain"
check $? -eq 0 "cmp <- msort_with_tmp... <- qsort_r <- main"
grep -Eq '^_start .*__libc_start_call_main main ' <<<"$chain"
check $? -eq 0 "and below main, libc's start code and _start"
cc=$("$LWPROF" print -printmode csv -metrics a.user:name -csingle cmp "$exp")
grep -Eq '^0\.010,(msort_with_tmp|<static>@0x[0-9a-f]+ \(libc\.so\.6\))$' <<<"$(sed -n 2p <<<"$cc")"
check $? -eq 0 "cmp's caller: the merge sort, with all of cmp's time"
done_testing
