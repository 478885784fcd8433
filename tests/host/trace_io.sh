#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# I/O tracing without the module (docs/design/tracing.md): tests/progs/trace_io
# reads, writes, seeks, syncs, dups and fails on files of its own with
# counts and bytes it prints; lwprof print must show them exactly per
# function (the io* metrics), per file name (-ioactivity, the dup'd
# descriptor's write under its file), per descriptor (-iodetail), and in
# total (-iostat); after the program closed every descriptor from 3 up
# (closefrom, close), its calls are still traced, and its first open is 3
# (the trace file keeps out of its way).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

prog=$LWPROF_BUILD/tests/progs/trace_io
files=$PRINT_OUT/files
mkdir -p "$files"
exp=$PRINT_OUT/io.er
out=$("$LWPROF" collect -p off -i on -o "$exp" "$prog" "$files" 2>"$PRINT_OUT/collect.err"); rc=$?
check $rc -eq 0 "collect -p off -i on"
check "$(grep -c '^truth ' <<<"$out")" -eq 6 "six functions' truth"
csv=$("$LWPROF" print -printmode csv \
	-metrics i.ioreadbytes:i.ioreadcnt:i.iowritebytes:i.iowritecnt:i.ioothercnt:i.ioerrorcnt:name \
	-functions "$exp" 2>/dev/null)
while read -r _ f rb rc wb wc oc ec; do
	got=""
	for c in 1 2 3 4 5 6; do got="$got $(csv_field "$csv" "$f" $c)"; done
	check "$got" = " $rb $rc $wb $wc $oc $ec" \
		"$f: read $rb bytes in $rc, wrote $wb in $wc, $oc other calls, $ec errors"
done < <(grep '^truth ' <<<"$out")
# the calls' own rows: write() itself, pwrite, writev
check "$(csv_field "$csv" pwrite 3),$(csv_field "$csv" writev 3),$(csv_field "$csv" fwrite 3)" = 300,30,500 \
	"pwrite 300, writev 30, fwrite 500 bytes"

act=$("$LWPROF" print -printmode csv -ioactivity "$exp" 2>/dev/null)
while read -r _ path rb rc wb wc; do
	got="$(csv_field "$act" "$path" 2) $(csv_field "$act" "$path" 3) $(csv_field "$act" "$path" 5) $(csv_field "$act" "$path" 6)"
	check "$got" = "$rb $rc $wb $wc" "-ioactivity: $(basename "$path"): read $rb in $rc, wrote $wb in $wc"
done < <(grep '^file ' <<<"$out")
check "$(csv_field "$act" '<Unknown>' 10)" = 2 "-ioactivity: the two failures (no file)"
det=$("$LWPROF" print -printmode csv -iodetail "$exp" 2>/dev/null)
check "$(grep -c ",$files/f3\$" <<<"$det")" -eq 2 "-iodetail: f3 under two descriptors (open, dup)"
stat=$("$LWPROF" print -printmode csv -iostat "$exp" 2>/dev/null)
check "$(awk -F, '$1 == "Write" { print $2 "," $3 }' <<<"$stat")" = \
	"$(csv_field "$csv" '<Total>' 4),$(csv_field "$csv" '<Total>' 3)" "-iostat: the writes of <Total>"
check "$(awk -F, '$1 == "Error" { print $2 }' <<<"$stat")" = 2 "-iostat: 2 errors"
cs=$("$LWPROF" print -iocallstack "$exp" 2>/dev/null)
grep -A3 'read 0 (0 bytes), write 10 (40960 bytes)' <<<"$cs" | grep -q '^    writer$'
check $? -eq 0 "-iocallstack: writer's 10 write() calls of 4096 bytes on one stack"
done_testing
