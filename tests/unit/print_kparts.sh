#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# User CPU never lands on a kernel function: a clock packet
# holds all its thread's time since its previous one, and with kernel
# frames not all of it is the kernel stack's.  Ground truth, from what the
# script writes (times in ms):
#  - 800/800 ran 20 user + 5 system, then slept 100 in nanosleep: one
#    off-CPU packet (KBLOCK: __schedule schedule do_nanosleep
#    hrtimer_nanosleep entry_SYSCALL_64 below E C A main).  Its Sleep is
#    do_nanosleep's, and so is its System CPU (the system call it made;
#    the scheduler's frames folded); its User CPU was not run in the
#    kernel (before it blocked): it is the user leaf E's;
#  - 800/801, a tick in the kernel (KMODE: read_zero vfs_read
#    entry_SYSCALL_64 below B main) with 3 user, 7 system and 1 of User
#    Lock: the System CPU and the lock are read_zero's, the User CPU is
#    B's; then it exits with 2 user and 1 system: on its user stack alone
#    (B), not on read_zero;
#  - 802/802, a kernel thread blocked in worker_thread (KBLOCK, no user
#    frames) after 4 system, 6 sleep: all of it on worker_thread, there is
#    no other stack;
#  - 800/803, KBLOCK with 4 user and no off-CPU time: all of it on E.
# Each packet is one in -cpu_list's and -sample_list's counts, though the
# analyzer charges its parts to two stacks.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

K=ffffffff81000
exp=$(gen_exp kparts - <<-EOS
	log kernel_stacks 1
	binary seed seed_example.bin
	map 800 seed 0x555555554000
	task start 800 800 1 seed_example
	task start 800 801 1 reader
	task start 800 803 1 spinner
	task start 802 802 2 kworker/0:1
	kallsyms ${K}100 T __schedule
	kallsyms ${K}200 T schedule
	kallsyms ${K}300 T do_nanosleep
	kallsyms ${K}400 T hrtimer_nanosleep
	kallsyms ${K}700 T read_zero
	kallsyms ${K}800 T vfs_read
	kallsyms ${K}900 T entry_SYSCALL_64
	kallsyms ${K}a00 T worker_thread
	kallsyms ${K}b00 T kthread
	kallsyms ${K}c00 T end_text
	sample pid=800 tid=800 t=200000000 ms=user:20000000,system:5000000,sleep:100000000 flags=deferred,kblock stack=E,C,A,main kstack=${K}150,${K}220,${K}330,${K}410,${K}910
	sample pid=800 tid=801 t=0 ms=user:3000000,system:7000000,lock:1000000 flags=kmode stack=B,main kstack=${K}720,${K}810,${K}910
	sample pid=800 tid=801 t=100000000 ms=user:2000000,system:1000000 flags=exit
	sample pid=802 tid=802 t=0 ms=system:4000000,sleep:6000000 flags=kmode,kblock kstack=${K}150,${K}220,${K}a40,${K}b40
	sample pid=800 tid=803 t=0 ms=user:4000000 flags=deferred,kblock stack=E,C,A,main kstack=${K}150,${K}220,${K}330,${K}410,${K}910
	usage auto
	EOS
)
m=e.user:e.system:e.lock:e.sleep:name
f=$("$LWPROF" print -printmode csv -metrics $m -functions "$exp" 2>&1)
echo "$f"
row() { local r; r=$(awk -F, -v n="$1" '$NF == n' <<<"$f" | head -1); echo "${r:-missing}"; }
check "$(row '<Total>')" = "0.029,0.017,0.001,0.106,<Total>" "<Total>: every state once"
check "$(row E)" = "0.024,0.000,0.000,0.000,E" \
	"E: the User CPU of 800/800's off-CPU packet, and 800/803's"
check "$(row do_nanosleep)" = "0.000,0.005,0.000,0.100,do_nanosleep" \
	"do_nanosleep: the off-CPU packet's Sleep and System CPU, none of its User CPU"
check "$(row B)" = "0.005,0.001,0.000,0.000,B" \
	"B: the User CPU of 801's tick in the kernel, and its exit"
check "$(row read_zero)" = "0.000,0.007,0.001,0.000,read_zero" \
	"read_zero: the tick's System CPU and User Lock, none of its User CPU"
check "$(row worker_thread)" = "0.000,0.004,0.000,0.006,worker_thread" \
	"worker_thread: a kernel thread's packet stays whole"
k=$("$LWPROF" print -printmode csv -metrics e.user:name -objects "$exp")
check "$(awk -F, '$2 == "[kernel.kallsyms]" { print $1 }' <<<"$k")" = 0.000 \
	"-objects: no User CPU in [kernel.kallsyms]"
w=$("$LWPROF" print -printmode csv -metrics e.wall:i.wall:name -functions "$exp")
check "$(awk -F, '$3 == "E" || $3 == "do_nanosleep" { print $3 ":" $1 }' <<<"$w" | sort | xargs)" = \
	"E:0.020 do_nanosleep:0.105" "wall: the main thread's 0.125 s split as its states"
c=$("$LWPROF" print -cpu_list "$exp" 2>/dev/null)
echo "$c"
check "$(awk '$1 == 0 { print $2, $3, $4 }' <<<"$c")" = "5 0.029 0.017" \
	"-cpu_list: 5 packets (each split one counted once), every User and System second"
s=$("$LWPROF" print -sample_list "$exp" 2>/dev/null)
check "$(awk '$1 == 1 { n += $5 } END { print n }' <<<"$s")" = 5 "-sample_list: 5 packets"
t=$("$LWPROF" print -metrics e.user:name -calltree "$exp")
echo "$t"
done_testing
