# SPDX-License-Identifier: GPL-2.0
# Helpers for the OpenMP tests (tests/host/omp_*.sh; source tests/lib/test.sh
# first): build a workload of tests/progs/omp/ with clang -fopenmp (LLVM's
# libomp) or gcc -fopenmp (libgomp), skipping when the compiler or the
# runtime is missing.

omp_src=$LWPROF_TOP/tests/progs/omp

# omp_need_clang: skip unless clang builds an OpenMP program on libomp.
omp_need_clang() {
	command -v clang >/dev/null || skip "no clang (scripts/deps.sh installs it)"
	echo 'int main(void){return 0;}' >"$omp_dir/probe.c"
	clang -fopenmp -o "$omp_dir/probe" "$omp_dir/probe.c" 2>/dev/null ||
		skip "clang -fopenmp does not link: no libomp (libomp-14-dev)"
}

# omp_build CC NAME: $omp_dir/NAME.CC from tests/progs/omp/NAME.c
omp_build() {
	"$1" -g -O1 -fopenmp -o "$omp_dir/$2.$1" "$omp_src/$2.c" ||
		{ echo "FAIL: $1 -fopenmp $2.c"; exit 1; }
}

# omp_frac PART WHOLE: PART / WHOLE in parts per ten thousand
omp_frac() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b > 0 ? a * 10000 / b : 0) }'
}
