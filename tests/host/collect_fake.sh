#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lwprof collect -> lwprof dump on the host, against the fake module's rings
# (tests/lib/fake_ring.c describes every record it writes).  The truth is
# the fake's own copy of the bytes it published: the experiment's files
# must hold exactly those bytes, with small rings that wrap hundreds of
# times, plus the log, usage and archives the recorder adds.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
[ -e "$fake" ] || { echo "FAIL: $fake not built (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
lw() { LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" "$@"; }
# The command waits until the fake has written everything.
waiter=(sh -c 'until [ -e "$0" ]; do sleep 0.01; done; exit 3' "$tmp/done")

export FAKE_LWPROF_LOG=$tmp/fake.log FAKE_LWPROF_COPY=$tmp/ring \
	FAKE_LWPROF_DONE=$tmp/done FAKE_LWPROF_RING_PAGES=1 \
	FAKE_LWPROF_SAMPLES=300
timeout 60 "$BASH" -c "LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null $LWPROF collect -m 1 $(printf '%q ' "${waiter[@]}")" \
	2>err.txt
rc=$?
e=test.1.er
check $rc -eq 3 "collect passes the command's exit status (3) through"
check -d $e "the first free name is test.1.er"
for c in 0 1; do
	cmp -s <(tail -c +65 $e/cpu.$c.rec) ring.$c
	check $? -eq 0 "cpu.$c.rec holds exactly the bytes the module published (4 KiB ring, wrapped)"
done
check "$(head -c 8 $e/cpu.1.rec | tr -d '\0')" = LWPROFR "file header magic"
grep -q "^start clock_ns=10000000 depth=256 stack=8192 flags=0 counters=0$" fake.log
check $? -eq 0 "defaults reach SAMPLE_START: 10 ms, depth 256, 8 KiB of stack"
grep -q "^attach flags=0 pid=[1-9]" fake.log
check $? -eq 0 "command mode attaches to the child, without the machine flag"

lw dump $e >dump.txt 2>dump.err; rc=$?
check $rc -eq 0 "dump exits 0 on a sound experiment"
check ! -s dump.err "and says nothing on stderr"
for c in 0 1; do
	n=$(grep -c "^$e/cpu.$c.rec+[0-9]*: SAMPLE " dump.txt)
	check "$n" -eq 300 "cpu.$c.rec: the 300 samples the fake wrote"
	n=$(grep "^$e/cpu.$c.rec+[0-9]*: LOST " dump.txt | grep -c ' lost=7$')
	check "$n" -eq 1 "cpu.$c.rec: one LOST record of 7"
done
check "$(grep -c ": TASK start " dump.txt)" -eq 3 "three TASK start records"
check "$(grep -c ": TASK exit " dump.txt)" -eq 3 "three TASK exit records"
grep -q ': TASK start .* comm="fake-worker 1"$' dump.txt
check $? -eq 0 "a thread name with a space"
# Sample i = 123 on CPU 1: tid pid + 0, 4 frames, sleep 0.5 ms + 123 ns.
s=$(grep "^$e/cpu.1.rec+[0-9]*: SAMPLE " dump.txt | sed -n 124p)
grep -q ' t=10.123000000 .* value=10000123 flags=REGS|DEFERRED .* sleep=500123 .* frames=4 kframes=0 stack=100$' <<<"$s"
check $? -eq 0 "sample 123 on CPU 1 reads back: $s"
lw dump -s $e | grep -A7 "^${s%%:*}:" | grep -q '^  ip\[3\] 0x401033$'
check $? -eq 0 "its fourth frame"
lw dump -s $e | grep -A8 "^${s%%:*}:" | grep -q '^  stack 7b 7c 7d'
check $? -eq 0 "dump -s shows its stack copy"
check "$(grep -c '^total: ' dump.txt)" -eq 1 "a total line"

# log.txt
log=$e/log.txt
key() { sed -n "s/^$1 = //p" $log; }
minor=$(sed -n 's/^#define EXP_FILE_MINOR[[:space:]]*\([0-9]*\).*/\1/p' "$LWPROF_TOP/libexp/format.h")
check "$(head -n 1 $log)" = "lwprof experiment 1.$minor" "log.txt names the format"
check "$(key mode)" = command "mode = command"
check "$(key command)" = "sh -c 'until [ -e \"\$0\" ]; do sleep 0.01; done; exit 3' $tmp/done" \
	"command, shell-quoted"
check "$(key exit)" = "status 3" "exit = status 3"
check "$(key lost)" -eq 14 "lost = 14"
check "$(key lost.cpu0)/$(key lost.cpu1)" = 7/7 "lost per CPU"
check "$(key records)" -eq "$(sed -n 's/^total: \([0-9]*\) records.*/\1/p' dump.txt)" \
	"records = what the files hold"
check "$(key clock_interval_ns)" -eq 10000000 "clock_interval_ns"
# the fake module reports the uapi header's version, as lwprof.ko does
abi_hdr=$(awk '$2 == "LWPROF_ABI_MAJOR" { M = $3 } $2 == "LWPROF_ABI_MINOR" { m = $3 }
	END { print M "." m }' "$LWPROF_TOP/uapi/lwprof.h")
check "$(key abi)" = "$abi_hdr" "abi = uapi/lwprof.h's ($abi_hdr)"
check "$(key cpus_possible)" -eq 2 "cpus_possible = rings"
check "$(grep -c '^warning = 7 records lost on CPU' $log)" -eq 2 "a warning per CPU that lost records"
start=$(key start_ns); end=$(key end_ns)
check "$end" -ge "$start" "end_ns >= start_ns"
grep -Eq '^start_time = [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{9}Z$' $log
check $? -eq 0 "start_time in ISO 8601 UTC"
grep -q "lost" err.txt; check $? -eq 0 "the user hears about lost records"

# usage.txt: the fake's three exited threads.
check "$(head -c 6 $e/usage.txt)" = "# pid " "usage.txt has its column line"
check "$(awk '!/^#/ && $2 == $1 + 2 { print $4, $7, $NF }' $e/usage.txt)" = "0x1 3000000 2" \
	"usage.txt: thread 3's flags, user time and name ('worker 2': the rest of the line)"
check "$(grep -vc '^#' $e/usage.txt)" -eq 3 "one line per thread"

# archives: every mapped file, by build-id, identical to the original.
idx=$e/archives/index.txt
line=$(grep ' /.*fake_lwprof.so$' $idx)
id=$(readelf -n "$fake" | sed -n 's/.*Build ID: //p')
check "${line%% *}" = "$id" "fake_lwprof.so archived under its build-id"
cmp -s "$e/archives/$id/fake_lwprof.so" "$fake"
check $? -eq 0 "the copy is identical"
check "$(awk '{ print $2, $3 }' <<<"$line")" = \
	"$(stat -c '%Hd:%Ld %i' "$fake")" "index line: device and inode"
grep -q " $LWPROF\$" $idx; check $? -eq 0 "the lwprof binary is archived"
v=$(grep '  \[vdso\]$' $idx)
check -n "$v" "[vdso] is archived (the recorder's own image): $v"
check "$(awk '{ print $5 }' <<<"$v")" = "${v%% *}/vdso.so" "  as BUILDID/vdso.so"
n=$(grep -c ': MMAP .* path=\(/\|\[vdso\]$\)' dump.txt)
check "$(wc -l <$idx)" -eq "$n" "one index line per mapped file and the vDSO"

# Options reach the module; counter samples; kernel frames.
rm -f done ring.* fake.log
FAKE_LWPROF_SAMPLES=40 timeout 60 "$BASH" -c "LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null $LWPROF collect -o opt.er -p 2.5ms --stack-bytes 16k --depth 32 -K -h page-faults,1,task-clock $(printf '%q ' "${waiter[@]}")" 2>/dev/null
check $? -eq 3 "collect with every option"
grep -q "^start clock_ns=2500000 depth=32 stack=16384 flags=1 counters=2$" fake.log
check $? -eq 0 "-p 2.5ms --stack-bytes 16k --depth 32 -K reach SAMPLE_START"
grep -q "^counter 0 type=1 config=2 period=1$" fake.log &&
	grep -q "^counter 1 type=1 config=1 period=10000000$" fake.log
check $? -eq 0 "-h page-faults,1,task-clock: software counters 2 and 1, periods 1 and the default"
check "$(sed -n 's/^counter = //p' opt.er/log.txt | xargs)" = \
	"page-faults,1,1,0x2 task-clock,10000000,1,0x1" "log.txt counter lines"
lw dump opt.er >dump2.txt
check "$(grep -c ': SAMPLE counter=1 .* value=10000000 ' dump2.txt)" -eq 4 \
	"counter packets of task-clock (2 per CPU)"
check "$(grep -c '^  kip\[1\] 0xffffffff81000010$' dump2.txt)" -eq 80 "-K: kernel frames in every sample"
# -K: /proc/kallsyms copied for the analyzer's kernel names, when it shows
# addresses to this user (else a warning says the frames go by address)
if awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms; then
	# (BPF programs come and go on a shared host: the core's symbols and
	# the size must match)
	cmp -s <(head -n 1000 opt.er/archives/kallsyms) <(head -n 1000 /proc/kallsyms)
	check $? -eq 0 "-K: archives/kallsyms is /proc/kallsyms (its first 1000 lines)"
	a=$(wc -l <opt.er/archives/kallsyms) b=$(wc -l </proc/kallsyms)
	check $((a * 100 / b)) -ge 99 "and all of it ($a of $b lines)"
	if [ -e /proc/modules ]; then
		check -s opt.er/archives/modules "-K: /proc/modules copied (module ranges)"
	else
		check ! -e opt.er/archives/modules "-K, no module support: no modules copy"
	fi
else
	grep -q 'kallsyms shows no addresses.*kptr_restrict' opt.er/log.txt
	check $? -eq 0 "-K, addresses hidden: no copy, and the log says so and why"
	check "$(sed -n 's/^kallsyms_hidden = //p' opt.er/log.txt)" = 1 "and notes it for print"
fi

# The command ends at once: what was not written when sampling stopped is
# lost, and counted: samples + lost = what the fake made (N + 7 per CPU),
# plus on ring 0 the TASK exits it made last (3) and could not write: a
# record is dropped when it does not fit, so a ring too full for a sample
# may still take one or two smaller TASK records.
rm -f done ring.* fake.log
FAKE_LWPROF_SAMPLES=2000 lw collect -o quick.er true 2>/dev/null
check $? -eq 0 "collect true exits 0"
lw dump quick.er >dump3.txt; check $? -eq 0 "its experiment is sound"
check ! -e quick.er/archives/kallsyms "without -K, no kallsyms copy"
for c in 0 1; do
	s=$(grep -c "^quick.er/cpu.$c.rec+[0-9]*: SAMPLE " dump3.txt)
	l=$(sed -n "s/^lost.cpu$c = //p" quick.er/log.txt)
	x=$(grep -c "^quick.er/cpu.$c.rec+[0-9]*: TASK exit " dump3.txt)
	d=$(( (c == 0 ? 3 : 0) - x ))
	check $((s + l)) -eq $((2007 + d)) \
		"CPU $c: $s samples + $l lost = 2000 + 7 + $d TASK exits dropped"
done

# Next free name, -d.
mkdir d
lw collect -d d true 2>/dev/null; lw collect -d d true 2>/dev/null
check -d d/test.1.er -a -d d/test.2.er "-d: test.1.er, then test.2.er"
err=$(lw collect -o opt.er true 2>&1); rc=$?
check $rc -eq 1 "-o of an existing experiment exits 1"
check "$err" = "lwprof collect: opt.er already exists; choose another -o" "and says so"

# On a terminal, the archiving at the end shows its progress, then erases it.
if command -v script >/dev/null; then
	e=$(LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null LWPROF_PROGRESS=now \
		script -qfec "$LWPROF collect -o prog.er true" /dev/null </dev/null | tr '\r\033' '|~')
	n=$(wc -l <prog.er/archives/index.txt)
	grep -q "|lwprof collect: archiving [0-9]* objects: *0%~\[K" <<<"$e"
	check $? -eq 0 "a terminal: the archiving's progress line ($(grep -o 'archiving [0-9]* objects' <<<"$e"), $n archived)"
	check "$(grep -c '|~\[Klwprof collect: prog.er: ' <<<"$e")" -eq 1 "  erased before the last line"
	e=$(lw collect -o prog2.er true 2>&1)
	check "$(grep -c $'\r' <<<"$e")" -eq 0 "no terminal: no progress line"
fi

# Exit causes.
lw collect -o segv.er sh -c 'ulimit -c 0; kill -SEGV $$' 2>/dev/null
check $? -eq 139 "a command killed by SIGSEGV -> 139"
check "$(sed -n 's/^exit = //p' segv.er/log.txt)" = "signal 11 SIGSEGV" "log: exit = signal 11 SIGSEGV"
err=$(lw collect -o nx.er /nonexistent/cmd 2>&1); rc=$?
check $rc -eq 127 "exec failure -> 127"
grep -q '^lwprof collect: /nonexistent/cmd: No such file or directory$' <<<"$err"
check $? -eq 0 "exec failure names the command"
check ! -e nx.er "and leaves no experiment (nothing of it was recorded)"
grep -q '^lwprof collect: nothing recorded: no experiment written$' <<<"$err"
check $? -eq 0 "and says so"
mkdir -p nxd
lw collect -d nxd /nonexistent/cmd 2>/dev/null
check "$?/$(ls -A nxd 2>/dev/null | wc -l)" = 127/0 "-d DIR: nor any test.N.er in DIR"
lw collect -o nx.er /etc/passwd 2>/dev/null
check "$?/$(ls -d nx.er 2>/dev/null | wc -l)" = 126/0 "a file that cannot be run: 126, as the shell's, and no experiment"

# SIGTERM to the recorder: the command is asked to end, the experiment is
# finished, the command's status passed through.
LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null "$LWPROF" collect -o term.er sleep 30 \
	2>/dev/null & cpid=$!
# Ready once its log is written (after the setup, where a signal is still
# the default action's: a loaded host can take more than 0.5 s to get there).
for i in $(seq 300); do [ -e term.er/log.txt ] && break; sleep 0.1; done
kill -TERM $cpid; wait $cpid; rc=$?
check $rc -eq 143 "SIGTERM: collect ends the command (143)"
check "$(sed -n 's/^exit = //p' term.er/log.txt)" = "signal 15 SIGTERM" "and logs it"
lw dump term.er >/dev/null 2>&1; check $? -eq 0 "a sound experiment"

# The recorder SIGKILLed mid-run: the files hold what it had flushed, a
# prefix of what the module published; dump reports the cut, file and offset.
rm -f ring.*
FAKE_LWPROF_SAMPLES=5000 FAKE_LWPROF_DELAY_US=1000 LD_PRELOAD=$fake \
	LWPROF_DEVICE=/dev/null "$LWPROF" collect -o killed.er sleep 30 \
	2>/dev/null & cpid=$!
sleep 1.5; kill -KILL $cpid; wait $cpid 2>/dev/null
kill "$(sed -n 's/^target = //p' killed.er/log.txt)"
lw dump killed.er >dump4.txt 2>dump4.err; rc=$?
check $rc -eq 1 "dump of a killed recording exits 1"
grep -q '^lwprof dump: killed.er/log.txt: the recording did not finish' dump4.err
check $? -eq 0 "and says the recording did not finish"
for c in 0 1; do
	size=$(stat -c %s killed.er/cpu.$c.rec)
	grep -q "^lwprof dump: killed.er/cpu.$c.rec: offset $size: the recording was cut here$" dump4.err
	check $? -eq 0 "cpu.$c.rec: the cut, at offset $size"
	n=$(grep -c "^killed.er/cpu.$c.rec+[0-9]*: SAMPLE " dump4.txt)
	check "$n" -ge 100 "cpu.$c.rec: $n samples flushed before the kill"
	cmp -s -n $((size - 64)) <(tail -c +65 killed.er/cpu.$c.rec) ring.$c
	check $? -eq 0 "cpu.$c.rec is a prefix of what the module published"
done

# Attach (-P) for a window, and the machine (-a): the log says which.
sleep 30 & spid=$!
lw collect -o att.er -P $spid -t 0.3 2>/dev/null; rc=$?
kill $spid; wait $spid 2>/dev/null
check $rc -eq 0 "-P PID -t 0.3 exits 0"
check "$(sed -n 's/^mode = //p;s/^exit = //p;s/^target = //p' att.er/log.txt | xargs)" = \
	"attach $spid running" "log: mode attach, target, exit running"
grep -q '^command' att.er/log.txt; check $? -ne 0 "no command line in attach mode"
rm -f fake.log
lw collect -o all.er -a -t 0.2 2>/dev/null
check $? -eq 0 "-a -t 0.2 exits 0"
check "$(sed -n 's/^attach //p' fake.log)" = "flags=1 pid=0" \
	"-a: a machine session, the recorder included (MACHINE)"
check "$(sed -n 's/^mode = //p' all.er/log.txt)" = machine "log: mode machine"
grep -q "^warning = the loaded lwprof module (ABI [0-9.]*) cannot record idle time (--idle): it has no LWPROF_FEAT_IDLE (ABI 1.4's): left out$" all.er/log.txt
check $? -eq 0 "-a on a module without LWPROF_FEAT_IDLE: a warning, no idle packets asked"

# Whole-machine kernel profiling (docs/design/kernel-profiling.md): the session
# flags SAMPLE_START gets (KSTACK 1, IDLE 4, KONLY 8, IRQ 16, OFFCPU 32)
# and log.txt's keys, on a module with ABI 1.4's features.
kflags() {	# kflags NAME OPTIONS...: "FLAGS STACK_BYTES KEYS"
	local n=$1; shift
	rm -f fake.log
	FAKE_LWPROF_FEATURES=0xf0 lw collect -o $n.er "$@" -t 0.2 2>/dev/null || { echo "collect $*: $?"; return; }
	echo "$(sed -n 's/^start .* stack=\([0-9]*\) flags=\([0-9]*\) .*/\2 \1/p' fake.log)" \
		"$(grep -E '^(offcpu|idle|irq|kernel_only) = 1$' $n.er/log.txt | cut -d' ' -f1 | xargs)"
}
check "$(kflags k1 -a)" = "4 8192 idle" "-a: IDLE by default"
check "$(kflags k2 -a -K)" = "53 8192 offcpu idle irq" "-a -K: KSTACK, IDLE, IRQ, OFFCPU"
check "$(kflags k3 -a --kernel-only)" = "61 0 offcpu idle irq kernel_only" \
	"-a --kernel-only: KONLY too, no stack copy, no SDELTA"
check "$(kflags k4 -a -K --idle off --irq off)" = "33 8192 offcpu" "--idle off --irq off"
check "$(kflags k5 -P $$ -K --irq on)" = "49 8192 offcpu irq" "-P -K --irq on: IRQ without -a"
check "$(kflags k6 -P $$ --kernel-only)" = "41 0 offcpu kernel_only" "-P --kernel-only"
grep -q "^stack_bytes = 0$" k6.er/log.txt; check $? -eq 0 "  log: stack_bytes = 0"
out=$(lw collect -o k7.er -a --kernel-only -t 0.2 2>&1); rc=$?
check $rc -eq 1 "--kernel-only on a module without LWPROF_FEAT_KONLY: exit 1"
check "$out" = "lwprof collect: the loaded lwprof module (ABI $(sed -n 's/^abi = //p' all.er/log.txt)) cannot record --kernel-only: it has no LWPROF_FEAT_KONLY (ABI 1.4's)" "  saying why ($out)"
check ! -e k7.er "  and no experiment"
out=$(lw collect -o k8.er -a --idle on -t 0.2 2>&1); rc=$?
check $rc -eq 1 "--idle on on a module without LWPROF_FEAT_IDLE: exit 1 ($out)"
for bad in "--kernel-only --stack-bytes 8k" "--kernel-only --stack-delta on" "--idle on" \
	"--idle maybe" "-K --irq on -p off -h page-faults" "--irq on"; do
	lw collect $bad true >/dev/null 2>err.txt; rc=$?
	check $rc -eq 2 "collect $bad true: a usage error ($(cat err.txt))"
done
done_testing
