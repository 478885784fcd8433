#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Page-fault sleeps, each right after dropping the page cache so that the
# file (read from the host over 9p) is cold:
#  - reading a mapped data file page by page: DFAULT > 0;
#  - running 16 MiB of code from the executable: TFAULT > 0;
#  - read() from /dev/zero into an untouched private file mapping: the
#    kernel's copy faults on user memory and waits: KFAULT > 0.
# Each fault time is also at most the wall time of the phase that faulted.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

cold=$LWPROF_BUILD/tests/data/cold.bin
[ -w /proc/sys/vm/drop_caches ] || skip "cannot drop the page cache"
ms_setup fault
check -s "$cold" "$cold exists (make tests)"

drop() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# fault_case NAME COLUMN TRUTHKEY PROG ARGS...
fault_case() {
	local name=$1 col=$2 key=$3 t v
	shift 3
	drop
	ms_dir=$LWPROF_OUT/mstate/fault/$name
	mkdir -p "$ms_dir"
	ms_ptime "$@"
	t=$(ms_tid main)
	v=$(ms_get "$t" "$col")
	echo "# $name: majflt $(ms_truth majflt), $col $(ms_ms "${v:-0}"), phase $(ms_ms "$(ms_truth "$key")")"
	ms_pos "$name: ${col^^} after dropping caches" "$v"
	check "${v:-0}" -le "$(ms_truth "$key")" \
		"$name: ${col^^} ($(ms_ms "${v:-0}")) <= the faulting phase's wall time ($(ms_ms "$(ms_truth "$key")"))"
	ms_check_sums
}

fault_case data dflt touch_ns "$ms_progs/ms_fault" data "$cold"
fault_case text tflt exec_ns "$ms_progs/ms_bigtext"
fault_case kernel kflt touch_ns "$ms_progs/ms_fault" kernel "$cold"
done_testing
