#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The html report (docs/design/html-report.md) loaded in headless Chromium: no
# script error, the threads with their time on the timeline, the functions
# with print's values, callers and callees, the flame graph's search share
# for a microstate and a counter and in a time range, a selection applied, text that would end
# the page's script when not escaped.  Ground truth: tests/data/exp/html.gen.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

chrome=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium (scripts/deps.sh installs it)"
exp=$(gen_exp html)

# dom URL: the page's DOM once its script ran, without the data and script
# that follow it; the console to console.txt
dom() {
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$PRINT_OUT/chrome" --enable-logging=stderr --log-level=0 \
		--dump-dom "$1" 2>>"$PRINT_OUT/console.txt" | tr -d '\n' |
		sed 's|<script type="application/json".*||'	# the page, not its code
}
# rows TABLE_ID: the table's rows, their cells tab-separated
rows() {
	sed "s|.*<table id=\"$1\">||; s|</table>.*||; s|<tr|\n<tr|g" |
		grep '^<tr[^>]*data-f=' | sed 's|</td>|\t|g; s|<[^>]*>||g; s|&nbsp;||g'
}
ready() {
	local d=$1 what=$2
	check "$(grep -c 'data-lwprof="ready"' <<<"$d")" -eq 1 "$what: the script ran to the end"
	check "$(grep -c 'class="lwprof-error"' <<<"$d")" -eq 0 "$what: no script error on the page"
}

page=$PRINT_OUT/report.html
"$LWPROF" export html -o "$page" "$exp" 2>"$PRINT_OUT/err.txt"
check $? -eq 0 "export html writes the page"
check "$(grep -cE '<script[^>]* src=|<link |<img |<iframe |https?://' "$page")" -eq 0 \
	"the page loads nothing from elsewhere"
d=$(dom "file://$page#fn=C")
ready "$d" "report"
check "$(grep -cE 'Uncaught|CONSOLE' "$PRINT_OUT/console.txt")" -eq 0 \
	"nothing on the browser's console"

# the timeline: a row per thread under its process, all of its time on it
for want in 500:990000000 501:880000000 600:1000000000; do
	tid=${want%:*} ns=${want#*:}
	got=$(grep -o "data-tid=\"$tid\" data-ns=\"[0-9]*\"" <<<"$d" | grep -o '[0-9]*"$' | tr -d '"')
	check "${got:-none}" = "$ns" "timeline: thread $tid's intervals sum to its $ns ns"
done
check "$(grep -o 'process 500 server\|process 600 client' <<<"$d" | wc -l)" -eq 2 \
	"timeline: threads grouped under their processes"

# the functions table: print's exclusive and inclusive total thread time
csv=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -functions "$exp")
fn=$(rows fn-table <<<"$d")
for f in E G B F A C ns::Widget::spin; do
	row=$(awk -F'\t' -v f="$f" '$1 == f' <<<"$fn")
	check "$(cut -f2 <<<"$row"),$(cut -f4 <<<"$row")" = \
		"$(csv_field "$csv" "$f" 1),$(csv_field "$csv" "$f" 2)" \
		"functions table: $f's exclusive and inclusive time as print's"
done
check "$(grep -c . <<<"$fn")" -eq 9 "functions table: the 9 functions with data"

# callers and callees of C (#fn=C): A gave it 0.700 s, B 0.790 s; it gave
# F 0.890 s and E 0.600 s (tests/data/exp/html.gen)
cc=$(rows cc-table <<<"$d" | cut -f1,2 | tr '\t\n' ':,')
check "$cc" = "B:0.790,A:0.700,* C:1.490,F:0.890,E:0.600," "callers and callees of C"

# a user at the page (tests/host/print_html_ui.js): hover, click, zoom,
# pan, select a range, sort; its checks' lines come back in <pre id="ui-test">
{
	sed '$d' "$page"
	echo '<script>'
	cat "$LWPROF_TOP/tests/host/print_html_ui.js"
	echo '</script></body></html>'
} >"$PRINT_OUT/ui.html"
ui=$(timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$PRINT_OUT/chrome" \
	--window-size=1400,1000 --virtual-time-budget=10000 --dump-dom "file://$PRINT_OUT/ui.html" 2>/dev/null |
	sed -n '/<pre id="ui-test">/,/<\/pre>/p' | sed 's|<[^>]*>||g; s|&gt;|>|g; s|&lt;|<|g; s|&amp;|\&|g')
