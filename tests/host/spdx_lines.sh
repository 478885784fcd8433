#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every source, script and build file carries an SPDX line near its top.
. "$(dirname "$0")/../lib/test.sh"
cd "$LWPROF_TOP" || exit 1

n=0
while read -r f; do
	case $f in
	*.c|*.h|*.sh|Makefile|Kbuild|*/Makefile|scripts/*|tests/run|.ci/run) ;;
	*) continue ;;
	esac
	n=$((n + 1))
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier: ' ||
		check 0 -eq 1 "$f has an SPDX line"
done < <(git ls-files --cached --others --exclude-standard)
check "$n" -gt 10 "checked $n files"
done_testing
