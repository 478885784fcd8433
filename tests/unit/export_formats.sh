#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof export folded, pprof and perfetto on synthetic experiments with
# exact times (tests/data/exp/seed.gen, filters.gen), each read back by an
# independent reader: folded lines summed with awk; the pprof decoded by
# protoc with pprof's own profile.proto (golang-github-google-pprof-dev);
# the Perfetto trace decoded by protoc with the schema subset of
# tests/data/perfetto_subset.proto.  Totals are checked to the nanosecond
# against what the scripts recorded and against print's.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

PPROF_PROTO=/usr/share/gocode/src/github.com/google/pprof/proto
command -v protoc >/dev/null || skip "no protoc (scripts/deps.sh installs protobuf-compiler)"
[ -f $PPROF_PROTO/profile.proto ] || skip "no pprof profile.proto (golang-github-google-pprof-dev)"

seed=$(gen_exp seed)
filt=$(gen_exp filters)
pseudo=$(gen_exp pseudo)
X() { "$LWPROF" export "$@"; }
total_ns() {	# print's <Total> of metric $1 (seconds, 3 decimals) with the rest
	local m=$1
	shift
	"$LWPROF" print -printmode csv -metrics "i.$m:name" "$@" -functions |
		awk -F, '$NF == "<Total>" { print $1 }'
}
sec() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
lsum() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }	# folded lines' sum

# ---- folded ----
f=$(X folded -o - "$seed")
check "$(lsum <<<"$f")" = 32000000000 "folded (seed): lines sum to 32 s in ns"
check "$(sec 32000000000)" = "$(total_ns total "$seed")" "folded (seed): ... print's <Total>"
check "$(grep -c . <<<"$f")" = 10 "folded (seed): 10 distinct stacks (B's two call sites of C are one)"
check "$(grep '^main;B;C;E ' <<<"$f")" = "main;B;C;E 6000000000" "folded (seed): main;B;C;E is 6 s (two call sites)"
check "$(grep '^main ' <<<"$f")" = "main 2000000000" "folded (seed): main's own 2 s"
f=$(X folded -o - -metrics e.system "$seed")
check "$(lsum <<<"$f")/$(cut -d' ' -f1 <<<"$f" | sort -u | tr '\n' ' ')" = \
	"10000000000/main;A;C;E main;B;C;E " "folded -metrics e.system: only E's 10 s"
f=$(X folded -o - -metrics i.lock -thread_select 2 "$filt")
check "$(lsum <<<"$f")" = 400000000 "folded -thread_select 2 -metrics i.lock: 0.4 s"
f=$(X folded -o - -metrics e.cycles "$filt")
check "$f" = "B;C;F 1000000000" "folded -metrics e.cycles: 1e9 events on B;C;F"
f=$(X folded -o - -filters 'TSTAMP < 1s' "$filt")
check "$f" = "main;A;C;E 1000000000" "folded -filters 'TSTAMP < 1s': thread 500's second"

# kernel frames (tests/data/exp/kernel.gen): below the user leaf, "_[k]"
kexp=$(gen_exp kernel)
f=$(X folded -o - "$kexp")
check "$(tr '\n' '|' <<<"$f")" = "kthread_[k];mod_worker_[k] 30000000|main;A;C;E 40000000|main;A;C;E;entry_SYSCALL_64_[k];ksys_read_[k];copy_user_[k] 60000000|" \
	"folded: kernel frames below the user leaf, marked _[k]"

# ---- pprof ----
# the start as the recorder writes it, to the ns (the generator's has six digits)
sed -i 's/^start_time = .*/start_time = 2026-11-28T23:14:19.306605272Z/' "$filt/log.txt"
out=$PRINT_OUT/filters.pb.gz
X pprof -o "$out" "$filt"
check $? -eq 0 "pprof: exported"
check "$(head -c 2 "$out" | od -An -tx1 | tr -d ' ')" = 1f8b "pprof: gzipped"
zcat "$out" | protoc --decode=perftools.profiles.Profile -I $PPROF_PROTO profile.proto \
	>"$PRINT_OUT/filters.pprof.txt" 2>"$PRINT_OUT/protoc.err"
