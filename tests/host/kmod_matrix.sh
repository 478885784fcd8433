#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The build matrix: lwprof.ko builds with no warning against every
# installed kernel's headers (scripts/build-kmod, as make modules-all),
# each in its own build/kmod/RELEASE/, for that release (vermagic), and
# every kernel scripts/kernels names is among them; the module make
# builds for KDIR never stops the tools' build (a KDIR that cannot build
# it: make still builds the tools and says so).
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
top=$LWPROF_TOP
. scripts/lib/kernels.sh

for k in $(kernels_of guest matrix build); do
	check -e "/lib/modules/$k/build/Makefile" "headers of $k (scripts/kernels) installed"
done
out=$(scripts/build-kmod 2>&1)
check $? -eq 0 "scripts/build-kmod: every installed kernel builds cleanly"
n=0
for d in /lib/modules/*/build; do
	[ -e "$d/Makefile" ] || continue
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$d/include/generated/utsrelease.h")
	n=$((n + 1))
	line=$(grep -F "$rel: " <<<"$out")
	check "$line" = "$rel: ok" "$rel: $line"
	log=build/kmod/$rel/build.log
	check "$(grep -ci warning "$log" 2>/dev/null)" -eq 0 "$rel: no warning in $log"
	check "$(modinfo -F vermagic "build/kmod/$rel/lwprof.ko" 2>/dev/null | cut -d' ' -f1)" = "$rel" \
		"build/kmod/$rel/lwprof.ko is built for $rel"
done
check $n -ge "$(kernels_of guest matrix build | wc -l)" "$n kernels built"

# A KDIR the module does not build against (a tree whose headers break
# it, here one with no headers at all): the tools and tests still build.
bad=$(mktemp -d)
mkdir -p "$bad/include/generated"
echo '#define UTS_RELEASE "0.0.0-lwprof-test"' >"$bad/include/generated/utsrelease.h"
: >"$bad/Makefile"
err=$(make -s --no-print-directory KDIR="$bad" kmod tools 2>&1)
check $? -eq 0 "make kmod tools with a KDIR that cannot build the module: exit 0"
grep -q "lwprof.ko did not build for $bad; the tools did" <<<"$err"
check $? -eq 0 "and says the module did not build"
check ! -e lwprof.ko.tmp "no half-copied module"
make -s --no-print-directory module KDIR="$bad" >/dev/null 2>&1
check $? -ne 0 "make module with that KDIR fails"
rm -rf "$bad" build/kmod/0.0.0-lwprof-test
# Put back make's lwprof.ko (the bad KDIR's build removed it).
make -s --no-print-directory kmod >/dev/null 2>&1
check -f lwprof.ko "make's lwprof.ko built again for the default KDIR"
done_testing
