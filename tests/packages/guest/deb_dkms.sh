#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/test-packages: the Debian packages in the guest (built by
# host/pkg_deb), the slow way: dpkg -i
# lwprof-dkms and lwprof runs dkms add, build and install for the running
# kernel; the module DKMS built loads, is signed with DKMS's MOK key,
# makes /dev/lwprof 0666, and the installed commands (an unprivileged
# ptime, collect and print) work with it; the man pages and completion
# are where man and bash find them; a new kernel's hook
# (/etc/kernel/postinst.d/dkms) installs the module again; dpkg -r
# removes all of it.
. "$(dirname "$0")/../../lib/test.sh"
. "$(dirname "$0")/../../lib/session.sh"
[ "$(id -u)" = 0 ] || skip "needs root (dpkg, modprobe)"
cd "$LWPROF_TOP" || exit 1
. tests/lib/pkg.sh

version=$pkg_version
modversion=$pkg_modversion
tool=$LWPROF_OUT/deb/lwprof_${version}_amd64.deb
dkmsdeb=$LWPROF_OUT/deb/lwprof-dkms_${version}_all.deb
[ -f "$tool" ] && [ -f "$dkmsdeb" ] ||
	skip "no packages in $LWPROF_OUT/deb: run scripts/test-packages (host/pkg_deb builds them)"
kver=$(uname -r)
[ -e "/lib/modules/$kver/build/include" ] || skip "no kernel headers for $kver"
command -v dkms >/dev/null || skip "dkms not installed (scripts/deps.sh)"

pkg_guest_prepare 'dpkg -P lwprof lwprof-dkms'

# dpkg -i: the postinst runs DKMS (add, build, sign, install).
t0=$(date +%s)
dpkg -i "$dkmsdeb" "$tool" >"$tmp/dpkg.log" 2>&1
rc=$?
check $rc -eq 0 "dpkg -i lwprof-dkms lwprof ($(($(date +%s) - t0)) s, DKMS's build included)"
[ $rc -eq 0 ] || { tail -n 30 "$tmp/dpkg.log"; cat /var/lib/dkms/lwprof/*/build/make.log 2>/dev/null | tail -n 20; exit 1; }
for p in lwprof lwprof-dkms; do
	check "$(dpkg-query -W -f='${Status} ${Version}' $p)" = "install ok installed $version" "$p $version installed"
done
status=$(dkms status lwprof/"$version" -k "$kver")
check "$status" = "lwprof/$version, $kver, $(uname -m): installed" "dkms status: installed for $kver"

ko=$(modinfo -n lwprof 2>/dev/null)
check "${ko%.ko*}" = "/lib/modules/$kver/updates/dkms/lwprof" "modinfo finds DKMS's module ($ko)"
check "$(modinfo -F version lwprof)" = "$modversion" "its version is kmod's ($modversion)"
check "$(modinfo -F vermagic lwprof | cut -d' ' -f1)" = "$kver" "built for the running kernel"

# DKMS signed it with the MOK key it made (docs/guide/install.md).
check_mok_signed lwprof /var/lib/dkms/mok.pub "/lib/modules/$kver/build"

modprobe lwprof
check $? -eq 0 "modprobe lwprof"
check "$(stat -c '%F %a' /dev/lwprof 2>&1)" = "character special file 666" "/dev/lwprof is a 0666 character device"

check_installed_tools "$tmp"

# A kernel upgrade: the kernel's postinst hook runs dkms autoinstall,
# which installs the module (AUTOINSTALL="yes") where it is missing.
rmmod lwprof
dkms uninstall lwprof/"$version" -k "$kver" >"$tmp/dkms.log" 2>&1
check "$(dkms status lwprof/"$version" -k "$kver")" = "lwprof/$version, $kver, $(uname -m): built" "dkms uninstall: built, not installed"
check "$(modinfo -n lwprof 2>/dev/null)" = "" "no lwprof module for $kver"
/etc/kernel/postinst.d/dkms "$kver" >>"$tmp/dkms.log" 2>&1
check $? -eq 0 "/etc/kernel/postinst.d/dkms $kver"
check "$(dkms status lwprof/"$version" -k "$kver")" = "lwprof/$version, $kver, $(uname -m): installed" "the kernel hook installed lwprof again"
modprobe lwprof && /usr/bin/lwprof version >/dev/null
check $? -eq 0 "and it loads and answers"
rmmod lwprof

# dpkg -r: dkms remove, and nothing of lwprof left.
dpkg -r lwprof lwprof-dkms >"$tmp/dpkg.log" 2>&1
check $? -eq 0 "dpkg -r lwprof lwprof-dkms"
check "$(dkms status lwprof)" = "" "dkms knows no lwprof"
check "$(modinfo -n lwprof 2>/dev/null)" = "" "no lwprof module left for $kver"
check ! -e "/usr/src/lwprof-$version" "/usr/src/lwprof-$version removed"
check ! -e /usr/bin/lwprof "/usr/bin/lwprof removed"
done_testing