check $? -eq 0 "pprof: protoc decodes it with pprof's profile.proto"
P=$PRINT_OUT/filters.pprof.txt
# the string table, in order, and the sample types through it
strs() { awk '/^string_table:/ { sub(/^string_table: /, ""); gsub(/"/, ""); print }' "$P"; }
types=$(awk '/^sample_type/ { st = 1 } st && /type:/ { t = $2 } st && /unit:/ { print t ":" $2; st = 0 }' "$P" |
	while IFS=: read -r t u; do
		echo "$(strs | sed -n "$((t + 1))p")/$(strs | sed -n "$((u + 1))p")"
	done | tr '\n' ' ')
check "$types" = "cpu/nanoseconds total/nanoseconds user/nanoseconds lock/nanoseconds cycles/count " \
	"pprof: cpu, then one sample type per default metric, time in ns, cycles as a count"
sums=$(awk '/^sample \{/ { k = 0 } /^  value:/ { s[k++] += $2 } END { print s[0], s[1], s[2], s[3], s[4] }' "$P")
check "$sums" = "1600000000 2000000000 1600000000 400000000 1000000000" \
	"pprof: totals to the ns (1.6 s cpu, 2 s, 1.6 s user, 0.4 s lock, 1e9 cycles)"
check "$(sec "$(cut -d' ' -f2 <<<"$sums")")" = "$(total_ns total "$filt")" "pprof: total = print's <Total>"
check "$(sec "${sums%% *}")" = "$(total_ns totalcpu "$filt")" "pprof: cpu = print's Total CPU <Total>"
dst=$(awk '/^default_sample_type:/ { print $2 }' "$P")
check "$(strs | sed -n "$((dst + 1))p")" = cpu "pprof: the default sample type is cpu"
pt=$(awk '/^period_type/ { p = 1 } p && /type:/ { print $2; exit }' "$P")
check "$(strs | sed -n "$((pt + 1))p")" = cpu "pprof: so is the period type"
check "$(strs | grep -c '^main$\|^A$\|^C$\|^E$\|^B$\|^F$')" = 6 "pprof: the functions by name"
bid=$(readelf -n "$DATA/seed_example.bin" | awk '/Build ID/ { print $3 }')
check "$(strs | grep -c "^$bid\$")" = 1 "pprof: the mapping's build id ($bid)"
check "$(grep -c '^mapping {' "$P")" -ge 1 "pprof: mappings"
check "$(awk '/^location/ { l = 1 } l && /line: [1-9]/ { n++ } END { print n + 0 }' "$P")" -ge 6 "pprof: locations have source lines"
check "$(awk '/^time_nanos:/ { print $2 }' "$P")" = "$(date -d 2026-11-28T23:14:19Z +%s)306605272" \
	"pprof: time_nanos is the log's start_time to the ns (23:14:19.306605272Z)"
check "$(grep -c 'has_functions: true' "$P")" = "$(grep -c '^mapping {' "$P")" "pprof: every mapping says it is symbolized"
# and the real pprof (Go's, golang-go): every type's total, a stack
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
	gp() { PPROF_TMPDIR=$PRINT_OUT HOME=$PRINT_OUT go tool pprof "$@" "$out" 2>&1; }
	for t in total:2000000000ns user:1600000000ns lock:400000000ns cycles:1000000000; do
		u=-unit=ns
		[ "${t%ns}" = "$t" ] && u=-unit=minimum	# a count
		check "$(gp -top $u -sample_index=${t%%:*} | sed -n 's/.*Total samples = \([0-9a-z]*\).*/\1/p')" = "${t#*:}" \
			"go tool pprof: ${t%%:*} totals ${t#*:}"
	done
	check "$(gp -traces -sample_index=total | awk '/^-+\+/ { if (s) print s; s = "" } /^ / { s = s $NF " " } END { if (s) print s }' | sort | tr '\n' '|')" = \
		"E C A main |F C B |" "go tool pprof -traces: the two stacks, leaf first"
	check "$(gp -raw | sed -n 's/^Time: //p')" = "2026-11-28 23:14:19.306605272 +0000 UTC" \
		"go tool pprof -raw: Time is the start to the ns"
	check "$(gp -top | sed -n 's/^Type: //p')" = cpu "go tool pprof -top: shows cpu by default"
	out2=$out
	out=$PRINT_OUT/pseudo.pb.gz
	X pprof -o "$out" "$pseudo"
	check "$(gp -top | sed -n 's/^File: //p')" = seed_example.bin \
		"go tool pprof: File: is the executable, not <Unknown>"
	out=$out2
