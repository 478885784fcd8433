#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf backend's call stacks, on this host without the module:
#  - er_print's worked example (tests/progs/seed_example, 50 ms units, 1 ms
#    clock): each function's inclusive Total CPU as a share of main's
#    within 3 points of the share of CPU time it took by its own clock
#    reads, the module's own tolerance (guest/print_seed);
#  - Debian's gzip (no frame pointers) through libc: every sample unwound
#    from the user registers and stack copy by DWARF CFI, the cache and
#    libdwfl agreeing on every one, and the walks reaching main;
#  - following fork and exec: sh runs cpu_burn twice (0.3 s, then 2 x
#    0.2 s of CPU) beside a spinner on every CPU, so that its threads are
#    preempted hundreds of times as on a loaded machine, at the default
#    rate: no record lost (perf's rings and the converter keep up), both
#    processes and all three threads seen, cpu_burn archived, the threads' CPU time
#    at least the 0.7 s their CPU clocks reached, less 1 ms (no upper
#    bound here: each thread reads its clock only every million
#    additions, and a stall of the TCG guest's vCPU between two reads
#    overshoots by the stall; host/perf_mstate bounds CPU time both ways
#    against ms_cpu's own clock reads).  The kernel charges a switch's own
#    work to the thread that takes the CPU; with sched:sched_switch the
#    backend does too, without it (no CAP_PERFMON) that work, 10-25 us a
#    switch on this project's virtual host, is in Wait CPU, and only CPU
#    and Wait CPU together are held to the 0.7 s;
#  - delta stack copies: a quarter or less of the bytes, every base found,
#    the walks reaching main as with gzip;
#  - attaching (-P) to a running cpu_burn: its threads and mappings
#    (from /proc) and its samples in burn().
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"
. "$(dirname "$0")/../lib/perfbe.sh"
. "$(dirname "$0")/../lib/seed.sh"
. "$(dirname "$0")/../lib/unwind_real.sh"

pb_need
declare -A bytes share
ms_dir=$LWPROF_OUT/perf_stacks
rm -rf "$ms_dir"
mkdir -p "$ms_dir"
cd "$ms_dir" || exit 1

pb_collect seed -p 1ms -- "$ms_progs/seed_example" 50
seed_check_shares seed.er "$ms_dir/prog.out" seed

if command -v gzip >/dev/null; then
	# 16 MiB: about 0.4 s of gzip -9 on a fast host, 400 samples at 1 ms
	head -c 16M "$LWPROF_BUILD/tests/data/cold.bin" >in.bin
	"$LWPROF" collect --backend perf -p 1ms -o gz.er gzip -9 -c in.bin >/dev/null 2>gz.err
	check $? -eq 0 "collect --backend perf gzip -9 (16 MiB)"
	unwind_check_walks gz.er i.totalcpu gzip
	# a sample the walk cannot start from (its exit) keeps perf's chain
	check "$(unwind_num unwound)" -ge $((${unwind_n:-0} * 95 / 100)) "gzip: 95% or more unwound by CFI ($(unwind_num unwound) of $unwind_n)"
else
	echo "# no gzip: its unwinding is not checked"
fi

spinners=()
for _ in $(seq "$(nproc)"); do
	"$ms_progs/spin" 30 &
	spinners+=($!)
done
pb_collect forkexec -- sh -c "$ms_progs/cpu_burn 0.3 >/dev/null; $ms_progs/cpu_burn 0.2 2 >/dev/null"
kill "${spinners[@]}"
wait "${spinners[@]}" 2>/dev/null
check "$(sed -n 's/^lost = //p' forkexec.er/log.txt)" -eq 0 "fork/exec: no record lost at the default rate beside the spinners"
tl=$("$LWPROF" print -thread_list forkexec.er)
echo "$tl" | sed 's/^/# /'
check "$(awk '$5 == "cpu_burn" { print $3 }' <<<"$tl" | sort -u | wc -l)" -eq 2 "fork/exec: two cpu_burn processes"
check "$(awk '$5 == "cpu_burn"' <<<"$tl" | wc -l)" -eq 3 "fork/exec: three cpu_burn threads"
check "$(awk '$5 == "sh" || $5 == "dash"' <<<"$tl" | wc -l)" -ge 1 "fork/exec: and the shell"
grep -q "/cpu_burn\$" forkexec.er/archives/index.txt
check $? -eq 0 "fork/exec: cpu_burn archived (from its exec's mappings)"
"$LWPROF" print -statistics forkexec.er >forkexec.stat
pb_stat=forkexec.stat
c=0 w=0
for t in $(awk '$5 == "cpu_burn" { print $4 }' <<<"$tl"); do
	c=$((c + $(pb_get "$t" "User CPU") + $(pb_get "$t" "System CPU")))
	w=$((w + $(pb_get "$t" "Wait CPU")))
