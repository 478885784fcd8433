#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A sample is resolved against the mapping in place at its time.  A
# library unloaded and another mapped at its address (dlclose, dlopen),
# then the first again; a child forked while the second was in place
# inherits that one (tests/data/exp/remap.gen): each sample goes to the
# mapping of its time, not the latest at its address, and the child's
# inherited mappings keep the times they had in the parent.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp remap)
P() { "$LWPROF" print -printmode csv -metrics e.user:i.user:name "$@" "$exp" 2>/dev/null; }

o=$(P -objects)
check "$(csv_field "$o" '<Total>' 1)" = 3.600 "<Total> is 3.6 s"
check "$(csv_field "$o" seed_example.bin 1)" = 1.500 "A (seed_example.bin): 1 s before B, 0.5 s after"
check "$(csv_field "$o" symbols.bin 1)" = 2.100 "B (symbols.bin): 2 s, and 0.1 s in the child"
f=$(P -functions)
check "$(csv_field "$f" E 1)" = 1.500 "A's leaf E: 1.5 s exclusive"
check "$(csv_field "$f" A 2)" = 1.500 "A's caller A: 1.5 s inclusive"
check "$(csv_field "$f" ns::Widget::spin 1)" = 2.100 "B's leaf ns::Widget::spin: 2.1 s exclusive"
check "$(grep -c '<static>' <<<"$f")" -eq 0 "no address left between symbols"
done_testing
