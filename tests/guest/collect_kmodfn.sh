#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel module's function named under its module on real sampled
# stacks: the guest's root is 9p, so a first read of a file
# there waits in 9pnet's p9_client_rpc() for the host's answer.  collect
# -K -p 1ms of dd reading files not read before in this boot: the Sleep
# of those waits lands on p9_client_rpc, whose load object is [9pnet]
# (from kallsyms' [9pnet] and archives/modules), and 9p's own v9fs_*
# functions are under [9p] (the Sleep not checked where the module keeps
# no kernel stack of a thread switched out).  Skips where 9p is built in.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/collect.sh"

collect_setup collect_kmodfn
need_kprof
grep -q '^9pnet ' /proc/modules || skip "9pnet is not a module here"
# Files this boot has not read: the kernel's own modules (its init read
# only the few it loads).  About 8 MiB of them.
files=$(find "/lib/modules/$(uname -r)/kernel/drivers" -name '*.ko*' -size +100k | sort | head -n 40)
"$LWPROF" collect -K -p 1ms -o m.er /bin/bash -c "cat $(echo $files) >/dev/null" >out 2>collect.err
check $? -eq 0 "collect -K -p 1ms cat of $(echo "$files" | wc -l) modules' files ($(head -n 1 collect.err))"
f=$("$LWPROF" print -fsingle p9_client_rpc m.er 2>&1)
echo "$f" | sed 's/^/# /'
obj=$(awk -F': ' '/Load Object:/ { print $2 }' <<<"$f")
check "$obj" = "[9pnet]" "p9_client_rpc's load object is [9pnet] ($obj)"
sl=$(awk '/Exclusive Sleep Time:/ { print $4 }' <<<"$f")
# Where the module keeps no kernel stack of a thread switched out (a gap
# lwprof version names: PREEMPT_RT), a wait's time has no kernel stack
# to land on: it goes out with the user stack alone.
if module_gap "no kernel stack where off-CPU time began"; then
	echo "# not checked: the reads' waits on p9_client_rpc ($sl s of Sleep): no kernel stack where off-CPU time began here"
else
	awk -v s="${sl:-0}" 'BEGIN { exit !(s > 0) }'
	check $? -eq 0 "the reads' waits have Sleep on it ($sl s)"
fi
o=$("$LWPROF" print -objects m.er)
echo "$o" | sed 's/^/# /'
grep -q '\[9p\]' <<<"$o"
check $? -eq 0 "9p's functions have their object, [9p], in -objects"
collect_done
