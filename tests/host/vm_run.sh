#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run, the kernel test bed: boots the kernel lwprof.ko is built
# for (else scripts/kernels' test guest kernel; never merely the newest
# installed), -k another, passes arguments and exit status through, shows
# host tools in the guest, brings files back through the results directory,
# enforces its time limit and names scripts/deps.sh when something is missing.
. "$(dirname "$0")/../lib/test.sh"
vm=$LWPROF_TOP/scripts/vm-run
cd "$LWPROF_TOP" || exit 1

top=$LWPROF_TOP
. scripts/lib/kernels.sh
vermagic=$(modinfo -F vermagic lwprof.ko | cut -d' ' -f1)
want=$vermagic
[ -e "/boot/vmlinuz-$want" ] || want=$(kernels_of guest)

out=$("$vm" -- sh -c 'uname -r; printf "%s|" "$@"; echo; pwd' sh 'a b' "c'd" '$HOME' '')
rc=$?
check $rc -eq 0 "vm-run -- uname -r exits 0"
check "$(sed -n 1p <<<"$out")" = "$want" "guest runs the kernel lwprof.ko is built for ($want)"
other=$(kernels_of matrix | head -n 1)
if [ -e "/boot/vmlinuz-$other" ]; then
	check "$("$vm" -k "$other" -- uname -r)" = "$other" "vm-run -k $other boots $other"
fi
check "$(sed -n 2p <<<"$out")" = "a b|c'd|\$HOME||" "arguments arrive intact"
check "$(sed -n 3p <<<"$out")" = "$LWPROF_TOP" "command runs in the current directory"

"$vm" -- false
check $? -eq 1 "vm-run -- false exits 1"

f=$LWPROF_OUT/vm_run.probe.$$
rm -f "$f"
out=$("$vm" -- sh -c "perf --version; echo to-stderr >&2; echo from-guest >$f; exit 7" 2>"$f.err")
rc=$?
check $rc -eq 7 "exit status 7 passes through"
grep -q '^perf version ' <<<"$out"; check $? -eq 0 "host perf runs in the guest"
check "$(cat "$f" 2>/dev/null)" = from-guest "file written to the results directory is on the host"
grep -qx to-stderr "$f.err"; check $? -eq 0 "guest stderr arrives on stderr"
rm -f "$f" "$f.err"

err=$("$vm" -t 8 -- sleep 600 2>&1 >/dev/null)
check $? -eq 124 "time limit exits 124"
grep -q 'time limit of 8s' <<<"$err"; check $? -eq 0 "and says so"

err=$("$vm" -k 0.0.0-none-amd64 -- true 2>&1)
check $? -eq 125 "missing kernel exits 125"
grep -q 'scripts/deps.sh' <<<"$err"; check $? -eq 0 "missing kernel names scripts/deps.sh"

err=$(LWPROF_QEMU=/nonexistent/qemu "$vm" -- true 2>&1)
check $? -eq 125 "missing qemu exits 125"
grep -q 'qemu-system-x86_64 not found.*scripts/deps.sh' <<<"$err"
check $? -eq 0 "missing qemu names scripts/deps.sh"
done_testing
