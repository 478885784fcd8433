#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Whole-machine kernel profiling in lwprof print (docs/design/kernel-profiling.md,
# ABI 1.4's packets in a format 1.3 experiment of 2 CPUs).  Ground truth,
# from what the script writes:
#  - 700/700 runs E 0.2 s (user) on CPU 0 and sleeps 0.1 s in nanosleep:
#    KBLOCK kips __schedule schedule do_nanosleep hrtimer_nanosleep
#    entry_SYSCALL_64, so do_nanosleep gets the Sleep (the scheduler's
#    frames folded); 3 hard interrupts (3 ms of TRAP) with the handler's
#    entry first (handle_edge_irq at its first byte: no -1, or it would be
#    __do_softirq's);
#  - 700/701 waits 0.1 s on a futex on CPU 1; futex_wait_queue's return
#    address is futex_wait's first byte (the -1 of a return address names
#    futex_wait_queue); 2 softirqs (4 ms, net_rx_action); then it exits
#    with 5 ms of user time, charged where its own time last went (the futex
#    wait's user stack, E: User CPU never on a kernel function), not to the
#    softirq;
#  - 700/702 sleeps 0.1 s in pipe_read on CPU 1;
#  - 700/703: kernel-only packets, the user pc alone (E), 20 ms;
#  - idle: CPU 0 0.3 s (and 10 ms of interrupts while idle), CPU 1 0.4 s
#    and one hard interrupt of 1 ms (under <IDLE>).
# Total 1.243 s: user 0.225, sleep 0.2, lock 0.1, trap 0.018, idle 0.7.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

K=ffffffff81000
exp=$(gen_exp kprof - <<-EOS
	log kernel_stacks 1
	binary seed seed_example.bin
	map 700 seed 0x555555554000
	task start 700 700 1 seed_example
	task start 700 701 1 waiter
	task start 700 702 1 reader
	task start 700 703 1 konly
	kallsyms ${K}100 T __schedule
	kallsyms ${K}200 T schedule
	kallsyms ${K}300 T do_nanosleep
	kallsyms ${K}400 T hrtimer_nanosleep
	kallsyms ${K}500 T futex_wait_queue
	kallsyms ${K}600 T futex_wait
	kallsyms ${K}700 T pipe_read
	kallsyms ${K}800 T vfs_read
	kallsyms ${K}900 T entry_SYSCALL_64
	kallsyms ${K}a00 T net_rx_action
	kallsyms ${K}b00 T __do_softirq
	kallsyms ${K}c00 T handle_edge_irq
	kallsyms ${K}d00 T asm_common_interrupt
	kallsyms ${K}e00 T default_idle
	kallsyms ${K}f00 T end_text
	sample pid=700 tid=700 t=0 n=20 ms=user:10000000 stack=E,C,A,main
	sample pid=700 tid=700 t=200000000 n=5 ms=sleep:20000000 flags=deferred,kblock stack=E,C,A,main kstack=${K}150,${K}220,${K}330,${K}410,${K}910
	sample pid=700 tid=700 t=300000000 n=3 ms=trap:1000000 flags=hardirq kstack=${K}c00,${K}d20
	sample cpu=1 pid=700 tid=701 t=0 n=4 ms=lock:25000000 flags=deferred,kblock stack=E,C,A,main kstack=${K}180,${K}210,${K}600,${K}620,${K}910
	sample cpu=1 pid=700 tid=701 t=150000000 n=2 ms=trap:2000000 flags=softirq kstack=${K}a00,${K}b40
	sample cpu=1 pid=700 tid=701 t=400000000 ms=user:5000000 flags=exit
	sample cpu=1 pid=700 tid=702 t=0 n=2 ms=sleep:50000000 flags=deferred,kblock stack=B,main kstack=${K}110,${K}210,${K}740,${K}810,${K}910
	sample pid=700 tid=703 t=0 n=2 ms=user:10000000 stack=E
	sample pid=0 tid=0 t=0 n=10 ms=system:30000000,trap:1000000 flags=idle
	sample cpu=1 pid=0 tid=0 t=0 n=10 ms=system:40000000 flags=idle
	sample cpu=1 pid=0 tid=0 t=5000000 ms=trap:1000000 flags=idle,hardirq kstack=${K}c00,${K}d20,${K}e10
	usage auto
	EOS
)
"$LWPROF" dump "$exp" >"$PRINT_OUT/dump.txt" 2>"$PRINT_OUT/dump.err"
check $? -eq 0 "dump reads ABI 1.4's flags in a 1.$(od -An -tu4 -j12 -N4 "$exp/cpu.0.rec" | tr -d ' ') file"
check ! -s "$PRINT_OUT/dump.err" "  without a word ($(head -c 200 "$PRINT_OUT/dump.err"))"
check "$(grep -c 'flags=IDLE|HARDIRQ ' "$PRINT_OUT/dump.txt")" -eq 1 "  and names them"

