#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel load objects: [kernel.kallsyms] for the core kernel and one per
# module, "[NAME]", from the "[NAME]" of archives/kallsyms' lines and the
# module ranges of archives/modules (the recorder's /proc/modules copy).
# Ground truth, 10 ms samples:
#   5 of E in a syscall whose leaf is mymod's last symbol mod_helper
#     (0x210 into it, its end known only from the module's range);
#   3 of a kernel thread in othermod's mod_worker (a second mod_worker);
#   2 of a kernel thread at nosyms+0x10 (a module with no text symbol),
#     called from mymod's mod_worker;
#   1 of a kernel thread between mymod's end and othermod's start (no
#     module there: the core kernel's, by address, not mod_helper);
#   1 of a kernel thread in mymod_init, past mymod's range (a module's
#     __init function: kallsyms keeps it when ftrace hooked functions as
#     the init code was freed, /proc/modules' range is the core's), to the
#     next symbol;
# and the same without archives/modules (older experiments): kallsyms alone.
#   4 of E in user code.
# Without kallsyms, and with the log's kallsyms_hidden (kptr_restrict),
# print says once that kernel frames cannot be named, why, what to do.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

script() {
	cat <<-EOS
	log kernel_stacks 1
	binary seed seed_example.bin
	map 600 seed 0x555555554000
	task start 600 600 1 seed_example
	sample pid=600 tid=600 t=0 n=5 ms=system:10000000 flags=kmode stack=E,C,A,main kstack=ffffffffc0001410,ffffffff81000305,ffffffff81000410
	sample pid=600 tid=600 t=100000000 n=4 ms=user:10000000 stack=E,C,A,main
	sample pid=601 tid=601 t=0 n=3 ms=system:10000000 flags=kmode kstack=ffffffffc0003010,ffffffff81000520
	sample pid=602 tid=602 t=0 n=2 ms=system:10000000 flags=kmode kstack=ffffffffc0006010,ffffffffc0001010
	sample pid=603 tid=603 t=0 n=1 ms=system:10000000 flags=kmode kstack=ffffffffc0002100,ffffffff81000520
	sample pid=604 tid=604 t=0 n=1 ms=system:10000000 flags=kmode kstack=ffffffffc0002410,ffffffff81000520
	usage auto
	EOS
	case "$1" in
	syms)
		cat <<-EOS
		kallsyms ffffffff81000100 T copy_user
		kallsyms ffffffff81000300 T ksys_read
		kallsyms ffffffff81000400 T entry_SYSCALL_64
		kallsyms ffffffff81000500 T kthread
		kallsyms ffffffffc0001000 t mod_worker [mymod]
		kallsyms ffffffffc0001200 t mod_helper [mymod]
		kallsyms ffffffffc0002400 t mymod_init [mymod]
		kallsyms ffffffffc0003000 t mod_worker [othermod]
		kallsyms ffffffffc0003800 d other_data [othermod]
		kmodule mymod 4096 0xffffffffc0001000
		kmodule othermod 8192 0xffffffffc0003000
		kmodule nosyms 4096 0xffffffffc0006000
		EOS
		;;
	hidden)
		echo "log kallsyms_hidden 1"
		;;
	esac
}
exp=$(script syms | gen_exp kmods -)
o=$("$LWPROF" print -printmode csv -metrics e.total:name -objects "$exp")
echo "$o"
check "$(cut -d, -f2 <<<"$o" | sed 1d | sort | tr '\n' ' ')" = \
	"<Total> [kernel.kallsyms] [mymod] [nosyms] [othermod] seed_example.bin " \
	"-objects: the core kernel and each module with samples, by name"
check "$(csv_field "$o" '[mymod]' 1)" = 0.060 "[mymod]: the 5 samples in mod_helper, 1 in mymod_init"
check "$(csv_field "$o" '[othermod]' 1)" = 0.030 "[othermod]: the 3 samples in its mod_worker"
check "$(csv_field "$o" '[nosyms]' 1)" = 0.020 "[nosyms]: the 2 samples in its range, no symbol"
check "$(csv_field "$o" '[kernel.kallsyms]' 1)" = 0.010 "[kernel.kallsyms]: the sample outside every module"
f=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -functions "$exp")
echo "$f"
check "$(csv_field "$f" mod_helper 1)/$(csv_field "$f" ksys_read 2)" = 0.050/0.050 \
	"mod_helper: the leaf, to its module's end; ksys_read above it"
check "$(grep ',mod_worker$' <<<"$f" | sort | tr '\n' ' ')" = "0.000,0.020,mod_worker 0.030,0.030,mod_worker " \
	"two mod_worker: othermod's the leaf of 3, mymod's the caller of 2"
check "$(csv_field "$f" 0xffffffffc0006010 1)" = 0.020 "nosyms' pc by its address"
check "$(csv_field "$f" mymod_init 1)" = 0.010 "mymod_init: its pc past the module's range"
check "$(csv_field "$f" 0xffffffffc0002100 1)" = 0.010 "the pc between modules by its address"
s=$("$LWPROF" print -fsingle mod_helper "$exp")
check "$(sed -n 's/^ *Load Object: //p' <<<"$s")" = "[mymod]" "-fsingle mod_helper: Load Object [mymod]"
s=$("$LWPROF" print -fsingle 0xffffffffc0006010 "$exp")
check "$(sed -n 's/^ *Load Object: //p' <<<"$s")" = "[nosyms]" "-fsingle: nosyms' address in [nosyms]"
s=$("$LWPROF" print -fsingle mod_worker "$exp")
check "$(grep -c '2 functions have this name' <<<"$s")" = 1 "-fsingle mod_worker: one per module"

# without archives/modules the module ranges are unknown: kallsyms alone
exp=$(script syms | grep -v '^kmodule' | gen_exp nomodules -)
o=$("$LWPROF" print -printmode csv -metrics e.total:name -objects "$exp")
check "$(csv_field "$o" '[mymod]' 1)" = 0.070 \
	"no /proc/modules copy: mymod's last symbol holds the pc past its end"
check "$(csv_field "$o" '[othermod]' 1)/$(csv_field "$o" '[kernel.kallsyms]' 1)" = /0.050 \
	"and othermod's only symbol, the last one, has no end: its pcs and nosyms' by address in the core kernel"

# kptr_restrict: no kallsyms copy, the log says why
exp=$(script hidden | gen_exp hidden -)
err=$("$LWPROF" print -functions "$exp" 2>&1 >/dev/null)
echo "$err"
check "$(grep -c 'kernel frames cannot be named' <<<"$err")" = 1 "print warns once that kernel frames cannot be named"
check "$(grep -c 'kptr_restrict.*CAP_SYSLOG.*kernel.kptr_restrict=0' <<<"$err")" = 1 "why (kptr_restrict) and what to do"
exp=$(script | gen_exp nosyms -)
err=$("$LWPROF" print -functions "$exp" 2>&1 >/dev/null)
check "$(grep -c 'kernel frames cannot be named' <<<"$err")/$(grep -c kptr_restrict <<<"$err")" = 1/0 \
	"no copy for another reason: the warning without the kptr_restrict advice"
done_testing
