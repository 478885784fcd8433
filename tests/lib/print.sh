# SPDX-License-Identifier: GPL-2.0
# For the analyzer's host tests (lwprof print); source after test.sh.
#
# gen_exp NAME [SCRIPT]: write the synthetic experiment NAME.er under
# $PRINT_OUT from tests/data/exp/NAME.gen (or SCRIPT given on stdin when
# SCRIPT is -), binaries named relative to tests/data.  Prints its path.
#
# golden NAME CMD...: run CMD, with $PRINT_OUT shown as OUT, and compare
# its output with tests/data/golden/NAME (LWPROF_GOLDEN_UPDATE=1 rewrites
# the golden file instead; review the diff before committing it).
#
# csv_field CSV ROWNAME COL: the COL-th field (from 1) of the CSV row whose
# name (last field) is ROWNAME.

GEN=$LWPROF_BUILD/tests/lib/gen_exp
DATA=$LWPROF_TOP/tests/data
PRINT_OUT=$LWPROF_OUT/print/$(basename "$0" .sh)
rm -rf "$PRINT_OUT"
mkdir -p "$PRINT_OUT"
[ -x "$GEN" ] || { echo "FAIL: $GEN not built (run make)"; exit 1; }

gen_exp() {
	local name=$1 src=${2:-$DATA/exp/$1.gen}
	{
		echo "out $PRINT_OUT/$name.er"
		if [ "$src" = - ]; then cat; else cat "$src"; fi
	} | sed "s|^binary \([^ ]*\) \([^/][^ ]*\)$|binary \1 $DATA/\2|" |
		"$GEN" - || { echo "FAIL: gen_exp $name"; exit 1; }
	echo "$PRINT_OUT/$name.er"
}

golden() {
	local name=$1 file=$DATA/golden/$1 out
	shift
	out=$(cd "$LWPROF_TOP" && "$@" 2>&1 | sed "s|$PRINT_OUT|OUT|g; s|$DATA|DATA|g")
	if [ -n "${LWPROF_GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$DATA/golden"
		printf '%s\n' "$out" >"$file"
		echo "ok: golden $name rewritten"
		return
	fi
	if printf '%s\n' "$out" | diff -u "$file" - >"$PRINT_OUT/$name.diff"; then
		echo "ok: golden $name"
	else
		echo "FAIL: golden $name differs:"
		head -n 40 "$PRINT_OUT/$name.diff"
		t_failed=1
	fi
}

csv_field() {
	awk -F, -v row="$2" -v col="$3" '$NF == row { print $col; exit }' <<<"$1"
}
