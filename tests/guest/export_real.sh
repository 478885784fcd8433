#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof export and print -compare on real experiments: nthreads (3
# workers asleep 300 ms each, 1 ms clock profiling) exported as pprof,
# perfetto and folded; each read back (protoc with pprof's profile.proto
# and tests/data/perfetto_subset.proto, awk): every format's Total Thread
# Time is print's to the nanosecond where both are exact (folded = pprof)
# and to print's shown precision otherwise; each thread's Perfetto slices
# sum to its <Total> under -thread_select; the workers' slices are mostly
# Sleep.  Then seed_example at 20 and at 40 ms a unit compared: each
# experiment's columns of -compare on are its own -functions, delta and
# ratio are the differences and ratios of those.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"

PPROF_PROTO=/usr/share/gocode/src/github.com/google/pprof/proto
load_lwprof
need_sampling
command -v protoc >/dev/null || skip "no protoc"
[ -f $PPROF_PROTO/profile.proto ] || skip "no pprof profile.proto"
work=$(mktemp -d /tmp/export_real.XXXXXX) || exit 1
cd "$work" || exit 1
"$LWPROF" collect -p 1ms -o n.er "$LWPROF_BUILD/tests/progs/nthreads" 3 300 >/dev/null
check $? -eq 0 "collect nthreads 3 300"
tot() { "$LWPROF" print -printmode csv -metrics i.total:name "$@" -functions n.er |
	awk -F, '$NF == "<Total>" { print $1 }'; }
sec() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }

"$LWPROF" export folded -o n.folded -metrics e.total n.er
check $? -eq 0 "export folded"
fsum=$(awk '{ s += $NF } END { printf "%.0f", s }' n.folded)
"$LWPROF" export pprof -o n.pb.gz -metrics e.total:e.sleep n.er
check $? -eq 0 "export pprof"
zcat n.pb.gz | protoc --decode=perftools.profiles.Profile -I $PPROF_PROTO profile.proto >n.pprof.txt
check $? -eq 0 "pprof: protoc decodes it"
psum=$(awk '/^sample \{/ { k = 0 } /^  value:/ { s[k++] += $2 } END { printf "%.0f %.0f", s[0], s[1] }' n.pprof.txt)
check "${psum% *}" = "$fsum" "pprof's total = the folded lines' sum, to the ns ($fsum)"
check "$(sec "${psum% *}")" = "$(tot)" "... = print's <Total> ($(tot) s)"
"$LWPROF" export perfetto -o n.pftrace n.er
check $? -eq 0 "export perfetto"
protoc --decode=lwprof.perfetto.Trace -I "$LWPROF_TOP/tests/data" perfetto_subset.proto <n.pftrace >n.pf.txt
check $? -eq 0 "perfetto: protoc decodes it"
# per track: the slices' sum, and the Sleep slices'
awk '/^packet/ { ts = ""; tp = ""; tr = ""; nm = "" }
     /^  timestamp:/ { ts = $2 }
     /event_names \{/ { en = 1 } en && /iid:/ { ei = $2 }
     en && /name:/ { ev[ei] = $2; en = 0 }
     /TYPE_SLICE_BEGIN/ { tp = "B" } /TYPE_SLICE_END/ { tp = "E" }
     /track_uuid:/ { tr = $2 } /name_iid:/ { nm = ev[$2] }
     /^}/ && tp == "B" { open[tr] = ts; name[tr] = nm }
     /^}/ && tp == "E" { tot[tr] += ts - open[tr]; if (name[tr] == "\"Sleep\"") slp[tr] += ts - open[tr] }
     END { for (t in tot) printf "%s %.0f %.0f\n", t, tot[t], slp[t] }' n.pf.txt >n.slices
all=$(awk '{ s += $2 } END { printf "%.0f", s }' n.slices)
check "$all" = "${psum% *}" "perfetto: all slices = pprof's total, to the ns"
check "$(awk '{ s += $3 } END { printf "%.0f", s }' n.slices)" = "${psum#* }" "perfetto: Sleep slices = pprof's sleep (${psum#* })"
check "${psum#* }" -gt 750000000 "the workers slept 0.75 s or more in all (3 x 300 ms)"
"$LWPROF" print -thread_list n.er | awk 'NR > 1 { print $1, $4 }' >n.threads
check "$(wc -l <n.threads)" -eq 4 "4 threads"
workers=0
while read -r num tid; do
	uuid=$(grep -B3 "tid: $tid\$" n.pf.txt | awk '/uuid:/ { print $2; exit }')
	read -r t s < <(awk -v u="$uuid" '($1 "") == u { print $2, $3 }' n.slices)
	echo "thread $num tid $tid: slices $t ns, Sleep $s ns"
	check "$(sec "$t")" = "$(tot -thread_select "$num")" "thread $num (tid $tid): slices sum to its <Total>"
	awk -v s="$s" 'BEGIN { exit !(s >= 250e6) }' && workers=$((workers + 1))
done <n.threads
check $workers -ge 3 "the 3 workers have 250 ms of Sleep slices or more (each slept 300 ms)"

"$LWPROF" collect -p 1ms -o s1.er "$LWPROF_BUILD/tests/progs/seed_example" 20 >/dev/null &&
	"$LWPROF" collect -p 1ms -o s2.er "$LWPROF_BUILD/tests/progs/seed_example" 40 >/dev/null
check $? -eq 0 "collect seed_example at 20 and 40 ms a unit"
# each experiment's columns of -compare on are what print shows of it
# alone (the functions with inclusive time in it)
P() { "$LWPROF" print -printmode csv -metrics e.totalcpu:i.totalcpu:name "$@" -functions; }
P s1.er | awk -F, -v OFS='|' 'NR > 1 && $2 != "0.000" { print $NF, $1, $2 }' | sort >one.1
P s2.er | awk -F, -v OFS='|' 'NR > 1 && $2 != "0.000" { print $NF, $1, $2 }' | sort >one.2
P -compare on s1.er s2.er | awk -F, -v OFS='|' 'NR > 1 && $3 != "0.000" { print $NF, $1, $3 }' | sort >cmp.1
P -compare on s1.er s2.er | awk -F, -v OFS='|' 'NR > 1 && $4 != "0.000" { print $NF, $2, $4 }' | sort >cmp.2
check "$(wc -l <one.1)" -ge 8 "seed_example: functions"
check "$(diff cmp.1 one.1 && echo same)" = same "compare on: the first column is s1.er's own -functions"
check "$(diff cmp.2 one.2 && echo same)" = same "compare on: the second column is s2.er's own -functions"
# delta and ratio of <Total> and main from the separate values
v1=$(awk -F'|' '$1 == "main" { print $3 }' one.1)
v2=$(awk -F'|' '$1 == "main" { print $3 }' one.2)
d=$(P -compare delta s1.er s2.er | awk -F, '$NF == "main" { print $4 }')
r=$(P -compare ratio s1.er s2.er | awk -F, '$NF == "main" { sub(/^x/, "", $4); print $4 }')
awk -v a="$v1" -v b="$v2" -v d="$d" 'BEGIN { x = b - a - d; exit !(x < 0.0015 && x > -0.0015) }'
check $? -eq 0 "compare delta: main incl $d = $v2 - $v1"
awk -v a="$v1" -v b="$v2" -v r="$r" 'BEGIN { x = b / a / r; exit !(x < 1.01 && x > 0.99) }'
check $? -eq 0 "compare ratio: main incl x$r = $v2 / $v1"
cd / && rm -rf "$work"
done_testing
