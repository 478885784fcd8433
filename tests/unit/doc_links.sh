#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every page the tree points a reader to is there: each path of a docs page
# named in a tracked file, and each relative link of the markdown pages
# (README, CONTRIBUTING, docs/), resolved from the page that holds it.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"

n=0
while IFS=: read -r f p; do
	n=$((n + 1))
	[ -e "$p" ] || check 0 -eq 1 "$f names $p, which is not there"
done < <(git grep -oE 'docs/[A-Za-z0-9/_.-]+\.md' -- ':!tests/out' | sort -u)
check "$n" -gt 20 "$n docs/ paths named in the tree"

m=0
while read -r page; do
	dir=$(dirname "$page")
	while read -r target; do
		target=${target%%#*}
		[ -n "$target" ] || continue
		m=$((m + 1))
		[ -e "$dir/$target" ] || check 0 -eq 1 "$page links to $target, which is not there"
	done < <(grep -oE '\]\([^):]+\)' "$page" | sed 's/^](//; s/)$//')
done < <(git ls-files '*.md')
check "$m" -gt 20 "$m relative links in the markdown pages"
done_testing
