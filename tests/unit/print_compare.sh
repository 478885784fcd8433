#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof print -compare on|delta|ratio: er_print's worked example (seed.gen)
# against a copy where B does 10 units itself instead of 5 (37 units in
# all); and two builds of one program (the lines example built with DWARF
# 5 and 4: different build ids, one name), the second with half outer's
# time and 0.1 s in main itself, which the first has not.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

e1=$(gen_exp seed)
e2=$(sed 's/n=10 dt=500000000 ms=user:500000000 stack=B,main/n=20 dt=500000000 ms=user:500000000 stack=B,main/' \
	"$DATA/exp/seed.gen" | gen_exp seed2 -)
C() { "$LWPROF" print -printmode csv -metrics e.total:i.total:name "$@" -functions; }
row() { awk -F, -v r="$1" '$NF == r' <<<"$2"; }

o=$(C -compare on "$e1" "$e2")
check "$(head -n 1 <<<"$o")" = "seed.er Excl. Total Thread (sec.),seed2.er Excl. Total Thread (sec.),seed.er Incl. Total Thread (sec.),seed2.er Incl. Total Thread (sec.),Name" \
	"on: each metric's column once per experiment, named by it"
check "$(row '<Total>' "$o")" = "32.000,37.000,32.000,37.000,<Total>" "on: <Total> 32 and 37"
check "$(row B "$o")" = "5.000,10.000,20.000,25.000,B" "on: B excl 5 / 10, incl 20 / 25"
check "$(row C "$o")" = "5.000,5.000,25.000,25.000,C" "on: C the same in both"
check "$(sed -n 2,3p <<<"$o" | cut -d, -f5 | tr '\n' ' ')" = "<Total> E " "on: sorted by the base's first metric (E's 10 first)"

o=$(C -compare delta "$e1" "$e2")
check "$(head -n 1 <<<"$o" | cut -d, -f2)" = "seed2.er Excl. Total Thread (delta)" "delta: the comparison's unit is delta"
check "$(row '<Total>' "$o")" = "32.000,+5.000,32.000,+5.000,<Total>" "delta: <Total> +5"
check "$(row B "$o")" = "5.000,+5.000,20.000,+5.000,B" "delta: B +5 excl and incl"
check "$(row main "$o")" = "2.000,+0.000,32.000,+5.000,main" "delta: main +0 excl, +5 incl"
check "$(row A "$o")" = "0.000,+0.000,10.000,+0.000,A" "delta: A unchanged"

o=$(C -compare ratio "$e1" "$e2")
check "$(row B "$o")" = "5.000,x2.000,20.000,x1.250,B" "ratio: B x2 excl, x1.25 incl"
check "$(row A "$o")" = "0.000,x1.000,10.000,x1.000,A" "ratio: A's zero excl in both is x1.000"
check "$(row '<Total>' "$o")" = "32.000,x1.156,32.000,x1.156,<Total>" "ratio: <Total> 37/32"
o=$(C -compare ratio "$e2" "$e1")
check "$(row B "$o")" = "10.000,x0.500,25.000,x0.800,B" "ratio, the other way: B x0.5, x0.8"

# callers and callees: each experiment's attributed time per edge
cc=$("$LWPROF" print -printmode csv -compare delta -metrics i.total:a.total:name -csingle C "$e1" "$e2")
check "$(sed -n 2,3p <<<"$cc" | tr '\n' ' ')" = "20.000,+5.000,15.000,+0.000,B 10.000,+0.000,10.000,+0.000,A " \
	"csingle C, delta: callers B (incl +5, attributed 15 in both) and A"
check "$(sed -n 4p <<<"$cc")" = "25.000,+0.000,25.000,+0.000,* C" "csingle C, delta: C itself unchanged"
cc=$("$LWPROF" print -printmode csv -compare ratio -metrics a.total:name -csingle main "$e1" "$e2")
check "$(sed -n 3,4p <<<"$cc" | tr '\n' ' ')" = "20.000,x1.250,B 10.000,x1.000,A " \
	"csingle main, ratio: callee B 20 -> 25 s (x1.250), A the same"
