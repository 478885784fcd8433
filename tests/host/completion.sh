#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bash completion (completion/lwprof.bash): run _lwprof on command lines
# as bash does and check what it offers against lwprof's own usage texts
# and the files, processes and counters it should offer.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
bc=/usr/share/bash-completion/bash_completion
[ -r $bc ] || skip "bash-completion not installed (scripts/deps.sh)"
[ -x "$LWPROF" ] || { echo "FAIL: $LWPROF not built"; exit 1; }
# shellcheck disable=SC1090
. $bc
. completion/lwprof.bash
check "$(complete -p lwprof)" = "complete -F _lwprof lwprof" "registered for lwprof"
# Outside a real completion compopt fails; what it sets is not tested.
compopt() { :; }

# comp LINE: complete the last word of LINE (a trailing blank: a new,
# empty word) the way readline calls a completion function; prints the
# sorted candidates on one line.
comp() {
	local line=${1/#lwprof/$LWPROF}
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_lwprof lwprof "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# has "WANT..." GOT what: every word of WANT is among GOT.
has() {
	local w missing=""
	for w in $1; do
		[[ " $2 " == *" $w "* ]] || missing+=" $w"
	done
	check "$missing" = "" "$3 (offered: ${2:0:120})"
}

cmds=$("$LWPROF" --help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' | sort | tr '\n' ' ')
check "$(comp "lwprof ")" = "${cmds% }" "lwprof <TAB>: the commands of lwprof --help"
check "$(comp "lwprof co")" = "collect" "lwprof co<TAB>: collect"
check "$(comp "lwprof --v")" = "--version" "lwprof --v<TAB>"

# collect's options: exactly those of its usage text.
want=$("$LWPROF" collect 2>&1 | grep -oE '(^|[ [])--?[a-zA-Z][-a-z]*' |
	sed 's/^[ [ ]*//' | sort -u | tr '\n' ' ')
check "$(comp "lwprof collect -")" = "$(tr ' ' '\n' <<<"$want" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
	"collect -<TAB>: the options of its usage"
has "-p -h -o -d -P -t -a -K --kernel-only --idle --irq --stack-bytes --depth --stack-delta -m -s -H -i --backend -S -l -y -L --flight --flight-signal" \
	"$(comp "lwprof collect -")" "collect -<TAB>: every option on main"
check "$(comp "lwprof collect -p ")" = "hi lo off on" "collect -p <TAB>: on hi lo off"
check "$(comp "lwprof collect --idle o")" = "off on" "collect --idle o<TAB>"
check "$(comp "lwprof collect -K --stack-delta of")" = "off" "an option after another"
check "$(comp "lwprof collect --stack-bytes ")" = "" "collect --stack-bytes <TAB>: a number, nothing offered"
check "$(comp "lwprof collect -S ")" = "off on" "collect -S <TAB>: on off (or seconds)"
check "$(comp "lwprof collect -L ")" = "unlimited" "collect -L <TAB>: unlimited (or MB)"
check "$(comp "lwprof collect -s ")" = "all off on" "collect -s <TAB>: on off all (or a number)"
check "$(comp "lwprof collect -H ")" = "off on" "collect -H <TAB>"
check "$(comp "lwprof collect -i o")" = "off on" "collect -i o<TAB>"
check "$(comp "lwprof collect --backend ")" = "auto module perf" "collect --backend <TAB>"

counters=$("$LWPROF" collect -h 2>/dev/null | sed -n 's/^\([a-z][-a-z0-9_]*\),[0-9].*/\1/p' | sort -u | tr '\n' ' ')
check "$counters" != "" "collect -h lists counters ($counters)"
check "$(comp "lwprof collect -h ")" = "${counters% }" "collect -h <TAB>: this machine's counters"
has "cpu-clock,on cpu-clock,page-faults" "$(comp "lwprof collect -h cpu-clock,")" \
	"collect -h cpu-clock,<TAB>: an interval or the next counter"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/dir1" "$tmp/a.er" "$tmp/b.er"
touch "$tmp/file1" "$tmp/cpu.0.rec"
check "$(cd "$tmp" && comp "lwprof collect -d ")" = "a.er b.er dir1" "collect -d <TAB>: directories only"
sleep 30 &
pid=$!
has "$pid $$" "$(comp "lwprof collect -P ")" "collect -P <TAB>: process ids"
has "$pid" "$(comp "lwprof ptime -p ${pid:0:2}")" "ptime -p <TAB>: process ids"
kill $pid

# The command collect and ptime run, and its own arguments.
has "cat" "$(comp "lwprof collect -p 1ms ca")" "collect -p 1ms ca<TAB>: commands"
has "sleep" "$(comp "lwprof ptime -m slee")" "ptime -m slee<TAB>: commands"
check "$(cd "$tmp" && comp "lwprof collect -K ls fi")" = "file1" "collect ... ls fi<TAB>: ls's files"
# ls's own completion (bash-completion's _longopt) after collect's options.
has "--color" "$(comp "lwprof collect -o x.er -p hi ls --colo")" \
	"collect ... ls --colo<TAB>: the command's own options"

check "$(comp "lwprof ptime -")" = "--backend -L -m -p" "ptime -<TAB>"
check "$(comp "lwprof ptime --backend ")" = "auto module perf" "ptime --backend <TAB>"
# top's --backend is on the second line of its usage.
check "$(comp "lwprof top -")" = "--backend -b -d -l -n -p -s" "top -<TAB>"
check "$(comp "lwprof top -b --backend p")" = "perf" "top -b --backend p<TAB>"
has "USR SYS TRP LCK SLP LAT VCX SIG" "$(comp "lwprof top -s ")" "top -s <TAB>: columns"
check "$(comp "lwprof top -s U")" = "USR" "top -s U<TAB>"
check "$(comp "lwprof dump -")" = "-s" "dump -<TAB>"
check "$(cd "$tmp" && comp "lwprof dump ")" = "a.er b.er cpu.0.rec dir1" "dump <TAB>: experiments and .rec files"

# print: er_print's commands from lwprof print -help.
pcmds=$("$LWPROF" print -help 2>&1 | sed -n '/^commands:/,$s/^  \([a-z_-]*\) .*/-\1/p' | sort -u | tr '\n' ' ')
check "$(comp "lwprof print -")" = "${pcmds% }" "print -<TAB>: the commands of print -help"
has "-functions -callers-callees -metrics -filters -sample_list" "$(comp "lwprof print -")" "print -<TAB>: the usual views"
check "$(comp "lwprof print -fu")" = "-functions" "print -fu<TAB>"
check "$(comp "lwprof print -printmode ")" = "csv text" "print -printmode <TAB>"
check "$(comp "lwprof print -inline ")" = "off on" "print -inline <TAB>"
has "-heap -leaks -allocs -heapstat -ioactivity -iodetail -iocallstack -iostat -compare" \
	"$(comp "lwprof print -")" "print -<TAB>: the tracing views and -compare"
check "$(comp "lwprof print -compare ")" = "delta off on ratio" "print -compare <TAB>"
check "$(cd "$tmp" && comp "lwprof print -limit 5 ")" = "a.er b.er dir1" "print <TAB>: experiments (directories)"
check "$(cd "$tmp" && comp "lwprof print -script fi")" = "file1" "print -script <TAB>: files"
check "$(comp "lwprof version ")" = "" "version takes nothing"

# export: FORMAT, -o FILE and print's settings (lwprof export -h).
check "$(comp "lwprof export ")" = "folded html perfetto pprof" "export <TAB>: the formats"
check "$(comp "lwprof export p")" = "perfetto pprof" "export p<TAB>"
check "$(comp "lwprof export pprof -")" = "-cpu_select -filters -inline -metrics -name -o -rank_select -thread_select -viewmode" \
	"export pprof -<TAB>: -o and the settings"
check "$(comp "lwprof export folded -o x -name ")" = "long short" "export ... -name <TAB>"
check "$(cd "$tmp" && comp "lwprof export html -o fi")" = "file1" "export ... -o fi<TAB>: files"
check "$(cd "$tmp" && comp "lwprof export pprof -o x.pb.gz ")" = "a.er b.er dir1" \
	"export FORMAT -o FILE <TAB>: experiments (directories)"
done_testing