printf '%s\n' "$ui" | grep -E '^(ok|FAIL): ' | sed 's/^/ui: /; s/^ui: FAIL: /FAIL: ui: /'
check "$(grep -c '^ok: ' <<<"$ui"),$(grep -c '^FAIL: ' <<<"$ui")" = 24,0 "ui: the user's 24 checks pass"

# the flame graph's search: G's share of the user time, and A's of the counter
d=$(dom "file://$page#metric=user&search=%5EG%24")
check "$(grep -o '<span id="fg-match">[^<]*' <<<"$d" | sed 's/.*>//')" = "matched: 0.420 s, 40.38%" \
	"flame graph: G has 0.420 s of the 1.040 s of user time"
for want in 500:290000000 501:400000000 600:0; do	# the timeline: time in stacks with G
	tid=${want%:*} ns=${want#*:}
	got=$(grep -o "data-tid=\"$tid\" data-ns=\"[0-9]*\" data-match-ns=\"[0-9]*\"" <<<"$d" | sed 's/.*data-match-ns="//; s/"//')
	check "${got:-none}" = "$ns" "search ^G\$ on the timeline: thread $tid has $ns ns in stacks with G"
done
d=$(dom "file://$page#metric=instructions&search=%5EA%24")
check "$(grep -o '<span id="fg-match">[^<]*' <<<"$d" | sed 's/.*>//')" = "matched: 500000 events, 100.00%" \
	"flame graph: every instruction event under A"
# a time range's flame graph: 500 to 700 ms holds 200 ms of each thread,
# server's in E (System CPU), worker's asleep in B, client's in spin
d=$(dom "file://$page#range=500000000,700000000&search=%5EE%24")
check "$(grep -o '<span id="fg-match">[^<]*' <<<"$d" | sed 's/.*>//')" = "matched: 0.200 s, 33.33%" \
	"flame graph of 500-700 ms: E has 0.200 s of the 0.600 s"
check "$(grep -o '<option value="[0-9]*" disabled="">[^<]*' <<<"$d" | sed 's/.*>//' | tr '\n' ,)" = \
	"Wall Time,instructions Events," "... where a counter and the wall time have no interval"
check "$(grep -c 'Process 500 (server)' <<<"$d")" -eq 1 "the statistics view is on the page"
check "$(grep -c 'Counter:        instructions every 100000 events' <<<"$d")" -eq 1 \
	"the header is on the page"

# the selection applies: thread 3 alone
"$LWPROF" export html -o "$PRINT_OUT/t3.html" -thread_select 3 "$exp"
d=$(dom "file://$PRINT_OUT/t3.html")
ready "$d" "thread 3"
check "$(grep -o 'data-tid="[0-9]*"' <<<"$d" | tr '\n' ' ')" = 'data-tid="600" ' \
	"-thread_select 3: only thread 600 on the timeline"
check "$(rows fn-table <<<"$d" | cut -f1 | sort | tr '\n' ' ')" = "main ns::Widget::spin " \
	"-thread_select 3: only its functions in the table"

# intervals stay between a thread's packets: 40 ms of sleep reported 10 ms
# after the packet before are scaled into those 10 ms (not pushed back over
# it); a packet split in two (same time) shares its 90 ms window
e3=$(gen_exp window - <<'EOF2'
binary seed seed_example.bin
map 700 seed 0x555555554000
task start 700 700 1 window
sample pid=700 tid=700 t=100000000 ms=user:50000000 stack=main
sample pid=700 tid=700 t=110000000 ms=sleep:40000000 stack=main
sample pid=700 tid=700 t=200000000 ms=user:30000000 stack=A,main
sample pid=700 tid=700 t=200000000 ms=sleep:60000000 stack=A,main
EOF2
)
"$LWPROF" export html -o "$PRINT_OUT/window.html" "$e3"
d=$(dom "file://$PRINT_OUT/window.html")
check "$(grep -o 'data-tid="700" data-ns="[0-9]*"' <<<"$d")" = 'data-tid="700" data-ns="150000000"' \
	"timeline: 50 ms, 40 ms scaled into 10, 30 + 60 ms in a 90 ms window: 150 ms"
check "$(grep -o '<span id="tl-range">[^<]*' <<<"$d" | sed 's/.*>//')" = "50.000 ms .. 200.000 ms (150.000 ms shown)" \
	"timeline: from the first interval's start, nothing pushed back before it"

# the flame graph's height: the frames drawn, at least a pixel wide (the
# page 800 px wide: 999 packets on main A, one on a stack 60 deep, which
# is 0.7 px): rows all, main, A and one to spare, 4 x 18 px
deep=$(for i in $(seq 57); do printf '0x5555555550a0,'; done)	# in main
e4=$(gen_exp deep - <<EOF2
binary seed seed_example.bin
map 700 seed 0x555555554000
task start 700 700 1 deep
sample pid=700 tid=700 t=10000000 n=999 dt=1000000 ms=user:1000000 stack=A,main
sample pid=700 tid=700 t=1100000000 ms=user:1000000 stack=E,C,A,${deep}0x5555555550a0
EOF2
)
"$LWPROF" export html -o "$PRINT_OUT/deep.html" "$e4"
d=$(timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$PRINT_OUT/chrome" \
	--window-size=800,600 --dump-dom "file://$PRINT_OUT/deep.html" 2>/dev/null | tr -d '\n')
check "$(grep -o '<canvas id="fg-canvas"[^>]*' <<<"$d" | grep -o 'height: [0-9]*px')" = "height: 72px" \
	"flame graph: as tall as its frames of a pixel or more (72 px, not a 61-deep sliver's)"

# many processes: each folded into one row (a process per thread here, 60
# threads: more than 48), 16 + 2 px a row
e5=$(gen_exp many - < <(
	echo "binary seed seed_example.bin"
	for p in $(seq 1000 1059); do
		echo "map $p seed 0x555555554000"
		echo "task start $p $p 1 p$p"
		echo "sample pid=$p tid=$p t=10000000 n=10 dt=10000000 ms=user:10000000 stack=A,main"
	done
	echo "usage auto"))
"$LWPROF" export html -o "$PRINT_OUT/many.html" "$e5"
d=$(dom "file://$PRINT_OUT/many.html")
ready "$d" "60 processes"
check "$(grep -o '<canvas id="tl-canvas"[^>]*' <<<"$d" | grep -o 'height: [0-9]*px')" = "height: 1080px" \
	"60 processes of a thread each: folded, a row each (60 x 18 px, not 60 x 34)"
check "$(grep -o 'class="proc collapsed"' <<<"$d" | wc -l)" = 60 "  every process marked folded"

# traced calls are no samples: 5 clock packets and 6 traced mutex waits,
# as -header counts them when it reads the records (with -thread_list;
# alone it shows log.txt's); a heap's bytes are bytes, not events
cap=$PRINT_OUT/qsort.cap
"$LWPROF_BUILD/tests/progs/qsort_unwind" "$cap" || { echo "FAIL: qsort_unwind"; exit 1; }
e6=$(printf 'capture %s n=5\ntrace %s format=20 event=pthread_mutex_lock wait=600 calls=6\nusage auto\n' \
	"$cap" "$cap" | gen_exp sync -)
"$LWPROF" export html -o "$PRINT_OUT/sync.html" "$e6"
d=$(dom "file://$PRINT_OUT/sync.html")
check "$(grep -o '<div id="summary">[^;<]*' <<<"$d" | sed 's/.*\.er: //')" = "5 samples, 6 traced calls, filter: none" \
	"summary: 5 packets and 6 traced calls apart"
# the records as dump finds them (the capture's mappings are its build's)
nrec=$("$LWPROF" dump "$e6" | grep -Ec '/(cpu|trace)\.[0-9]+\.rec\+[0-9]+: ')
check "$("$LWPROF" print -header -thread_list "$e6" | grep -o 'Records: .*')" = "Records:        $nrec read, 5 samples, 6 traced calls, 0 lost" \
	"  as -header counts them"
e7=$(printf 'trace %s format=20\nusage auto\n' "$cap" | gen_exp heap -)
"$LWPROF" export html -o "$PRINT_OUT/heap.html" "$e7"
d=$(dom "file://$PRINT_OUT/heap.html")
check "$(grep -o '<th[^>]*>[^<]*Bytes Allocated[^<]*' <<<"$d" | sed 's/.*>//' | tr '\n' ,)" = \
	"Excl. Bytes Allocated (bytes),Incl. Bytes Allocated (bytes)," "functions table: bytes labelled bytes"
check "$(grep -o '<div id="summary">[^;<]*' <<<"$d" | sed 's/.*\.er: //')" = "0 samples, 8 traced calls, filter: none" \
	"summary: 8 allocations are traced calls, not samples"

# a pixel holding several states shows each: 20000 packets of 20 us User
# CPU and 30 us Wait CPU, 50 us apart (about 15 a pixel): User CPU is a
# band of 40% of the row, Wait CPU 60%, at the whole run's zoom
e8=$(gen_exp dense - <<'EOF2'
binary seed seed_example.bin
map 800 seed 0x555555554000
task start 800 800 1 dense
sample pid=800 tid=800 t=50000 n=20000 dt=50000 ms=user:20000,wait:30000 stack=A,main
EOF2
)
"$LWPROF" export html -o "$PRINT_OUT/dense.html" "$e8"
{
	sed '$d' "$PRINT_OUT/dense.html"
	cat <<'EOF2'
<script>
(async function () {
	window.requestAnimationFrame = (f) => setTimeout(() => f(performance.now()), 0);
	await new Promise((r) => setTimeout(r, 10));
	const tl = document.getElementById('tl-canvas'), cb = tl.getBoundingClientRect();
	const lb = document.querySelector('#tl-labels [data-tid="800"]').getBoundingClientRect();
	const r = devicePixelRatio, x = Math.round(cb.width / 2 * r), y0 = Math.round((lb.top - cb.top + 1) * r);
	const h = Math.round((lb.height - 2) * r), px = tl.getContext('2d').getImageData(x, y0, 1, h).data;
	let user = 0, wait = 0;
	for (let i = 0; i < h; i++) {
		const c = px[4 * i] + ',' + px[4 * i + 1] + ',' + px[4 * i + 2];
		if (c === '46,157,72') user++;
		if (c === '236,64,122') wait++;
	}
	const p = document.createElement('pre');
	p.id = 'bands';
	p.textContent = (user / h).toFixed(1) + ' ' + (wait / h).toFixed(1);
	document.body.appendChild(p);
})();
</script></body></html>
EOF2
} >"$PRINT_OUT/dense-ui.html"
got=$(timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$PRINT_OUT/chrome" \
	--window-size=1400,1000 --virtual-time-budget=5000 --dump-dom "file://$PRINT_OUT/dense-ui.html" 2>/dev/null |
	grep -o '<pre id="bands">[^<]*' | sed 's/.*>//')
check "$got" = "0.4 0.6" "timeline: a pixel of 40% User CPU and 60% Wait CPU shows both, in those shares"

# no sample selected: an empty page, still working
"$LWPROF" export html -o "$PRINT_OUT/none.html" -filters 'TSTAMP > 100s' "$exp"
d=$(dom "file://$PRINT_OUT/none.html")
ready "$d" "no sample"
check "$(grep -o '<div id="tl-labels">[^<]*' <<<"$d")" = \
	'<div id="tl-labels">no samples with microstate times' "no sample: the timeline says so"

# a command line that would end the script element, were it not escaped
e2=$({
	echo 'log command </script><b>"x"&amp;\y'
	cat "$DATA/exp/procs.gen"
} | gen_exp escape -)
"$LWPROF" export html -o "$PRINT_OUT/esc.html" "$e2"
d=$(dom "file://$PRINT_OUT/esc.html")
ready "$d" "escaping"
check "$(grep -o '<span id="title">[^<]*' <<<"$d")" = \
	'<span id="title">&lt;/script&gt;&lt;b&gt;"x"&amp;amp;\y' "the command shown as it was"

# -o -: standard output
check "$("$LWPROF" export html -o - "$exp" | cmp - "$page" && echo same)" = same \
	"-o - writes the same page to standard output"

# bad output path: a clear error
"$LWPROF" export html -o /nonexistent/dir/x.html "$exp" 2>"$PRINT_OUT/err.txt"
check $? -ne 0 "an unwritable path fails"
check "$(grep -c '/nonexistent/dir/x.html: No such file or directory' "$PRINT_OUT/err.txt")" -eq 1 \
	"... naming the file and why"
if [ -w /dev/full ]; then
	"$LWPROF" export html -o /dev/full "$exp" 2>"$PRINT_OUT/err.txt"
	check $? -ne 0 "a full disk fails"
	check "$(grep -c 'writing the page: No space left on device' "$PRINT_OUT/err.txt")" -eq 1 \
		"... saying so"
fi
done_testing
