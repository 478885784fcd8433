#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Machine mode names JIT code by the method that held its address at
# each sample's time, not the last compiled there: a generated JVM
# (tests/data/exp/java_reuse.gen) runs 30 ms at an address while
# Demo.hot()'s code is there, then, the code freed and Demo.cold()
# compiled at the same address, 20 ms more.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/print.sh"

exp=$(gen_exp java_reuse)
f=$("$LWPROF" print -viewmode machine -printmode csv -metrics e.user:name -functions "$exp" 2>&1)
sed 's/^/# /' <<<"$f"
check "$(csv_field "$f" 'Demo.hot()' 1)" = 0.030 "Demo.hot(): its 30 ms before its code was freed"
check "$(csv_field "$f" 'Demo.cold()' 1)" = 0.020 "Demo.cold(): its 20 ms at the address it took after"
f=$("$LWPROF" print -viewmode machine -printmode csv -metrics i.user:name -callers-callees \
	-csingle 'Demo.hot()' "$exp" 2>&1)
check "$(grep -c 'main' <<<"$f")" -ge 1 "Demo.hot() called from main"
done_testing
