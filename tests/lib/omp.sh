# SPDX-License-Identifier: GPL-2.0
# Helpers for the OpenMP tests (tests/host/omp_*.sh; source tests/lib/test.sh
# first): build a workload of tests/progs/omp/ with clang -fopenmp (LLVM's
# libomp) or gcc -fopenmp (libgomp), skipping when the compiler or the
# runtime is missing.

omp_src=$LWPROF_TOP/tests/progs/omp

# omp_setup NAME: a fresh $LWPROF_OUT/NAME as omp_dir and the working
# directory; skips without perf or clang's OpenMP.
omp_setup() {
	omp_dir=$LWPROF_OUT/$1
	rm -rf "$omp_dir"
	mkdir -p "$omp_dir"
	cd "$omp_dir" || exit 1
	pb_need
	omp_need_clang
}

# omp_need_clang: skip unless clang builds an OpenMP program on libomp.
omp_need_clang() {
	command -v clang >/dev/null || skip "no clang (scripts/deps.sh installs it)"
	echo 'int main(void){return 0;}' >"$omp_dir/probe.c"
	clang -fopenmp -o "$omp_dir/probe" "$omp_dir/probe.c" 2>/dev/null ||
		skip "clang -fopenmp does not link: no libomp (libomp-14-dev)"
}

# omp_build CC NAME: $omp_dir/NAME.CC from tests/progs/omp/NAME.c, bound
# at load (-z now): a first call's lazy binding would lie between the
# program's clock read and the runtime's, in what the program timed
omp_build() {
	"$1" -g -O1 -fopenmp -Wl,-z,now -o "$omp_dir/$2.$1" "$omp_src/$2.c" ||
		{ echo "FAIL: $1 -fopenmp $2.c"; exit 1; }
}

# omp_frac PART WHOLE: PART / WHOLE in parts per ten thousand
omp_frac() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b > 0 ? a * 10000 / b : 0) }'
}

# omp_waits_check EXP PROG.OUT WHAT NREPORTS: each "wait TID WAITS NS N
# SLACK" line the program printed (its own measure, truth.h, of N waits
# in <OMP-WAITS>, several joined by '+') against the OpenMP Wait the
# experiment charges to thread TID at those pseudo-functions: within 2%,
# and 50 us a wait (the program's clock reads and the tool's sit on
# either side of the runtime's entry and exit), and 0.5 ms a
# pseudo-function (print shows ms).  Below that by at most SLACK, the
# time the thread waited for a CPU around its measures: one preempted
# between its clock read and the runtime's measured more than the
# runtime waited, and cannot tell.
omp_waits_check() {
	local exp=$1 out=$2 what=$3 nrep=$4 tid waits ns n slack got tol

	check "$(grep -c '^wait ' "$out")" -eq "$nrep" "$what: $nrep measures reported"
	while read -r _ tid waits ns n slack; do
		got=$("$LWPROF" print -filters "TID == $tid" -printmode csv \
			-metrics e.ompwait:name -functions "$exp" 2>/dev/null |
			awk -F, -v w="+$waits+" '
				{ n = $2; sub(/^<OMP-/, "", n); sub(/>$/, "", n) }
				index(w, "+" n "+") { s += $1 }
				END { printf "%.0f", s * 1e9 }')
		tol=$((ns / 50 + n * 50000 + $(tr -cd + <<<"$waits" | wc -c) * 500000 + 500000))
		check "${got:-0}" -ge $((ns - tol - slack)) "$what: thread $tid waited ${got:-0} ns in $waits, measured $ns (-$tol, -$slack waiting for a CPU)"
		check "${got:-0}" -le $((ns + tol)) "$what: thread $tid ... at most $ns (+$tol)"
	done < <(grep '^wait ' "$out")
}

# omp_run NAME THREADS PROG.CC WHAT ROUNDS UNIT_MS NREPORTS [ENV...]:
# collect $omp_dir/PROG.CC WHAT ROUNDS UNIT_MS with the perf backend into
# NAME.er (its output NAME.out; a gcc-built one on libomp), then
# omp_waits_check it.
omp_run() {
	local name=$1 nthr=$2 prog=$3 what=$4 rounds=$5 unit=$6 nrep=$7 rt=()

	shift 7
	[ "${prog##*.}" = gcc ] && rt=(--omp-runtime llvm)
	env OMP_NUM_THREADS="$nthr" "$@" "$LWPROF" collect --backend perf \
		"${rt[@]}" -p 1ms -o "$name.er" "./$prog" "$what" "$rounds" "$unit" \
		>"$name.out" 2>"$name.err"
	check $? -eq 0 "$name: collect"
	sed 's/^/#   /' "$name.err"
	omp_waits_check "$name.er" "$name.out" "$name" "$nrep"
}

# omp_blame_check EXP PROG.OUT WHAT: each "blame TID NS N SLACK" line
# (tests/progs/omp/imbal: the others' measured waits at the N barriers
# TID came to last) against OpenMP Imbalance charged to thread TID,
# within omp_waits_check's bounds and SLACK either way; most of it in
# work() (inclusive: its clock reads), what the thread was doing before
# it came.  Not all: the blame goes by thread time, and on a busy machine
# the thread also waits for a CPU in the program's measuring (its
# schedstat reads are system calls), which takes its share there.
omp_blame_check() {
	local exp=$1 out=$2 what=$3 tid ns n slack got at tol

	check "$(grep -c '^blame ' "$out")" -ge 2 "$what: blame reported"
	while read -r _ tid ns n slack; do
		"$LWPROF" print -filters "TID == $tid" -printmode csv \
			-metrics i.ompimbal:name -functions "$exp" >blame.csv 2>/dev/null
		got=$(awk -F, '$2 == "<Total>" { printf "%.0f", $1 * 1e9 }' blame.csv)
		at=$(awk -F, '$2 == "work" { printf "%.0f", $1 * 1e9 }' blame.csv)
		tol=$((ns / 50 + n * 50000 + 500000 + slack))
		check "${got:-0}" -ge $((ns - tol)) "$what: thread $tid blamed ${got:-0} ns for $n barriers, measured $ns (-$tol)"
		check "${got:-0}" -le $((ns + tol)) "$what: thread $tid ... at most $ns (+$tol)"
		check "$(omp_frac "${at:-0}" "${got:-0}")" -ge $([ "${got:-0}" -gt 1000000 ] && echo 5000 || echo 0) \
			"$what: thread $tid: work() holds ${at:-0} ns of it"
	done < <(grep '^blame ' "$out")
}

# omp_have_gcc: gcc -fopenmp builds (the programs then run on libomp)
omp_have_gcc() {
	command -v gcc >/dev/null && gcc -fopenmp -o "$omp_dir/probe.gcc" \
		"$omp_dir/probe.c" 2>/dev/null
}