else
	echo "note: no go tool pprof (golang-go): the real reader's checks are skipped"
fi
X pprof -o "$out" -thread_select 1 "$filt"
sums=$(zcat "$out" | protoc --decode=perftools.profiles.Profile -I $PPROF_PROTO profile.proto |
	awk '/^sample_type/ { n++ } /^sample \{/ { k = 0 } /^  value:/ { s[k++] += $2 } END { print n, s[0], s[1], s[2] + 0 }')
check "$sums" = "3 1000000000 1000000000 0" \
	"pprof -thread_select 1: cpu, user (the one state with data) and cycles: thread 500's 1 s, no cycles"
X pprof -o "$out" -metrics e.sleep:e.user "$filt"
check "$(zcat "$out" | protoc --decode=perftools.profiles.Profile -I $PPROF_PROTO profile.proto | grep -c '^sample_type')" = 2 \
	"pprof -metrics: the metrics asked for, no cpu added"
# the main executable is the first mapping, before <Unknown> (a pc in no mapping)
X pprof -o "$PRINT_OUT/pseudo.pb.gz" "$pseudo"
PS=$PRINT_OUT/pseudo.pprof.txt
zcat "$PRINT_OUT/pseudo.pb.gz" | protoc --decode=perftools.profiles.Profile -I $PPROF_PROTO profile.proto >"$PS"
m1=$(awk '/^mapping \{/ { m = 1 } m && /filename:/ { print $2; exit }' "$PS")
check "$(awk '/^string_table:/ { sub(/^string_table: /, ""); gsub(/"/, ""); print }' "$PS" | sed -n "$((m1 + 1))p")" = \
	"$DATA/seed_example.bin" "pprof: mapping 1 is the executable"
check "$(grep -c '^mapping {' "$PS")" = 3 "  then <Unknown> and <Truncated-stack>"

# ---- perfetto ----
pf=$PRINT_OUT/filters.pftrace
X perfetto -o "$pf" "$filt"
check $? -eq 0 "perfetto: exported"
protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto <"$pf" >"$pf.txt" 2>"$PRINT_OUT/protoc.err"
check $? -eq 0 "perfetto: protoc decodes it with the schema subset"
T=$pf.txt
check "$(grep -c 'process_name: "main_thread"' "$T")" = 1 "perfetto: the process, named"
check "$(grep -A2 'pid: 500' "$T" | grep -o 'thread_name: "[a-z_]*"' | sort | tr '\n' ' ')" = \
	'thread_name: "main_thread" thread_name: "worker" ' "perfetto: both threads, named"