done
if grep -q '^offcpu_wakeups = .*sched:sched_switch' forkexec.er/log.txt; then
	check "$c" -ge 699000000 "fork/exec: the cpu_burn threads' CPU $(ms_ms "$c") >= the 0.7 s they burned - 1 ms (sched:sched_switch)"
else
	echo "# no sched:sched_switch: the switches' work is in Wait CPU ($(ms_ms "$w") of it)"
	check $((c + w)) -ge 699000000 "fork/exec: the cpu_burn threads' CPU and Wait CPU $(ms_ms $((c + w))) >= the 0.7 s they burned - 1 ms"
fi

# delta stack copies (the default) against full ones: the same profile,
# and a flat loop's copies differ from the previous in a block or two of
# 8 KiB (the module's guest/collect_sdelta sees a tenth of the bytes):
# at most a quarter of the bytes per clock sample (the two runs' counts
# differ with the machine's load)
for m in on off; do
	"$LWPROF" collect --backend perf -p 1ms --stack-delta $m -o sd-$m.er \
		"$ms_progs/cpu_burn" 0.3 >/dev/null 2>&1
	check $? -eq 0 "collect --stack-delta $m cpu_burn 0.3"
	bytes[$m]=$(cat sd-$m.er/cpu.*.rec | wc -c)
	nsamp[$m]=$("$LWPROF" dump sd-$m.er | grep -c ' SAMPLE clock ')
	share[$m]=$("$LWPROF" print -printmode csv -metrics i.totalcpu:e.totalcpu:name \
		-filters 'inStack("burn")' -functions sd-$m.er 2>sd-$m.err |
		awk -F, '$NF == "__libc_start_call_main" { b = $1 } $NF == "<Total>" { t = $1 }
			END { if (t > 0) printf "%.0f", 100 * b / t }')
done
check "$("$LWPROF" dump sd-on.er | grep -c 'flags=[A-Z|]*SDELTA')" -gt 100 "delta copies: more than 100 SDELTA samples"
check "${nsamp[on]}" -gt 0 "delta copies: clock samples (${nsamp[on]})"
check $((bytes[on] * 4 * nsamp[off])) -le $((bytes[off] * nsamp[on])) \
	"delta copies: ${bytes[on]} bytes / ${nsamp[on]} samples, at most a quarter of full copies' ${bytes[off]} / ${nsamp[off]}"
# (how much reaches main at all is gzip's check above).  Over the CPU
# in burn(), which main calls: the rest of the run (the dynamic loader,
# the exit) varies with the host's load, which in the TCG guest once
# stalled the vCPU in the loader for 0.2 s of cpu_burn's 0.3 s (its CPU
# clock counts the stall) and left 8 ms for burn().
check "${share[on]:-0}" -ge $((${share[off]:-0} - 2)) "delta copies: the walks from burn() reach main in ${share[on]:-0}% of its CPU, as full copies' ${share[off]:-0}% (- 2 points, run to run)"
check ! -s sd-on.err "delta copies: print finds every base (no warning)"

"$ms_progs/cpu_burn" 30 2 >/dev/null &
bp=$!
sleep 0.5
"$LWPROF" collect --backend perf -P "$bp" -t 1 -o attach.er 2>attach.err
check $? -eq 0 "attach: collect -P (cpu_burn, 2 threads) -t 1"
kill "$bp"
wait "$bp" 2>/dev/null
tl=$("$LWPROF" print -thread_list attach.er)
echo "$tl" | sed 's/^/# /'
check "$(awk -v p="$bp" '$3 == p' <<<"$tl" | wc -l)" -eq 2 "attach: both threads of $bp"
b=$("$LWPROF" print -printmode csv -metrics i.total:name -functions attach.er |
	awk -F, '$NF == "burn" { b = $1 } $NF == "<Total>" { t = $1 } END { if (t > 0) printf "%.0f", 100 * b / t }')
check "${b:-0}" -ge 99 "attach: burn() on the stack of ${b:-0}% of the threads' time (mappings from /proc)"
done_testing
