#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel upgrade rebuilds the module: with lwprof installed through DKMS
# for the test guest's kernel (6.1), the hook a kernel package runs when
# it is installed (/etc/kernel/postinst.d/dkms, for the matrix's 6.12)
# makes DKMS build, sign and install lwprof for the new kernel, indexed
# there (modinfo -k finds it), the old kernel's untouched.  In a mount
# namespace of its own: DKMS's configuration (source and DKMS trees, MOK
# key under $LWPROF_OUT/dkms-upgrade) and the two kernels' module trees
# (their index files alone, as guest/pkg_dkms's) are private copies, so
# nothing of the host's DKMS or /lib/modules changes.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
[ "$(id -u)" = 0 ] || skip "needs root (mount namespace)"
command -v dkms >/dev/null || skip "dkms not installed (scripts/deps.sh)"
hook=/etc/kernel/postinst.d/dkms
[ -x "$hook" ] || skip "no $hook (dkms)"
if [ -z "${LWPROF_UPGRADE_NS:-}" ]; then
	exec env LWPROF_UPGRADE_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. tests/lib/pkg.sh
top=$LWPROF_TOP
. scripts/lib/kernels.sh
old=$(kernels_of guest)
new=$(kernels_of matrix | grep -v -e '-rt-' -e '-cloud-' | head -n 1)
for k in "$old" "$new"; do
	[ -e "/lib/modules/$k/build/Makefile" ] || skip "no headers for $k (scripts/deps.sh)"
done

version=$pkg_version
out=$LWPROF_OUT/dkms-upgrade
rm -rf "$out"
mkdir -p "$out/tree" "$out/etc"
make -s --no-print-directory install-dkms DESTDIR="$out/root"
check $? -eq 0 "make install-dkms DESTDIR=$out/root"

# DKMS as installed, with its trees and key here.
cp -a /etc/dkms "$out/etc/"
cat >"$out/etc/dkms/framework.conf.d/lwprof-test.conf" <<CONF
source_tree="$out/root/usr/src"
dkms_tree="$out/tree"
mok_signing_key="$out/mok.key"
mok_certificate="$out/mok.pub"
CONF
mount --bind "$out/etc/dkms" /etc/dkms
check $? -eq 0 "a private /etc/dkms"
for k in "$old" "$new"; do
	mkdir -p "$out/lib/$k"
	for f in "/lib/modules/$k"/modules.* "/lib/modules/$k"/build "/lib/modules/$k"/source; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		cp -a "$f" "$out/lib/$k/"
	done
	mount --bind "$out/lib/$k" "/lib/modules/$k"
	check $? -eq 0 "/lib/modules/$k: its index files alone, private"
done

dkms add -m lwprof -v "$version" >"$out/dkms.log" 2>&1
check $? -eq 0 "dkms add lwprof/$version"
t0=$(date +%s)
dkms install -m lwprof -v "$version" -k "$old" >>"$out/dkms.log" 2>&1
check $? -eq 0 "before the upgrade: dkms install -k $old ($(($(date +%s) - t0)) s)"
check "$(dkms status lwprof/"$version" -k "$new" | grep -c -F "$new")" -eq 0 "nothing for $new yet"

t0=$(date +%s)
"$hook" "$new" >"$out/hook.log" 2>&1
check $? -eq 0 "the kernel's hook: $hook $new ($(($(date +%s) - t0)) s)"
check "$(dkms status lwprof/"$version" -k "$new")" = "lwprof/$version, $new, x86_64: installed" \
	"DKMS built and installed lwprof for $new"
check "$(dkms status lwprof/"$version" -k "$old")" = "lwprof/$version, $old, x86_64: installed" \
	"and kept $old's"
ko=$(modinfo -k "$new" -n lwprof 2>/dev/null)
check "${ko%.ko*}" = "/lib/modules/$new/updates/dkms/lwprof" "modinfo -k $new finds it (depmod indexed it: $ko)"
check "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$new" "built for $new"
mine=build/kmod/$new/lwprof.ko
[ -f "$mine" ] && check "$(modinfo -F srcversion "$ko")" = "$(modinfo -F srcversion "$mine")" \
	"the same sources as $mine, which the $new guest loads"
check_mok_signed "$ko" "$out/mok.pub" "/lib/modules/$new/build"
[ $t_failed -eq 0 ] || tail -n 30 "$out/hook.log"
done_testing
