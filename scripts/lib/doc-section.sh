# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark scripts: each owns a section of
# docs/results/benchmarks.md between two marker lines and rewrites only that.
#
# doc_section DOC BEGIN END FILE: replace the lines from the first one that
# starts with BEGIN to the next one that starts with END (both included)
# with FILE, which carries its own markers; append FILE if DOC has no such
# section.  The rest of DOC stays as it is.
doc_section() {
	local doc=$1 begin=$2 end=$3 sec=$4

	[ -f "$doc" ] || echo "# Benchmarks" >"$doc"
	awk -v b="$begin" -v e="$end" -v sec="$sec" '
	function emit(   l) { while ((getline l < sec) > 0) print l; close(sec); done = 1 }
	!done && !skip && index($0, b) == 1 { skip = 1; next }
	skip && index($0, e) == 1 { skip = 0; emit(); next }
	!skip { print }
	END { if (!done) { print ""; emit() } }' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
}
