#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install what building and testing lwprof needs on Debian 12.
# Idempotent: when everything is present it only checks, in about a second.
# Run as root (or through sudo).
#
#   scripts/deps.sh            build + test dependencies
#   scripts/deps.sh --no-lint  skip checkpatch.pl (a 140 MB kernel source)
set -euo pipefail

lint=1
[ "${1:-}" = "--no-lint" ] && lint=0

# Package -> a file it installs, to decide quickly what is missing.
pkgs=(
	"build-essential:/usr/bin/gcc"
	"make:/usr/bin/make"
	"pkg-config:/usr/bin/pkg-config"
	"kmod:/usr/sbin/modinfo"
	"linux-image-amd64:/boot/vmlinuz-*-amd64"
	"linux-headers-amd64:/lib/modules/*-amd64/build/Makefile"
	"qemu-system-x86:/usr/bin/qemu-system-x86_64"
	"busybox-static:/bin/busybox"
	"cpio:/usr/bin/cpio"
	"liburing-dev:/usr/include/liburing.h"
	"libelf-dev:/usr/include/libelf.h"
	"libdw-dev:/usr/include/elfutils/libdwfl.h"
	"libcapstone-dev:/usr/include/capstone/capstone.h"
	"zlib1g-dev:/usr/include/zlib.h"
	"protobuf-compiler:/usr/bin/protoc"
	"golang-github-google-pprof-dev:/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto"
	"golang-go:/usr/bin/go"
	"linux-perf:/usr/bin/perf"
	"binutils:/usr/bin/gprofng"
	"heaptrack:/usr/bin/heaptrack"
	"valgrind:/usr/bin/valgrind"
	"procps:/usr/bin/ps"
	"util-linux:/usr/bin/setpriv"
	"chromium:/usr/bin/chromium"
	# Man pages (host/man_pages), bash completion (host/completion).
	"man-db:/usr/bin/man"
	"groff-base:/usr/bin/groff"
	"bsdextrautils:/usr/bin/col"
	"bash-completion:/usr/share/bash-completion/bash_completion"
	# The Debian packages (make deb, host/pkg_deb) and DKMS (guest/pkg_install).
	"dpkg-dev:/usr/bin/dpkg-buildpackage"
	"debhelper:/usr/bin/dh"
	"dh-dkms:/usr/bin/dh_dkms"
	"dkms:/usr/sbin/dkms"
	"fakeroot:/usr/bin/fakeroot"
	"openssl:/usr/bin/openssl"
)

missing=()
for entry in "${pkgs[@]}"; do
	pkg=${entry%%:*}
	file=${entry#*:}
	# shellcheck disable=SC2086
	compgen -G "$file" >/dev/null || missing+=("$pkg")
done

checkpatch_dir=/usr/local/share/lwprof/checkpatch
[ $lint = 1 ] && [ ! -x $checkpatch_dir/checkpatch.pl ] && need_lint=1 || need_lint=0
[ $need_lint = 1 ] && missing+=(linux-source-6.1)

if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "deps.sh: installing ${missing[*]}"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends "${missing[@]}"
fi

# checkpatch.pl (and the two data files it reads) from Debian's kernel source.
if [ $need_lint = 1 ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
	tmp=$(mktemp -d)
	tar -C "$tmp" -xf "$tarball" --wildcards --strip-components=2 \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	${sudo:-} mkdir -p $checkpatch_dir
	${sudo:-} cp "$tmp"/* $checkpatch_dir/
	rm -rf "$tmp"
fi

# The module is built against the newest headers and the guest boots the
# newest kernel: they must be the same release.
kimg=$(cd /boot && ls vmlinuz-*-amd64 | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
khdr=$(cd /lib/modules && ls -d *-amd64/build | sed 's|/build$||' | sort -V | tail -n 1)
if [ "$kimg" != "$khdr" ]; then
	echo "deps.sh: newest kernel image $kimg but newest headers $khdr;" \
		"install linux-headers-$kimg" >&2
	exit 1
fi
echo "deps.sh: ready (guest kernel $kimg)"
