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
	"qemu-system-x86:/usr/bin/qemu-system-x86_64"
	"busybox-static:/bin/busybox"
	"cpio:/usr/bin/cpio"
	"liburing-dev:/usr/include/liburing.h"
	"libelf-dev:/usr/include/libelf.h"
	"libdw-dev:/usr/include/elfutils/libdwfl.h"
	# The tracing library walks heap calls' stacks itself.
	"libunwind-dev:/usr/include/x86_64-linux-gnu/libunwind.h"
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
	# OpenMP (tests/host/omp_*): clang -fopenmp and LLVM's libomp (OMPT)
	"clang:/usr/bin/clang"
	"libomp-14-dev:/usr/lib/llvm-14/lib/libomp.so"
	# MPI tracing (collect -M): both implementations, for the wrapper
	# library built per implementation and the host/mpi_* tests; their
	# explicit compiler wrappers (both install mpicc alternatives).
	"openmpi-bin:/usr/bin/mpirun.openmpi"
	"libopenmpi-dev:/usr/bin/mpicc.openmpi"
	"mpich:/usr/bin/mpiexec.hydra"
	"libmpich-dev:/usr/bin/mpicc.mpich"
	"gfortran:/usr/bin/gfortran"
)

# Java: the JVMTI agent's headers (jvmti.h), javac and java for the Java
# tests and benchmark (collect -j, docs/guide/java.md).
pkgs+=("openjdk-17-jdk-headless:/usr/lib/jvm/java-17-openjdk-amd64/include/jvmti.h")

# The kernels of scripts/kernels: each one's headers (the module is built
# for every one) and image (every one boots, in the guest or from an
# initramfs alone).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/lib/kernels.sh"
for k in $(kernels_of guest matrix build); do
	pkgs+=("linux-headers-$k:/lib/modules/$k/build/Makefile")
done
for k in $(kernels_of guest matrix build); do
	pkgs+=("linux-image-$k:/boot/vmlinuz-$k")
done

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

# Every kernel of scripts/kernels is here, whatever else is installed
# (which kernel is tested is never "the newest": see scripts/kernels).
bad=0
for k in $(kernels_of guest matrix build); do
	[ -e "/lib/modules/$k/build/Makefile" ] ||
		{ echo "deps.sh: no headers for $k (linux-headers-$k)" >&2; bad=1; }
done
for k in $(kernels_of guest matrix build); do
	[ -r "/boot/vmlinuz-$k" ] ||
		{ echo "deps.sh: no readable /boot/vmlinuz-$k (linux-image-$k)" >&2; bad=1; }
done
[ $bad = 0 ] || exit 1
echo "deps.sh: ready (guest kernel $(kernels_of guest); matrix $(kernels_of matrix | xargs);" \
	"built for $(kernels_of build | xargs))"
