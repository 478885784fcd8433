#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect on the real module: fork + exec children and a 64-thread
# program are recorded with their names; a library dlopen'd mid-run is in
# the map records, its samples fall inside it, and it is archived; a
# machine-wide run leaves the recorder out; bad options are one line.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_tasks

# A shell that starts sleep in the background and nthreads (64 threads)
# in the foreground: every process and thread is recorded with its name.
"$LWPROF" collect -o fam.er sh -c "/bin/sleep 0.3 & $progs/nthreads 64 100 >/dev/null; wait" 2>err.txt
check $? -eq 0 "collect sh -c 'sleep & nthreads 64' exits 0 ($(cat err.txt))"
"$LWPROF" dump fam.er >fam.dump 2>&1; check $? -eq 0 "  a sound experiment"
sh=$(key fam.er target)
grep -q ": TASK start .* pid=$sh tid=$sh .*" fam.dump; check $? -eq 0 "  the shell's TASK start"
# Accounting of the command begins at its exec (LWPROF_ATTACH_EXEC): the
# forked child's wait for collect to be ready is collect's time.
tx=$(grep ": TASK exec .* pid=$sh tid=$sh " fam.dump | field t | head -n 1)
check -n "$tx" "  the shell's exec"
n=$(grep ": SAMPLE clock .* pid=$sh tid=$sh " fam.dump | field t |
	awk -v x="$tx" '$1 + 0 < x + 0' | wc -l)
check "$n" -eq 0 "  no clock packet of the shell before its exec at $tx"
np=$(grep ': TASK exec .* comm="nthreads"' fam.dump | field pid | head -n 1)
check -n "$np" "  nthreads' exec, with its name"
grep -q ": TASK fork .* pid=$np tid=$np ppid=$sh " fam.dump
check $? -eq 0 "  nthreads was forked by the shell"
sp=$(grep ': TASK exec .* comm="sleep"' fam.dump | field pid | head -n 1)
check -n "$sp" "  sleep's exec, with its name"
n=$(grep ": TASK fork .* pid=$np " fam.dump | grep -v "tid=$np " | grep -c 'comm="nthreads"')
check "$n" -eq 64 "  64 new threads of nthreads, named"
n=$(awk -v p="$np" '$1 == p && $NF == "nthreads"' fam.er/usage.txt | wc -l)
check "$n" -eq 65 "  usage.txt: the 65 threads of nthreads"
n=$(grep ": SAMPLE clock .* pid=$np " fam.dump | field tid | sort -u | wc -l)
check "$n" -eq 65 "  every one of them has clock packets"
grep -q "^[0-9a-f-]*  .*  /bin/sleep$\|/sleep$" fam.er/archives/index.txt
check $? -eq 0 "  sleep is archived"

# dlopen after 1 s of CPU: its mapping is recorded when it is made, the
# samples in crc32 fall inside it, and the library is archived.
"$LWPROF" collect -o dl.er "$progs/dl_late" 1 >crc.txt 2>err.txt
check $? -eq 0 "collect dl_late 1 exits 0 ($(cat err.txt))"
"$LWPROF" dump dl.er >dl.dump 2>&1; check $? -eq 0 "  a sound experiment"
crc=$(cat crc.txt)
# (lwprof itself maps libz through libelf: the child's mapping before its
# exec is recorded too; dl_late's is the latest, in whichever CPU's file.)
m=$(grep ': MMAP .* path=.*/libz\.so\.1[.0-9]*$' dl.dump |
	awk '{ t = $3; sub(/^t=/, "", t); if (t + 0 > best) { best = t + 0; line = $0 } } END { print line }')
check -n "$m" "  a MMAP record for libz: $m"
start=$(field start <<<"$m") len=$(field len <<<"$m")
python3 -c "import sys; c,s,l=(int(x,16) for x in sys.argv[1:]); sys.exit(not s <= c < s + l)" "$crc" "$start" "$len"
check $? -eq 0 "  crc32 ($crc) is inside it"
t0=$(grep -m1 ': SAMPLE clock ' dl.dump | field t)
tm=$(field t <<<"$m")
awk -v a="$tm" -v b="$t0" 'BEGIN { exit !(a > b + 0.5) }'
check $? -eq 0 "  it was recorded mid-run ($tm s, first sample $t0 s)"
n=$(sed -n 's/^  ip\[0\] //p' dl.dump |
	python3 -c "import sys; s,l=int(sys.argv[1],16),int(sys.argv[2],16); print(sum(1 for x in sys.stdin if s <= int(x,16) < s + l))" "$start" "$len")