# per thread track: the slices' sum, and per state
slices() {
	awk '/^packet/ { ts = ""; tp = ""; tr = ""; nm = "" }
	     /^  timestamp:/ { ts = $2 }
	     /event_names \{/ { en = 1 } en && /iid:/ { ei = $2 }
	     en && /name:/ { sub(/^ *name: /, ""); ev[ei] = $0; en = 0 }
	     /type: TYPE_SLICE_BEGIN/ { tp = "B" } /type: TYPE_SLICE_END/ { tp = "E" }
	     /track_uuid:/ { tr = $2 }
	     /name_iid:/ { nm = ev[$2] }
	     /^}/ && tp == "B" { open[tr] = ts; name[tr] = nm }
	     /^}/ && tp == "E" { d = ts - open[tr]; tot[tr] += d; st[tr " " name[tr]] += d; if (d <= 0) bad++ }
	     END { for (t in tot) print "T", t, tot[t]; for (s in st) print "S", s, st[s]; print "bad", bad + 0 }' "$T"
}
s=$(slices)
uuid() { grep -B3 "tid: $1\$" "$T" | awk '/uuid:/ { print $2; exit }'; }
u500=$(uuid 500)
u501=$(uuid 501)
check "$(awk -v u="$u500" '$1 == "T" && ($2 "") == u { print $3 }' <<<"$s")" = 1000000000 "perfetto: thread 500's slices sum to its 1 s"
check "$(awk -v u="$u501" '$1 == "T" && ($2 "") == u { print $3 }' <<<"$s")" = 1000000000 "perfetto: thread 501's slices sum to its 1 s"
check "$(sec 1000000000)" = "$(total_ns total -thread_select 2 "$filt")" "perfetto: ... print's -thread_select 2 <Total>"
check "$(grep "^S $u501 " <<<"$s" | sort | cut -d' ' -f3- | tr '\n' ' ')" = \
	'"User CPU" 600000000 "User Lock" 400000000 ' "perfetto: thread 501: 0.6 s User CPU, 0.4 s User Lock"
