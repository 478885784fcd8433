#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages: scripts/build-deb (dpkg-buildpackage on debian/)
# makes lwprof and lwprof-dkms at lwprof's version; lwprof holds the
# command, the analyzer where lwprof print finds it, every man page and
# the completion, and runs from the package's tree; lwprof-dkms holds
# exactly the module's source and a dkms.conf with the version put in,
# and runs DKMS at install and removal.  The packages stay in
# $LWPROF_OUT/deb for guest/pkg_install, which installs them.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null ||
	skip "dpkg-dev, debhelper and dh-dkms needed (scripts/deps.sh)"

out=$LWPROF_OUT/deb
version=$(make -s --no-print-directory print-version)
check "$version" = "$(sed -n 's/^#define LWPROF_VERSION "\(.*\)"/\1/p' userspace/cmd/cmds.h)" \
	"make print-version is lwprof's version ($version)"
check "$(dpkg-parsechangelog -l debian/changelog -S Version)" = "$version" \
	"debian/changelog's version is lwprof's"

t0=$(date +%s)
debs=$(scripts/build-deb -o "$out")
check $? -eq 0 "scripts/build-deb built the packages in $(($(date +%s) - t0)) s"
tool=$out/lwprof_${version}_amd64.deb
dkmsdeb=$out/lwprof-dkms_${version}_all.deb
check -f "$tool" "lwprof_${version}_amd64.deb made"
check -f "$dkmsdeb" "lwprof-dkms_${version}_all.deb made"
check -f "$out/lwprof_${version}.dsc" "the source package lwprof_${version}.dsc made"
[ -f "$tool" ] && [ -f "$dkmsdeb" ] || done_testing
echo "$debs" | sed 's/^/# /'

field() { dpkg-deb -f "$1" "$2"; }
check "$(field "$tool" Package) $(field "$tool" Version)" = "lwprof $version" "lwprof's name and version"
check "$(field "$dkmsdeb" Package) $(field "$dkmsdeb" Version)" = "lwprof-dkms $version" "lwprof-dkms's name and version"
for lib in libdw1 libelf1 libcapstone4 liburing2 libc6; do
	field "$tool" Depends | grep -q "\<$lib\>" || check 0 = 1 "lwprof depends on $lib"
done
field "$dkmsdeb" Depends | grep -q '^dkms\b' || check 0 = 1 "lwprof-dkms depends on dkms"
check "$(field "$dkmsdeb" Architecture)" = all "lwprof-dkms is Architecture: all"

