#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (man/*.1): they render without a warning from man or
# groff, every command of lwprof --help has one (or is in lwprof(1)),
# every option of each command's usage text is described in its page, and
# make install-tools puts them where man finds them.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
command -v man >/dev/null && command -v groff >/dev/null ||
	skip "man-db and groff-base needed (scripts/deps.sh)"
[ -x "$LWPROF" ] || { echo "FAIL: $LWPROF not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# render PAGE: the page as man shows it, plain text, without hyphenation
# (so that words can be looked for); warnings to $tmp/warn.
render() {
	LC_ALL=C.UTF-8 MANWIDTH=80 MANROFFOPT=-rHY=0 man --warnings -E UTF-8 -l "$1" \
		2>"$tmp/warn" | col -b
}

pages=(man/*.1)
check ${#pages[@]} -ge 6 "${#pages[@]} pages"
for p in "${pages[@]}"; do
	name=$(basename "$p" .1)
	render "$p" >"$tmp/$name.txt"
	check "$(cat "$tmp/warn")" = "" "$p: man --warnings renders it silently"
	check "$(groff -man -Tutf8 -ww -z "$p" 2>&1)" = "" "$p: groff -ww: no warning"
	for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -q "^$s\$" "$tmp/$name.txt" || check 0 = 1 "$p: has $s"
	done
	check "$(sed -n '/^NAME$/{n;p;q}' "$tmp/$name.txt" | tr -s ' ' | sed 's/^ //' | cut -d' ' -f1-2)" = "$name -" \
		"$p: NAME line starts \"$name -\""
	check "$(sed -n 's/^\.TH \([^ ]*\) 1 .*/\1/p' "$p" | sed 's/\\-/-/g')" = "${name^^}" "$p: .TH ${name^^} 1"
done

# Every command has a page, and lwprof(1) lists it.
. completion/lwprof.bash
for c in $(_lwprof_commands "$LWPROF"); do
	grep -qE "^       $c\b" "$tmp/lwprof.txt" || check 0 = 1 "lwprof(1) describes the command $c"
	case $c in version|help) continue ;; esac
	check -f "man/lwprof-$c.1" "lwprof $c has its page man/lwprof-$c.1"
	tr -d ' \n' <"$tmp/lwprof.txt" | grep -q "lwprof-$c(1)" ||
		check 0 = 1 "lwprof(1) refers to lwprof-$c(1)"
	[ -f "$tmp/lwprof-$c.txt" ] || continue
	# Every option of the command's usage text (as the completion reads
	# it) is in its page, as a word of its own.
	n=0
	while IFS=$'\t' read -r opt arg; do
		n=$((n + 1))
		grep -qE -- "(^|[^-[:alnum:]_])$opt([^-[:alnum:]_]|\$)" "$tmp/lwprof-$c.txt" ||
			check 0 = 1 "lwprof-$c(1) describes $opt"
	done < <(_lwprof_options "$LWPROF" "$c")
	check $n -gt 0 "lwprof-$c(1): all $n options of lwprof $c's usage described"
done

# make install-tools installs the pages and the completion.
make -s install-tools DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/install.log" 2>&1
check $? -eq 0 "make install-tools DESTDIR=... PREFIX=/usr"
for p in "${pages[@]}"; do
	name=$(basename "$p" .1)
	check "$(MANPATH="$tmp/root/usr/share/man" man -w "$name" 2>&1)" = \
		"$tmp/root/usr/share/man/man1/$name.1" "man -w $name finds the installed page"
done
check -x "$tmp/root/usr/bin/lwprof" "lwprof installed in /usr/bin"
check -x "$tmp/root/usr/libexec/lwprof/lwprof-print" "lwprof-print in /usr/libexec/lwprof"
check -f "$tmp/root/usr/share/bash-completion/completions/lwprof" "bash completion installed"
make -s uninstall DESTDIR="$tmp/root" PREFIX=/usr KVER=none >>"$tmp/install.log" 2>&1
check "$(find "$tmp/root" -type f | wc -l)" -eq 0 "make uninstall removes them ($(find "$tmp/root" -type f | head -3))"
done_testing