check "$(awk '$1 == "bad" { print $2 }' <<<"$s")" = 0 "perfetto: no empty or backward slice"
check "$(od -An -tx1 -v "$pf" | tr -d ' \n' | grep -c "$bid")" = 1 "perfetto: the mapping's build id, as raw bytes"
check "$(grep -A6 '^    mappings {' "$T" | grep -c 'end: [1-9]')" -ge 1 "perfetto: mappings have their address range"
check "$(grep -c 'perf_sample {' "$T")" = 30 "perfetto: one PerfSample per packet (30)"
# a sample of thread 500: its callstack's frames, root first, are main A C E
cs=$(awk '/perf_sample/ { p = 1 } p && /tid: 500/ { t = 1 } p && t && /callstack_iid/ { print $2; exit }' "$T")
names=$(awk -v cs="$cs" '
	/function_names \{/ { fn = 1 } fn && /iid:/ { i = $2 } fn && /str:/ { gsub(/"/, "", $2); f[i] = $2; fn = 0 }
	/frames \{/ { fr = 1 } fr && / iid:/ { i = $2 } fr && /function_name_id:/ { ff[i] = $2; fr = 0 }
	/callstacks \{/ { c = 1; n = 0 } c && / iid:/ { ci = $2 } c && /frame_ids:/ { fids[ci] = fids[ci] " " $2 }
	/^    \}/ { c = 0 }
	END { k = split(fids[cs], a, " "); for (j = 1; j <= k; j++) printf "%s ", f[ff[a[j]]] }' "$T")
check "$names" = "main A C E " "perfetto: a sample's callstack is main A C E, root first"
# trace_processor sorts a sequence only within a window: every timestamped
# packet in time order, and each track's slices nested (an end closes an
# open begin, none left open)
order() {
	awk '/^packet/ { ts = ""; tp = ""; tr = "" }
	     /^  timestamp:/ { ts = $2 }
	     /type: TYPE_SLICE_BEGIN/ { tp = "B" } /type: TYPE_SLICE_END/ { tp = "E" }
	     /track_uuid:/ { tr = $2 }
	     /^}/ && ts != "" { n++; if (last != "" && ts + 0 < last + 0) inv++; last = ts }
	     /^}/ && tp == "B" { open[tr]++ }
	     /^}/ && tp == "E" { if (!open[tr]) bad++; else open[tr]-- }
	     END { for (t in open) if (open[t]) bad++; print n + 0, "inversions=" inv + 0, "unbalanced=" bad + 0 }' "$1"
}
check "$(order "$T" | cut -d' ' -f2-)" = "inversions=0 unbalanced=0" "perfetto: packets in time order ($(order "$T")), slices nested"

# traced calls (tests/progs/qsort_unwind's stack): 5 clock packets and 6
# mutex waits of 600 ns each, 1 us apart; then 8 allocations, no packet
cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
sync=$(printf 'capture %s n=5\ntrace %s format=20 event=pthread_mutex_lock wait=600 calls=6\nusage auto\n' \
	"$cap" "$cap" | gen_exp sync -)
heap=$(printf 'trace %s format=20\nusage auto\n' "$cap" | gen_exp heap -)
X perfetto -o "$pf" "$sync"
protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto <"$pf" >"$pf.txt"
check "$(grep -c 'perf_sample {' "$pf.txt")" = 5 "perfetto, traced waits: a PerfSample per clock packet (5), none per call"
tid=$(awk '/^ *tid:/ { print $2; exit }' "$pf.txt")
cu=$(grep -B1 "name: \"$tid traced calls\"" "$pf.txt" | awk '/uuid:/ { print $2 }')
check "$cu" != "" "  a track \"$tid traced calls\""
T=$pf.txt
s=$(slices)
check "$(awk -v u="$cu" '$1 == "S" && ($2 "") == u { $1 = $2 = ""; print }' <<<"$s" | sed 's/^ *//')" = '"pthread_mutex_lock" 3600' \
	"  on it 6 pthread_mutex_lock slices of 600 ns: 3600 ns"
check "$(awk -v u="$cu" '/^packet/ { b = 0 } /TYPE_SLICE_BEGIN/ { b = 1 } b && /track_uuid:/ && ($2 "") == u { n++ } END { print n + 0 }' "$pf.txt")" = 6 \
	"  ... each call a slice of its own"
check "$(order "$pf.txt" | cut -d' ' -f2-)" = "inversions=0 unbalanced=0" "  packets in time order, slices nested"
X perfetto -o "$pf" "$heap"
protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto <"$pf" >"$pf.txt"
check "$(grep -c 'perf_sample {\|type: TYPE_SLICE' "$pf.txt")" = 0 \
	"perfetto, 8 traced allocations and no packet: no PerfSample, no slice (heap calls stay out)"
T=$PRINT_OUT/filters.pftrace.txt

X perfetto -o "$pf" -thread_select 2 "$filt"
check "$(protoc --decode=lwprof.perfetto.Trace -I "$DATA" perfetto_subset.proto <"$pf" | grep -c 'perf_sample {')" = 20 \
	"perfetto -thread_select 2: thread 501's 20 packets"

# ---- the command line ----
X nosuch -o "$out" "$seed" 2>/dev/null
check $? -eq 2 "an unknown format: status 2"
X folded "$seed" 2>/dev/null
check $? -eq 2 "no -o: status 2"
X folded -o "$out" -functions "$seed" 2>/dev/null
check $? -eq 2 "a view is not a setting: status 2"
echo functions >"$PRINT_OUT/views.txt"
X folded -o - -script "$PRINT_OUT/views.txt" "$seed" >/dev/null 2>&1
check $? -eq 2 "nor -script (its file could run views into the export): status 2"
rm -f "$PRINT_OUT/none.txt"
X folded -o "$PRINT_OUT/none.txt" "$PRINT_OUT/missing.er" 2>/dev/null
check $? -eq 1 "a missing experiment: status 1"
check "$(ls "$PRINT_OUT" | grep -c 'none.txt')" = 0 "... and no file (nor temporary) left"
X folded -o "$PRINT_OUT/no/such/dir/f.txt" "$seed" 2>/dev/null
check $? -eq 1 "an output file that cannot be made: status 1"
X folded -o "$out" -metrics e.nosuch "$seed" 2>/dev/null
check $? -eq 1 "a bad -metrics: status 1"
check "$(X -h | grep -c '^  \(folded\|pprof\|perfetto\) ')" = 3 "lwprof export -h lists the formats"
done_testing