cc=$("$LWPROF" print -printmode csv -compare on -metrics a.total:name -csingle main "$e2" "$e1")
check "$(sed -n 3p <<<"$cc")" = "25.000,20.000,B" "csingle, the other way: the base's values first"

# the call tree: each path's values per experiment
ct=$("$LWPROF" print -printmode csv -compare delta -metrics e.total:i.total:name -calltree "$e1" "$e2")
check "$(sed -n 2,3p <<<"$ct" | tr '\n' ' ')" = "2.000,+0.000,32.000,+5.000,+-main 5.000,+5.000,20.000,+5.000,+-B " \
	"calltree, delta: main +5 incl, main -> B +5 excl and incl"
check "$(grep -c ',+0.000,.*,+0.000,' <<<"$ct")" = 9 "calltree, delta: the 9 other paths unchanged"

o=$("$LWPROF" print -compare on -metrics e.%total:name -functions "$e1" "$e2")
check "$(sed -n 3,4p <<<"$o" | awk '{ $1 = $1 } 1' | tr '\n' '|')" = "seed.er Excl. Total Thread seed2.er Excl. Total Thread Name|sec. % sec. %|" \
	"text: value and percentage under one title per experiment"
check "$(awk '$NF == "B" { $1 = $1; print }' <<<"$o")" = "5.000 15.62 10.000 27.03 B" "text: each percentage of its own experiment's total"

mkdir -p "$PRINT_OUT/again"
cp -r "$e1" "$PRINT_OUT/again/"
o=$(C -compare on "$e1" "$PRINT_OUT/again/seed.er/")
check "$(head -n 1 <<<"$o" | cut -d, -f1,2 | sed "s|$PRINT_OUT|OUT|g")" = "OUT/seed.er Excl. Total Thread (sec.),OUT/again/seed.er Excl. Total Thread (sec.)" \
	"two experiments of one base name: titled by their paths"
o=$(C -compare off "$e1" "$e2")
check "$(row '<Total>' "$o")" = "69.000,69.000,<Total>" "off: the experiments summed"
o=$(C -compare on "$e1")
check "$(row '<Total>' "$o")" = "32.000,32.000,<Total>" "on with one experiment: as off"
"$LWPROF" print -compare maybe -functions "$e1" "$e2" >/dev/null 2>&1
check $? -eq 1 "a bad -compare: status 1"

# two builds of one program: one row per function, matched by name
mkdir -p "$PRINT_OUT/b5" "$PRINT_OUT/b4"
cp "$DATA/lines_dw5.bin" "$PRINT_OUT/b5/lines.bin"
cp "$DATA/lines_dw4.bin" "$PRINT_OUT/b4/lines.bin"
gen() {
	printf 'binary prog %s\nmap 900 prog 0x555555554000\ntask start 900 900 1 lines\n' "$PRINT_OUT/$1/lines.bin"
	printf 'sample pid=900 tid=900 t=0 n=%s dt=10000000 ms=user:10000000 stack=outer,main\n' "$2"
	[ -n "${3:-}" ] && printf 'sample pid=900 tid=900 t=5000000000 n=%s dt=10000000 ms=user:10000000 stack=main\n' "$3"
	echo "usage auto"
}
l1=$(gen b5 90 | gen_exp l1 -)
l2=$(gen b4 45 10 | gen_exp l2 -)
o=$(C -compare ratio "$l1" "$l2")
check "$(row outer "$o" | wc -l)/$(row main "$o" | wc -l)" = 1/1 "two builds: one row for outer, one for main"
check "$(row outer "$o")" = "0.900,x0.500,0.900,x0.500,outer" "two builds: outer x0.5"
check "$(row main "$o")" = "0.000,x>99.999,0.900,x0.611,main" "two builds: main's own time only in the second: x>99.999"
o=$(C "$l1" "$l2")
check "$(row outer "$o" | wc -l)" = 2 "without -compare, the two builds' outer are two functions"
done_testing
