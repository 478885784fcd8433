#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel frames (lwprof collect -K: kips[] on the samples taken in the
# kernel) hang below the user leaf, in the [kernel.kallsyms] load object
# (a module's functions in [MODULE]),
# named from archives/kallsyms (the recorder's copy of /proc/kallsyms),
# else by address.  Ground truth: 6 samples of E in a read system call
# (E -> entry_SYSCALL_64 -> ksys_read -> copy_user, the leaf in copy_user),
# 4 of E in user code, 3 of a kernel thread (kernel frames only).
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

script() {	# tests/data/exp/kernel.gen, without its kallsyms unless syms
	if [ "${1:-}" = syms ]; then
		cat "$DATA/exp/kernel.gen"
	else
		grep -v '^kallsyms' "$DATA/exp/kernel.gen"
	fi
}
exp=$(script syms | gen_exp kernel -)
f=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -functions "$exp")
echo "$f"
check "$(csv_field "$f" copy_user 1)/$(csv_field "$f" copy_user 2)" = 0.060/0.060 "copy_user: the kernel leaf of the 6 syscall samples"
check "$(csv_field "$f" ksys_read 1)/$(csv_field "$f" ksys_read 2)" = 0.000/0.060 "ksys_read: its caller (a return address into it)"
check "$(csv_field "$f" entry_SYSCALL_64 2)" = 0.060 "entry_SYSCALL_64 under the user leaf"
check "$(csv_field "$f" E 1)/$(csv_field "$f" E 2)" = 0.040/0.100 "E: 4 samples itself, 10 inclusive (the syscall below it)"
check "$(csv_field "$f" main 2)" = 0.100 "main: the process's 10 samples"
check "$(csv_field "$f" mod_worker 1)/$(csv_field "$f" kthread 2)" = 0.030/0.030 "kernel thread: mod_worker (a module's symbol) under kthread"
check "$(grep -c '<Unknown>' <<<"$f")" = 0 "a kernel-only stack is not <Unknown>"
t=$("$LWPROF" print -metrics i.total:name -calltree "$exp")
echo "$t"
chain=$(sed -n 's/^ *[0-9.]* *[| ]*+-//p' <<<"$t" | tr '\n' ' ')
check "$chain" = "main A C E entry_SYSCALL_64 ksys_read copy_user kthread mod_worker " \
	"calltree: the kernel frames below the user leaf, callee side"
o=$("$LWPROF" print -printmode csv -metrics e.total:name -objects "$exp")
check "$(csv_field "$o" '[kernel.kallsyms]' 1)/$(csv_field "$o" '[mymod]' 1)" = 0.060/0.030 \
	"[kernel.kallsyms]: the 6 core-kernel leaf samples; the module's 3 in [mymod] (print_kmods)"

# no kallsyms copy (kptr_restrict): each kernel pc by its address
exp=$(script | gen_exp nosyms -)
f=$("$LWPROF" print -printmode csv -metrics e.total:i.total:name -functions "$exp")
check "$(csv_field "$f" 0xffffffff81000150 1)" = 0.060 "without kallsyms: the leaf by address"
check "$(csv_field "$f" 0xffffffff81000410 2)" = 0.060 "and its callers"
check "$(csv_field "$f" E 2)" = 0.100 "E inclusive still 10 samples"
done_testing