# lwprof's files: exactly these.
contents() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $1, $6 }' | sed 's| \./| /|' | sort; }
want=$( {
	echo "-rwxr-xr-x /usr/bin/lwprof"
	echo "-rwxr-xr-x /usr/libexec/lwprof/lwprof-print"
	echo "-rwxr-xr-x /usr/libexec/lwprof/liblwprof_trace.so"
	# the MPI wrappers and the JVMTI agent, where their toolchains are
	for l in $(make -s --no-print-directory -C "$LWPROF_TOP" print-optional-libs); do
		echo "-rwxr-xr-x /usr/libexec/lwprof/$l"
	done
	echo "-rw-r--r-- /usr/lib/liblwprof_collector.so"
	echo "-rw-r--r-- /usr/include/lwprof/collector.h"
	echo "-rw-r--r-- /usr/share/bash-completion/completions/lwprof"
	for p in man/*.1; do echo "-rw-r--r-- /usr/share/man/man1/$(basename "$p").gz"; done
	for d in changelog.gz copyright; do
		echo "-rw-r--r-- /usr/share/doc/lwprof/$d"
	done
	# dh_compress leaves a document of 4 KiB or less as it is
	for d in README.md docs/guide/install.md; do
		n=$(basename "$d")
		[ "$(stat -c %s "$LWPROF_TOP/$d")" -gt 4096 ] && n=$n.gz
		echo "-rw-r--r-- /usr/share/doc/lwprof/$n"
	done
} | sort)
check "$(contents "$tool")" = "$want" "lwprof holds the command, analyzer, tracing and collector libraries, man pages, completion, docs"
diff <(echo "$want") <(contents "$tool") | sed 's/^/# /'

# lwprof-dkms: the module's source, file for file the tree's.
src=/usr/src/lwprof-$version
want=$( {
	echo "$src/Kbuild"
	echo "$src/dkms.conf"
	for f in kmod/*.c kmod/*.h uapi/*.h; do echo "$src/$f"; done
	echo /usr/share/doc/lwprof-dkms/changelog.gz
	echo /usr/share/doc/lwprof-dkms/copyright
} | sort)
check "$(contents "$dkmsdeb" | cut -d' ' -f2)" = "$want" "lwprof-dkms holds Kbuild, kmod/, uapi/, dkms.conf"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$dkmsdeb" "$tmp/dkms"
dpkg-deb -x "$tool" "$tmp/tool"
same=0 n=0
for f in Kbuild kmod/*.c kmod/*.h uapi/*.h; do
	n=$((n + 1))
	cmp -s "$f" "$tmp/dkms$src/$f" && same=$((same + 1))
done
check $same -eq $n "the packaged source is the tree's ($same of $n files the same)"
check "$(grep -c '#MODULE_VERSION#' "$tmp/dkms$src/dkms.conf")" -eq 0 "dkms.conf has its version put in"
# dkms sources dkms.conf: read it as dkms does.
conf=$(bash -c 'kernel_source_dir=/K dkms_tree=/T; . "$1"; echo "$PACKAGE_NAME $PACKAGE_VERSION ${BUILT_MODULE_NAME[0]} $AUTOINSTALL $MAKE"' _ "$tmp/dkms$src/dkms.conf")
check "$conf" = "lwprof $version lwprof yes make -C /K M=/T/lwprof/$version/build modules" \
	"dkms.conf: name, version, module, AUTOINSTALL, the kernel's build ($conf)"
for k in 6.1.0-56-amd64:1 6.12.3-amd64:1 7.0.0:1 5.10.0-30-amd64:0 6.0.12:0; do
	kv=${k%:*} ok=${k#*:}
	bash -c '. "$1"; [[ $2 =~ $BUILD_EXCLUSIVE_KERNEL ]]' _ "$tmp/dkms$src/dkms.conf" "$kv"
	check $(($? == 0)) -eq "$ok" "BUILD_EXCLUSIVE_KERNEL: $kv $([ "$ok" = 1 ] && echo builds || echo is skipped)"
done
dpkg-deb -e "$dkmsdeb" "$tmp/ctl"
grep -q '/usr/lib/dkms/common.postinst' "$tmp/ctl/postinst" &&
grep -q '$DKMS_POSTINST $DKMS_NAME $DKMS_VERSION' "$tmp/ctl/postinst" ||
	check 0 = 1 "lwprof-dkms's postinst runs DKMS's common.postinst (add, build, install)"
grep -q 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all' "$tmp/ctl/prerm" ||
	check 0 = 1 "lwprof-dkms's prerm runs dkms remove"
grep -q "^DKMS_VERSION=$version\$" "$tmp/ctl/postinst" || check 0 = 1 "postinst's DKMS_VERSION is $version"

# The packaged command runs from its tree, and lwprof print finds the
# analyzer in ../libexec/lwprof/.
check "$("$tmp/tool/usr/bin/lwprof" version 2>/dev/null | head -n 1 | cut -d' ' -f1-2)" = "lwprof $version" \
	"the packaged lwprof says its version"
"$tmp/tool/usr/bin/lwprof" print -help >"$tmp/help" 2>&1
check $? -eq 0 "the packaged lwprof print runs the packaged lwprof-print"
grep -q -- '-functions\|functions ' "$tmp/help" || check 0 = 1 "lwprof print -help lists functions"
# collect -H (tracing needs no module) preloads the packaged library
# from ../libexec/lwprof/.
"$tmp/tool/usr/bin/lwprof" collect -p off -H on -o "$tmp/heap.er" true 2>"$tmp/collect.log"
check $? -eq 0 "the packaged lwprof collect -p off -H on true ($(tail -n 1 "$tmp/collect.log"))"
lib=$(sed -n 's/^trace_library = //p' "$tmp/heap.er/log.txt" 2>/dev/null)
check "$(realpath -m "$lib")" = "$(realpath "$tmp/tool/usr/libexec/lwprof/liblwprof_trace.so")" \
	"it traced with the packaged library ($lib)"
check "$(sed -n 's/^trace_files = //p' "$tmp/heap.er/log.txt" 2>/dev/null)" = 1 "one process traced"
for p in "$tmp"/tool/usr/share/man/man1/*.1.gz; do
	check "$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)" = "" "$(basename "$p") from the package renders silently"
done
done_testing
