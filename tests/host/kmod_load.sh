#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernels scripts/kernels builds for but the test bed does not boot
# (the cloud kernels have no 9p, which vm-run's root is; docs/guide/install.md)
# load the module too: each boots in QEMU from an initramfs alone
# (busybox, its build/kmod/RELEASE/lwprof.ko and a static build of
# guest/module_abi), where module_abi loads it, checks /dev/lwprof, the
# ABI, its kernel gaps and the ioctl table, and unloads it; the kernel
# log must stay free of splats.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
top=$LWPROF_TOP
. scripts/lib/kernels.sh
qemu=$(command -v qemu-system-x86_64) || skip "no qemu (scripts/deps.sh)"
[ -x /bin/busybox ] || skip "no busybox (scripts/deps.sh)"

out=$LWPROF_OUT/kmod_load
rm -rf "$out"
mkdir -p "$out"
abi=$out/module_abi
cc -std=gnu11 -D_GNU_SOURCE -Iuapi -Itests/lib -O2 -static -o "$abi" tests/guest/module_abi.c
check $? -eq 0 "guest/module_abi, static"
splat='BUG:|WARNING:|Oops|Call Trace:|general protection|Kernel panic'

n=0
for k in $(kernels_of build); do
	ko=build/kmod/$k/lwprof.ko
	[ -e "/boot/vmlinuz-$k" ] || { echo "# $k: no image installed, not booted"; continue; }
	[ -f "$ko" ] || { check -f "$ko" "$k: lwprof.ko built (make modules-all)"; continue; }
	n=$((n + 1))
	d=$out/$k
	mkdir -p "$d/root/bin" "$d/root/proc" "$d/root/sys" "$d/root/dev"
	cp /bin/busybox "$d/root/bin/"
	cp "$ko" "$abi" "$d/root/"
	cat >"$d/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "kmod_load: $(uname -r) $(uname -v)"
LWPROF_KO=/lwprof.ko /module_abi >/abi.log 2>&1
echo "kmod_load: module_abi exit $?"
sed 's/^/kmod_load: | /' /abi.log
echo o >/proc/sysrq-trigger
sleep 10
INIT
	chmod +x "$d/root/init"
	(cd "$d/root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$d/initrd.gz"
	timeout -k 5 300 "$qemu" -nodefaults -no-user-config -display none -monitor none \
		-no-reboot -machine q35 -accel tcg,thread=single -cpu max -smp 2 -m 1G \
		-kernel "/boot/vmlinuz-$k" -initrd "$d/initrd.gz" \
		-append "console=ttyS0 panic=-1 tsc=reliable no_timer_check rdinit=/init" \
		-serial "file:$d/console.log" </dev/null
	log=$d/console.log
	check "$(grep -c "^kmod_load: $k " "$log")" -eq 1 "$k boots the initramfs"
	check "$(grep -o 'kmod_load: module_abi exit [0-9]*' "$log")" = "kmod_load: module_abi exit 0" \
		"$k: module_abi passes ($(grep -c '^kmod_load: | ok:' "$log") checks)"
	grep '^kmod_load: | FAIL' "$log"
	check "$(grep -cE "$splat" "$log")" -eq 0 "$k: no splat in the kernel log"
done
check $n -gt 0 "$n kernels booted"
done_testing