check "$n" -ge 20 "  $n samples have their pc inside libz"
lib=$(sed -n 's/.* path=//p' <<<"$m")
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: //p')
line=$(grep "  $lib\$" dl.er/archives/index.txt)
check "${line%% *}" = "$id" "  libz is archived under its build-id"
cmp -s "dl.er/archives/$(awk '{ print $5 }' <<<"$line")" "$lib"
check $? -eq 0 "  an identical copy"
check -z "$(grep '^warning' dl.er/log.txt)" "  no warnings ($(grep '^warning' dl.er/log.txt | head -n 3))"

# Counter overflow profiling, page-faults every fault: the target's packets
# after its exec match perf stat's count of the same faults (perf runs it,
# under collect), within 2%.  Without stack copies (--stack-bytes 0): perf's start-up
# faults thousands of times in a burst, and 8 KiB copies would overflow
# the rings.
"$LWPROF" collect -o pf.er -p off --stack-bytes 0 -h page-faults,1 perf stat -e page-faults \
	-x, -o pf.stat -- "$progs/touch_pages" 5000 >pid.txt 2>err.txt
check $? -eq 0 "collect -p off -h page-faults,1 exits 0 ($(cat err.txt))"
check "$(key pf.er counter)" = "page-faults,1,1,0x2" "  log: counter = page-faults,1,1,0x2"
check "$(key pf.er lost)" = 0 "  lost 0"
"$LWPROF" dump pf.er >pf.dump 2>&1; check $? -eq 0 "  a sound experiment"
pid=$(cat pid.txt)
tx=$(grep ": TASK exec .* pid=$pid tid=$pid " pf.dump | field t | tail -n 1)
n=$(grep ": SAMPLE counter=0 t=[0-9.]* pid=$pid " pf.dump | field t |
	awk -v x="$tx" '$1 + 0 >= x + 0' | wc -l)
ps=$(awk -F, '$3 == "page-faults" || $3 ~ /^page-faults/ { print $1 }' pf.stat)
within "$n" "$ps" 2; check $? -eq 0 "  $n page-fault packets after exec, perf stat counted $ps (+- 2%)"
check "$(grep -c ': SAMPLE clock ' pf.dump)" -eq 0 "  -p off: no clock packets"

# -K: packets taken in the kernel (dd reading /dev/zero) carry kernel
# frames, all kernel addresses; without -K none do.
"$LWPROF" collect -o k.er -K -p 1ms dd if=/dev/zero of=/dev/null bs=1M count=300 2>err.txt
check $? -eq 0 "collect -K dd exits 0"
check "$(key k.er kernel_stacks)" = 1 "  log: kernel_stacks = 1"
"$LWPROF" dump k.er >k.dump 2>&1
n=$(grep -c ': SAMPLE clock .* flags=[A-Z|]*KMODE.* kframes=[1-9]' k.dump)
check "$n" -ge 10 "  $n packets in the kernel with kernel frames"
n=$(sed -n 's/^  kip\[[0-9]*\] //p' k.dump | grep -vc '^0xffff[89a-f]')
check "$n" -eq 0 "  every kernel frame is a kernel address"
grep -q '^  kip' dl.dump; check $? -ne 0 "without -K: no kernel frames"

# The whole machine for 1 s, with a busy program: it is recorded, and so
# is the recorder, as perf record -a's is (the machine's time adds up:
# docs/design/kernel-profiling.md); it wakes at least every 250 ms to flush.
"$progs/spin" 60 & spid=$!
"$LWPROF" collect -o all.er -a -t 1 2>err.txt & cpid=$!
wait $cpid; rc=$?
kill $spid 2>/dev/null; wait $spid 2>/dev/null
check $rc -eq 0 "collect -a -t 1 exits 0 ($(cat err.txt))"
"$LWPROF" dump all.er >all.dump 2>&1; check $? -eq 0 "  a sound experiment"
n=$(grep -c ": SAMPLE clock .* pid=$spid " all.dump)
check "$n" -ge 20 "  a program that was already busy is sampled ($n packets in 1 s at 10 ms)"
check "$(grep -c ": SAMPLE clock .* pid=$cpid " all.dump)" -ge 1 "  the recorder is in it"
check "$(key all.er mode)" = machine "  mode = machine"

# Bad options: one line, exit 2, with the valid choices.
err=$("$LWPROF" collect -p 5s true 2>&1); rc=$?
check $rc -eq 2 "-p 5s exits 2"
check "$(wc -l <<<"$err")" -eq 1 "  one line: $err"
if "$LWPROF" collect -h | grep -q '^No HW counters'; then
	err=$("$LWPROF" collect -h cycles true 2>&1); rc=$?
	check $rc -eq 2 "-h cycles without a PMU exits 2"
	check "$(wc -l <<<"$err")" -eq 1 "  one line: $err"
fi
err=$("$LWPROF" collect -h nosuch true 2>&1); rc=$?
check $rc -eq 2 "-h nosuch exits 2"
grep -q "valid: cpu-clock, task-clock" <<<"$err"; check $? -eq 0 "  lists the valid counters"

collect_done
