#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A traced process killed by a signal keeps what its buffers held
# (docs/design/tracing.md): tests/progs/trace_signal leaks known blocks in its
# main thread and in a second one, then dies of SIGTERM, a segfault, a
# stack overflow, abort() or SIGPIPE; each death must be the signal's
# (collect exits 128 + it) and print must show both threads' leaks
# exactly.  With its own SIGTERM handler the program sees its own
# handling (its handler runs, the library's reads as SIG_DFL), and
# setting SIG_DFL again brings the library's flush back.  An ignored
# SIGHUP stays ignored.  SIGKILL cannot be caught: the buffers are lost,
# the file stays whole (print reads it without a warning).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

prog=$LWPROF_BUILD/tests/progs/trace_signal
ulimit -c 0	# no core files from the deaths

# run MODE: collect's output in $out, its exit status in $rc
run() {
	out=$("$LWPROF" collect -p off -H on -o "$PRINT_OUT/$1.er" "$prog" "$1" \
		2>"$PRINT_OUT/$1.err"); rc=$?
	csv=$("$LWPROF" print -printmode csv -metrics i.heapleakcnt:i.heapleakbytes:name \
		-functions "$PRINT_OUT/$1.er" 2>"$PRINT_OUT/$1.print.err")
	check "$(grep -c . "$PRINT_OUT/$1.print.err")" -eq 0 "$1: print reads it without a warning"
}

for mode in term segv overflow abort pipe handler; do
	run $mode
	sig=$(sed -n 's/^dying //p' <<<"$out")
	check "$rc" -eq $((128 + ${sig:-0})) "  it died of signal $sig (collect exits $rc)"
	check "$(grep -c '^truth ' <<<"$out")" -eq 2 "  two threads said their truth"
	while read -r _ f n b; do
		check "$(csv_field "$csv" "$f" 1) $(csv_field "$csv" "$f" 2)" = "$n $b" \
			"  $f: $n leaks, $b bytes"
	done < <(grep '^truth ' <<<"$out")
	if [ $mode = handler ]; then
		grep -q '^own handler ran, SIGTERM reads as default$' <<<"$out"
		check $? -eq 0 "  the program's own handler ran; the library's read as SIG_DFL before and after"
	fi
done

out=$(trap '' HUP; "$LWPROF" collect -p off -H on -o "$PRINT_OUT/ignored.er" "$prog" ignored 2>/dev/null); rc=$?
check $rc -eq 0 "an ignored SIGHUP stays ignored: exit 0"
grep -q '^ignored SIGHUP$' <<<"$out"; check $? -eq 0 "  it read as ignored and did nothing"

run kill
check $rc -eq 137 "  it died of SIGKILL"
check "$(csv_field "$csv" main_work 1)" = "" "  its buffers are lost (nothing can catch SIGKILL)"
done_testing
