#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Source lines of kernel frames from an installed debug image (Debian's
# linux-image-RELEASE-dbg: /usr/lib/debug/boot/vmlinux-RELEASE and
# lib/modules/RELEASE/kernel/.../NAME.ko there; LWPROF_KERNEL_DEBUG_DIR
# stands for /usr/lib/debug).  The image is tests/progs/kdbg_kernel (the
# core kernel) and kdbg_kernel.ko (module kd_mod's, as kd-mod.ko); the
# synthetic kallsyms moves the core kernel by a KASLR offset from the
# image's link addresses and places the module's functions in the
# opposite order.  Ground truth: the addresses of the lines marked
# "KD:leaf" and "KD:mid" in the source, from binutils' line table dump:
#   3 samples in the core kd_leaf at KD:leaf, called from kd_mid (KD:mid);
#   2 in the module's kd_leaf at KD:leaf, called from its kd_mid.
# Without the image (or for another release) nothing changes.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

src=tests/progs/kdbg_kernel.c
vmlinux=$LWPROF_BUILD/tests/progs/kdbg_kernel
ko=$LWPROF_BUILD/tests/progs/kdbg_kernel.ko
leaf=$(grep -n 'KD:leaf' "$LWPROF_TOP/$src" | cut -d: -f1)
mid=$(grep -n 'KD:mid' "$LWPROF_TOP/$src" | cut -d: -f1)
rel=6.1.0-gen		# gen_exp's log.txt "kernel ="
kaslr=$((0xffffffff8a000000 - 0x400000))
mbase=0xffffffffc0001000

# the first address of line $2 in ELF $1's line table (binutils)
line_addr() {
	objdump --dwarf=decodedline "$1" |
		awk -v l="$2" '$1 ~ /kdbg_kernel\.c$/ && $2 == l { print $3; exit }'
}
sym() { nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }'; }
hex() { printf '%x' "$1"; }

# core: kallsyms = link address + kaslr; the leaf pc exact, the caller's a
# return address (print looks up the byte before it)
c_leaf=$(hex $(($(line_addr "$vmlinux" "$leaf") + kaslr)))
c_ret=$(hex $(($(line_addr "$vmlinux" "$mid") + kaslr + 1)))
# the module: kd_mid at mbase, kd_leaf 0x800 above (the .ko has each in a
# section of its own, at 0: line addresses are offsets in the function)
m_leaf=$(hex $((mbase + 0x800 + $(line_addr "$ko" "$leaf"))))
m_ret=$(hex $((mbase + $(line_addr "$ko" "$mid") + 1)))

# $1: another build of the release (its functions 0x40 further from _text)
script() {
	local d=${1:-0}

	cat <<-EOS
	log kernel_stacks 1
	sample pid=601 tid=601 t=0 n=3 ms=system:10000000 flags=kmode kstack=$c_leaf,$c_ret
	sample pid=602 tid=602 t=0 n=2 ms=system:10000000 flags=kmode kstack=$m_leaf,$m_ret
	usage auto
	kallsyms $(hex $(($(sym "$vmlinux" _text) + kaslr))) T _text
	kallsyms $(hex $(($(sym "$vmlinux" kd_leaf) + kaslr + d))) T kd_leaf
	kallsyms $(hex $(($(sym "$vmlinux" kd_mid) + kaslr + d))) T kd_mid
	kallsyms $(hex $(($(sym "$vmlinux" main) + kaslr + d))) T main
	kallsyms $(hex $mbase) t kd_mid [kd_mod]
	kallsyms $(hex $((mbase + 0x800))) t kd_leaf [kd_mod]
	kmodule kd_mod 4096 $mbase
	EOS
}
exp=$(script | gen_exp kdebug -)
dbg=$PRINT_OUT/debug
mkdir -p "$dbg/boot" "$dbg/lib/modules/$rel/kernel/drivers/misc"
cp "$vmlinux" "$dbg/boot/vmlinux-$rel"
cp "$ko" "$dbg/lib/modules/$rel/kernel/drivers/misc/kd-mod.ko"

lines() {
	(cd "$LWPROF_TOP" && "$LWPROF" print -printmode csv -metrics e.total:i.total:name -lines "$exp")
}
l=$(LWPROF_KERNEL_DEBUG_DIR=$dbg lines)
echo "$l"
check "$(grep -F "kd_leaf, line $leaf in \"\"$src\"\"" <<<"$l" | cut -d, -f1 | sort | tr '\n' ' ')" \
	= "0.020 0.030 " "-lines: both kd_leaf on line $leaf (KD:leaf): the module's 2, the core's 3"
check "$(grep -F "kd_mid, line $mid in \"\"$src\"\"" <<<"$l" | cut -d, -f2 | sort | tr '\n' ' ')" \
	= "0.020 0.030 " "-lines: both callers kd_mid on line $mid (KD:mid), inclusive"
check "$(grep -c '<Function: kd_\|0x' <<<"$l")" = 0 "-lines: every kernel frame has its line"

# -source shows the file: both kd_leaf's samples are on its line
s=$(LWPROF_KERNEL_DEBUG_DIR=$dbg "$LWPROF" print -metrics e.total:name -source kd_leaf "$exp")
echo "$s"
grep -Eq "^ *0\.050 +## +$leaf\. .*KD:leaf" <<<"$s"
check $? -eq 0 "-source kd_leaf: the 0.05 s of both on line $leaf"
f=$(LWPROF_KERNEL_DEBUG_DIR=$dbg "$LWPROF" print -fsingle kd_mid "$exp")
check "$(sed -n 's/^ *Source File: //p' <<<"$f")" = "$src" "-fsingle kd_mid: its source file"

# only the core kernel's image: the module's frames have no lines
rm "$dbg/lib/modules/$rel/kernel/drivers/misc/kd-mod.ko"
l=$(LWPROF_KERNEL_DEBUG_DIR=$dbg lines)
check "$(grep -F "kd_leaf, line $leaf in" <<<"$l" | cut -d, -f1)" = 0.030 \
	"no kd-mod.ko: only the core kernel's kd_leaf has a line"

# no image for this release (the machine's /usr/lib/debug is another's)
base=$(LWPROF_KERNEL_DEBUG_DIR=$PRINT_OUT/none lines)
mv "$dbg/boot/vmlinux-$rel" "$dbg/boot/vmlinux-6.1.0-other"
check "$(LWPROF_KERNEL_DEBUG_DIR=$dbg lines)" = "$base" "another release's image is not used"
check "$(grep -c ', line [0-9]' <<<"$base")" = 0 "without an image no kernel frame has a line"

# another build of the release: its functions are elsewhere; warned, unused
mv "$dbg/boot/vmlinux-6.1.0-other" "$dbg/boot/vmlinux-$rel"
exp=$(script 0x40 | gen_exp kdebug_other -)
base=$(LWPROF_KERNEL_DEBUG_DIR=$PRINT_OUT/none lines)
err=$(LWPROF_KERNEL_DEBUG_DIR=$dbg "$LWPROF" print -lines "$exp" 2>&1 >/dev/null)
echo "$err"
check "$(grep -c "vmlinux-$rel is not the recorded kernel's" <<<"$err")" = 1 \
	"a vmlinux whose functions are not at kallsyms' addresses: said once"
check "$(LWPROF_KERNEL_DEBUG_DIR=$dbg lines 2>/dev/null)" = "$base" "and not used"
done_testing
