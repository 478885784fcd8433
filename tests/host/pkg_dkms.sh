#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS builds lwprof.ko from what make install-dkms installs: dkms add and
# dkms build (private source and DKMS trees under $LWPROF_OUT/dkms, and a
# private MOK key: nothing of the host's DKMS is touched) for each kernel
# a guest boots (scripts/kernels: the test guest's and the matrix's);
# each module is built for its kernel, from the tree's sources (the same
# srcversion as make's build for it), and signed with the MOK key DKMS
# made.  guest/pkg_dkms installs and loads these builds, on each kernel.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
. tests/lib/pkg.sh
command -v dkms >/dev/null || skip "dkms not installed (scripts/deps.sh)"
top=$LWPROF_TOP
. scripts/lib/kernels.sh
kvers=()
for k in $(kernels_of guest matrix); do
	[ -e "/lib/modules/$k/build/Makefile" ] && kvers+=("$k")
done
[ ${#kvers[@]} -gt 0 ] || skip "no headers of scripts/kernels' guest kernels (scripts/deps.sh)"

version=$pkg_version
modversion=$pkg_modversion
out=$LWPROF_OUT/dkms
rm -rf "$out"
mkdir -p "$out/tree"
make -s --no-print-directory install-dkms DESTDIR="$out/root"
check $? -eq 0 "make install-dkms DESTDIR=$out/root"
src=$out/root/usr/src
dk=(--sourcetree "$src" --dkmstree "$out/tree")
# DKMS reads its key's paths from the environment when framework.conf
# does not set them; it makes the key when it is missing.
export mok_signing_key=$out/mok.key mok_certificate=$out/mok.pub

dkms add "${dk[@]}" -m lwprof -v "$version" >"$out/add.log" 2>&1
check $? -eq 0 "dkms add lwprof/$version"
for kver in "${kvers[@]}"; do
	t0=$(date +%s)
	dkms build "${dk[@]}" -m lwprof -v "$version" -k "$kver" >"$out/build-$kver.log" 2>&1
	rc=$?
	check $rc -eq 0 "dkms build lwprof/$version -k $kver ($(($(date +%s) - t0)) s)"
	[ $rc -eq 0 ] || { tail -n 20 "$out/build-$kver.log"; tail -n 30 "$out/tree/lwprof/$version/build/make.log"; continue; }
	check "$(dkms status "${dk[@]}" lwprof/"$version" -k "$kver")" = "lwprof/$version, $kver, x86_64: built" \
		"dkms status: built for $kver"

	# Compressed as the kernel's own modules are (6.12: xz).
	ko=$(ls "$out/tree/lwprof/$version/$kver/x86_64/module/lwprof.ko"* 2>/dev/null | head -n 1)
	check -f "$ko" "the module is in DKMS's tree (${ko##*/})"
	check "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" "built for $kver"
	check "$(modinfo -F version "$ko")" = "$modversion" "version $modversion"
	mine=build/kmod/$kver/lwprof.ko
	if [ -f "$mine" ]; then
		check "$(modinfo -F srcversion "$ko")" = "$(modinfo -F srcversion "$mine")" \
			"the same sources as make's $mine (srcversion)"
	fi
	check -f "$out/mok.pub" "DKMS made a MOK key pair"
	check_mok_signed "$ko" "$out/mok.pub" "/lib/modules/$kver/build"
done
done_testing
