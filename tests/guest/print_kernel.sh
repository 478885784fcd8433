#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel frames for real: tests/progs/zero_reader spends its time in
# read() of /dev/zero under reader() (frame pointers); lwprof collect -K
# (root) records kernel frames and copies /proc/kallsyms.  lwprof print
# must show the kernel's functions by name (vfs_read on the read path),
# below the user leaf: the samples with vfs_read on their stack have
# reader and main above it (but the loader's); and [kernel.kallsyms] holds most of the
# exclusive time (the process is mostly in the kernel).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

load_lwprof
need_sampling
work=$(mktemp -d /tmp/print_kernel.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -K -p 1ms -o k.er "$LWPROF_BUILD/tests/progs/zero_reader" 600 >/dev/null
check $? -eq 0 "collect -K zero_reader"
check -s k.er/archives/kallsyms "the experiment has the kallsyms copy"
f=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -functions k.er)
echo "$f" | head -25
tot=$(awk -F, '$NF == "<Total>" { print $2 }' <<<"$f")
vr=$(awk -F, '$NF == "vfs_read" { print $2 }' <<<"$f")
awk -v v="$vr" -v t="$tot" 'BEGIN { exit !(v > 0.3 * t) }'
check $? -eq 0 "vfs_read by name, inclusive $vr of $tot s"
check "$(grep -c '^[0-9.]*,[0-9.]*,0xffff' <<<"$f")" -le 2 "kernel frames named from kallsyms, not by address"
o=$("$LWPROF" print -printmode csv -metrics e.total:name -objects k.er)
ko=$(awk -F, '$NF == "[kernel.kallsyms]" { print $1 }' <<<"$o")
awk -v k="$ko" -v t="$tot" 'BEGIN { exit !(k > 0.5 * t) }'
check $? -eq 0 "[kernel.kallsyms]: most of the exclusive time ($ko of $tot s)"
# (the dynamic loader's few reads of the libraries are not under reader;
# nor is collect's forked child, which reads its go-ahead from a pipe
# before it execs the program: longer when the host is loaded)
g=$("$LWPROF" print -printmode csv -metrics i.total:name \
	-filters 'inStack("vfs_read") && !inStack("cmd_collect")' -functions k.er)
gt=$(awk -F, '$NF == "<Total>" { print $1 }' <<<"$g")
for fn in reader main; do
	v=$(awk -F, -v f=$fn '$NF == f { print $1 }' <<<"$g")
	awk -v v="$v" -v t="$gt" 'BEGIN { exit !(v >= 0.95 * t) }'
	check $? -eq 0 "samples in vfs_read: at least 95% under $fn ($v of $gt s)"
done
t=$("$LWPROF" print -metrics i.total:name -calltree k.er)
grep -A3 -- '+-reader$' <<<"$t" | grep -q '+-'
check $? -eq 0 "calltree: kernel functions below reader"
rm -rf "$LWPROF_OUT/print_kernel.er"; cp -r k.er "$LWPROF_OUT/print_kernel.er" 2>/dev/null
done_testing
