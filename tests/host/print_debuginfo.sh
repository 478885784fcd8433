#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Separate debug files.  seed_example (its prebuilt copy) is
# copied twice: as built (-g, with .symtab) and stripped (strip -s: no
# symbols, no DWARF), its debug part split off with objcopy
# --only-keep-debug and put where a Debian -dbgsym package puts it,
# ROOT/.build-id/NN/REST.debug, under a temporary ROOT.  The same samples
# (addresses in G <- F <- C <- A <- main and E <- C <- A <- main) against
# each copy.  Ground truth: the unstripped copy's functions and lines.
# - Stripped, no debug file: every function is <static>@0xADDR
#   (seed_example), naming its object, as Oracle's tools do.
# - Stripped, with LWPROF_DEBUGINFO_PATH=ROOT (the test hook standing for
#   /usr/lib/debug): -functions, -lines and -calltree exactly as with the
#   unstripped copy.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

# The prebuilt copy: the test build of seed_example exports its
# functions (-rdynamic, for its own CPU-time report), which no strip takes
# out of .dynsym.
bin=$LWPROF_TOP/tests/data/seed_example.bin
mkdir -p "$PRINT_OUT/full" "$PRINT_OUT/stripped"
full=$PRINT_OUT/full/seed_example stripped=$PRINT_OUT/stripped/seed_example
cp "$bin" "$full"
strip -s -o "$stripped" "$bin" || { echo "FAIL: strip"; exit 1; }
id=$(readelf -n "$bin" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
check ${#id} -ge 16 "seed_example has a build-id ($id)"
root=$PRINT_OUT/root
mkdir -p "$root/.build-id/${id:0:2}"
objcopy --only-keep-debug "$bin" "$root/.build-id/${id:0:2}/${id:2}.debug" ||
	{ echo "FAIL: objcopy --only-keep-debug"; exit 1; }
check "$(nm "$stripped" 2>&1 | grep -c ' [Tt] ')" -eq 0 "the stripped copy has no symbols"

base=0x555555554000
fn() { nm "$bin" | awk -v n="$1" '$3 == n { print $1 }'; }
# the address after the first call to $1 (a return address)
ret() {
	objdump -d --no-show-raw-insn "$bin" |
		awk -v n="<$1>" '$NF == n && /call/ { f = 1; next } f { sub(":", "", $1); print $1; exit }'
}
a() { printf '0x%x' $((base + 0x$1 + ${2:-0})); }
g_stack=$(a "$(fn G)" 16),$(a "$(ret G)"),$(a "$(ret F)"),$(a "$(ret C)"),$(a "$(ret A)")
e_stack=$(a "$(fn E)" 8),$(a "$(ret E)"),$(a "$(ret C)"),$(a "$(ret A)")
check "$(tr -cd , <<<"$g_stack$e_stack")" = ",,,,,,," "both stacks found ($g_stack; $e_stack)"
mk() {
	gen_exp "$1" - <<EOF
binary seed $2
map 80 seed $base
task start 80 80 1 seed
sample pid=80 tid=80 t=0 n=3 ms=user:10000000 stack=$g_stack
sample pid=80 tid=80 t=100000000 n=2 ms=user:10000000 stack=$e_stack
usage auto
EOF
}
ef=$(mk full "$full") es=$(mk stripped "$stripped")
view() { "$LWPROF" print -printmode csv -metrics e.user:i.user:name "$@"; }

f=$(view -functions "$es")
echo "$f"
check "$(sed '1,2d' <<<"$f" | grep -vcE '^[0-9.]+,[0-9.]+,<static>@0x[0-9a-f]+ \(seed_example\)$')" -eq 0 \
	"no debug file: all code is <static>@0xADDR (seed_example)"

for v in -functions -lines -calltree; do
	want=$(view $v "$ef")
	got=$(LWPROF_DEBUGINFO_PATH=$root view $v "$es")
	check "$got" = "$want" "$v: the debug file's names and lines, as unstripped"
done
check "$(csv_field "$(view -functions "$ef")" G 1)" = 0.030 "(G: its 3 samples, by the unstripped copy)"
lines=$(LWPROF_DEBUGINFO_PATH=$root view -lines "$es")
check "$(grep -c 'line [0-9]* in ".*seed_example.c"' <<<"$lines")" -ge 2 "lines from the debug file's DWARF"
done_testing
