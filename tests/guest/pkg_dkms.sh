#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packages in the guest, fast: dkms install puts the module that
# host/pkg_dkms built with DKMS (no compiling in the guest: that is
# scripts/test-packages, minutes under TCG) into the running kernel's
# updates/dkms; modprobe loads it and makes /dev/lwprof 0666; dpkg -i of
# host/pkg_deb's lwprof package gives commands that work with it as an
# unprivileged user (ptime, collect, print through /usr/libexec), man
# pages man finds and a completion bash-completion loads; dkms uninstall
# and dpkg -r take it all away again.  The kernel's module tree holds
# only its index files meanwhile (pkg_guest_index_tree): depmod over the
# kernel's own 4023 modules is Debian's work, not the package's.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
[ "$(id -u)" = 0 ] || skip "needs root (dkms install, dpkg, modprobe)"
cd "$LWPROF_TOP" || exit 1
. tests/lib/pkg.sh
command -v dkms >/dev/null || skip "dkms not installed (scripts/deps.sh)"

version=$pkg_version
kver=$(uname -r)
# host/pkg_deb's and host/pkg_dkms's results: in the matrix's guests the
# main run's (read through the overlay, so what DKMS writes stays here).
out=${LWPROF_PKG_OUT:-$LWPROF_OUT}/dkms
tool=${LWPROF_PKG_OUT:-$LWPROF_OUT}/deb/lwprof_${version}_amd64.deb
dk=(--sourcetree "$out/root/usr/src" --dkmstree "$out/tree")
compgen -G "$out/tree/lwprof/$version/$kver/x86_64/module/lwprof.ko*" >/dev/null ||
	skip "no DKMS build for $kver in $out: host/pkg_dkms makes it (tests/run runs it first)"
[ -f "$tool" ] || skip "no $tool: host/pkg_deb builds it"
pkg_guest_prepare 'dkms uninstall "${dk[@]}" -m lwprof -v "$version" -k "$kver"; dpkg -P lwprof'
pkg_guest_index_tree
check $? -eq 0 "the module tree of $kver: its index files alone"

check "$(dkms status "${dk[@]}" lwprof/"$version" -k "$kver")" = "lwprof/$version, $kver, x86_64: built" \
	"host/pkg_dkms's build is there for $kver"
t0=$(date +%s)
dkms install "${dk[@]}" -m lwprof -v "$version" -k "$kver" >"$tmp/dkms.log" 2>&1
rc=$?
check $rc -eq 0 "dkms install lwprof/$version -k $kver ($(($(date +%s) - t0)) s)"
[ $rc -eq 0 ] || { tail -n 20 "$tmp/dkms.log"; exit 1; }
check "$(dkms status "${dk[@]}" lwprof/"$version" -k "$kver")" = "lwprof/$version, $kver, x86_64: installed" \
	"dkms status: installed"
ko=$(modinfo -n lwprof 2>/dev/null)
check "${ko%.ko*}" = "/lib/modules/$kver/updates/dkms/lwprof" "modinfo finds DKMS's module ($ko)"
modprobe lwprof
check $? -eq 0 "modprobe lwprof"
check "$(stat -c '%F %a' /dev/lwprof 2>&1)" = "character special file 666" "/dev/lwprof is a 0666 character device"

t0=$(date +%s)
dpkg -i "$tool" >"$tmp/dpkg.log" 2>&1
check $? -eq 0 "dpkg -i lwprof_${version}_amd64.deb ($(($(date +%s) - t0)) s)"
check "$(dpkg-query -W -f='${Status} ${Version}' lwprof 2>&1)" = "install ok installed $version" "lwprof $version installed"
check_installed_tools "$tmp"

rmmod_lwprof
t0=$(date +%s)
dkms uninstall "${dk[@]}" -m lwprof -v "$version" -k "$kver" >>"$tmp/dkms.log" 2>&1
check $? -eq 0 "dkms uninstall ($(($(date +%s) - t0)) s)"
check "$(modinfo -n lwprof 2>/dev/null)" = "" "no lwprof module left for $kver"
t0=$(date +%s)
dpkg -r lwprof >"$tmp/dpkg.log" 2>&1
check $? -eq 0 "dpkg -r lwprof ($(($(date +%s) - t0)) s)"
check ! -e /usr/bin/lwprof "/usr/bin/lwprof removed"
check ! -e /usr/share/man/man1/lwprof.1.gz "its man pages removed"
done_testing
