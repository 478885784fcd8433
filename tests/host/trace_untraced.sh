#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Descendants the tracing library cannot enter are named, never lost
# silently (docs/design/tracing.md): tests/progs/trace_untraced starts a
# statically linked program by fork + exec, posix_spawn, an exec that
# fails (an argument over the kernel's limit) before one that succeeds,
# a script whose interpreter is it, and popen's shell exec'ing it; a
# set-user-ID program of another user (as root); system() from an
# environment it took LD_PRELOAD out of.  It prints each case it made
# ("untraced PID PATH KIND"): collect must warn of exactly those, once
# each, in log.txt and on stderr, print -statistics list them, and dump
# show the records.  Programs it starts with environments of its own
# making (execle with none, posix_spawn with one variable) must be traced
# all the same: their leaks exact.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

prog=$LWPROF_BUILD/tests/progs/trace_untraced
st=$LWPROF_BUILD/tests/progs/trace_static
script=$PRINT_OUT/static_script
printf '#!%s\n' "$st" >"$script" && chmod 755 "$script"
su=
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	su=$PRINT_OUT/setuid_prog
	cp "$prog" "$su" && chown nobody "$su" && chmod 4755 "$su"
	# nobody must reach it
	chmod o+x "$PRINT_OUT" "$(dirname "$PRINT_OUT")"
fi

exp=$PRINT_OUT/u.er
out=$("$LWPROF" collect -p off -H on -o "$exp" "$prog" "$st" "$script" $su \
	2>"$PRINT_OUT/collect.err"); rc=$?
check $rc -eq 0 "collect -H on a program starting untraceable ones"
n=$([ -n "$su" ] && echo 7 || echo 6)
check "$(grep -c '^untraced ' <<<"$out")" -eq "$n" "it made $n of them"

# what each case must read, as collect and print word it
expect() {
	local pid ppid path kind why
	while read -r _ pid a b c; do
		if [ "$pid" = 0 ]; then ppid=$a path=$b kind=$c; else path=$a kind=$b; fi
		case $kind in
		static) why="is statically linked" ;;
		setuid) why="is set-user-ID to another user (the dynamic linker ignores LD_PRELOAD)" ;;
		env) why="runs from an environment without the tracing library's LD_PRELOAD or settings" ;;
		esac
		if [ "$pid" = 0 ]; then
			echo "a child of process $ppid (system, popen): $path $why: not traced"
		else
			echo "process $pid: $path $why: not traced"
		fi
	done < <(grep '^untraced ' <<<"$out") | sort
}
want=$(expect)
got=$(sed -n 's/^warning = tracing: \(.* not traced\)$/\1/p' "$exp/log.txt" | sort)
check "$got" = "$want" "log.txt warns of exactly those, once each"
got=$(sed -n 's/^lwprof collect: warning: tracing: \(.* not traced\)$/\1/p' "$PRINT_OUT/collect.err" | sort)
check "$got" = "$want" "  and so does collect on stderr"
stats=$("$LWPROF" print -statistics "$exp" 2>"$PRINT_OUT/print.err")
check "$(grep -c . "$PRINT_OUT/print.err")" -eq 0 "print: no warnings"
got=$(sed -n '/^Not traced: /,/^$/s/^  //p' <<<"$stats" | sort)
check "$got" = "$want" "-statistics lists them"
hdr=$("$LWPROF" print -header "$exp" 2>/dev/null)
check "$(grep -c '^  Warning: *tracing: .* not traced$' <<<"$hdr")" -eq "$n" "-header shows the $n warnings"
# the failed exec's record and the one taking it back, then the real one
d=$("$LWPROF" dump "$exp" 2>/dev/null)
check "$(grep -c ': UNTRACED .* reason=7 ' <<<"$d")" -eq 1 "dump: the failed exec taken back once"
check "$(grep -c ': UNTRACED ' <<<"$d")" -eq $((n + 2)) "  besides its announcement and the $n"
grep -Eq "^total: [0-9]+ TRACE, [0-9]+ FILE, $((n + 2)) UNTRACED(, [0-9]+ STACK)?$" <<<"$d"
check $? -eq 0 "  counted in dump's total"

# the programs started without LD_PRELOAD in their environment: traced
csv=$("$LWPROF" print -printmode csv -metrics i.heapleakcnt:i.heapleakbytes:name \
	-functions "$exp" 2>/dev/null)
check "$(grep -c '^truth ' <<<"$out")" -eq 3 "three traced processes said their truth"
while read -r _ f k b; do
	check "$(csv_field "$csv" "$f" 1) $(csv_field "$csv" "$f" 2)" = "$k $b" "$f: $k leaks, $b bytes"
done < <(grep '^truth ' <<<"$out")
done_testing