m=e.total:i.total:e.user:e.sleep:e.lock:e.trap:e.idle:i.trap:name
f=$("$LWPROF" print -printmode csv -metrics $m -functions "$exp" 2>&1)
echo "$f"
row() { local r; r=$(awk -F, -v n="$1" '$1 == n' <<<"$f" | head -1); echo "${r:-missing}"; }
# the functions' rows (csv: no title line; Name comes last)
f=$(awk -F, 'NR > 1 { n = $NF; $NF = ""; print n "," $0 }' OFS=, <<<"$f")
check "$(row '<Total>')" = "<Total>,1.243,1.243,0.225,0.200,0.100,0.018,0.700,0.018," \
	"<Total>: 1.243 s, every CPU's idle time in it"
check "$(row '<IDLE>')" = "<IDLE>,0.710,0.711,0.000,0.000,0.000,0.010,0.700,0.011," \
	"<IDLE>: 0.7 s idle and 10 ms of interrupts while idle; the idle CPU's hard interrupt under it"
check "$(row do_nanosleep)" = "do_nanosleep,0.100,0.100,0.000,0.100,0.000,0.000,0.000,0.000," \
	"do_nanosleep: the 0.1 s of Sleep (the scheduler's frames folded)"
check "$(row futex_wait_queue)" = "futex_wait_queue,0.100,0.100,0.000,0.000,0.100,0.000,0.000,0.000," \
	"futex_wait_queue: the 0.1 s User Lock (a return address at futex_wait's first byte), not the exit's User CPU"
check "$(row pipe_read)" = "pipe_read,0.100,0.100,0.000,0.100,0.000,0.000,0.000,0.000," \
	"pipe_read: the 0.1 s of Sleep"
check "$(grep -c '^\(__schedule\|schedule\),' <<<"$f")" -eq 0 "no row for __schedule or schedule"
check "$(row '<HARDIRQ>')" = "<HARDIRQ>,0.000,0.004,0.000,0.000,0.000,0.000,0.000,0.004," \
	"<HARDIRQ>: 3 + 1 ms of TRAP"
check "$(row handle_edge_irq)" = "handle_edge_irq,0.004,0.004,0.000,0.000,0.000,0.004,0.000,0.004," \
	"handle_edge_irq: the hard interrupts' leaf (a function entry, no -1)"
check "$(row '<SOFTIRQ>')" = "<SOFTIRQ>,0.000,0.004,0.000,0.000,0.000,0.000,0.000,0.004," \
	"<SOFTIRQ>: 4 ms of TRAP"
check "$(row net_rx_action)" = "net_rx_action,0.004,0.004,0.000,0.000,0.000,0.004,0.000,0.004," \
	"net_rx_action: the softirqs' leaf"
check "$(row E | cut -d, -f2,4)" = "0.225,0.225" "E: 0.2 s user, the kernel-only packets' bare pc (20 ms) and 701's exit (5 ms)"
check "$(row __do_softirq | cut -d, -f2)" = 0.000 "__do_softirq: nothing of the hard interrupts"

w=$("$LWPROF" print -printmode csv -metrics e.wall:name -functions "$exp" 2>&1)
check "$(awk -F, '$2 == "<Total>" { print $1 }' <<<"$w")" = 0.303 "wall: the main thread's 0.303 s, no idle time"
t=$("$LWPROF" print -metrics i.total:name -calltree "$exp")
echo "$t"
chain=$(sed -n 's/^ *[0-9.]* *[| ]*+-//p' <<<"$t" | tr '\n' ' ')
check "$chain" = "<IDLE> <HARDIRQ> default_idle asm_common_interrupt handle_edge_irq main A C E entry_SYSCALL_64 futex_wait futex_wait_queue hrtimer_nanosleep do_nanosleep B entry_SYSCALL_64 vfs_read pipe_read E <SOFTIRQ> __do_softirq net_rx_action <HARDIRQ> asm_common_interrupt handle_edge_irq " \
	"calltree: off-CPU kernel stacks below the user leaf; interrupts under the thread (the idle CPU's under <IDLE>)"
o=$("$LWPROF" print -printmode csv -metrics e.total:name -objects "$exp")
check "$(awk -F, '$2 == "<IDLE>" { print $1 }' <<<"$o")" = 0.710 "-objects: <IDLE> is a load object of its own"
l=$("$LWPROF" print -thread_list "$exp")
echo "$l"
check "$(awk '$3 == 0 { print $4 ":" $5 ":" $6 }' <<<"$l" | xargs)" = "0:swapper/0:10 1:swapper/1:11" \
	"-thread_list: an idle pseudo-thread per CPU (pid 0, tid the CPU)"
c=$("$LWPROF" print -cpu_select 1 -printmode csv -metrics e.total:e.idle:name -functions "$exp")
check "$(awk -F, '$3 == "<Total>" { print $1 "/" $2 }' <<<"$c")" = 0.610/0.400 "-cpu_select 1: CPU 1's 0.61 s, 0.4 s of it idle"
c=$("$LWPROF" print -cpu_list "$exp" 2>/dev/null)
echo "$c"
check "$(awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $7 }' <<<"$c" | xargs)" = \
	"0 40 0.220 0.000 0.013 0.300 0.533 1 20 0.005 0.000 0.005 0.400 0.410" \
	"-cpu_list: each CPU's packets, user, system, interrupt and idle time, and their sum"
done_testing
