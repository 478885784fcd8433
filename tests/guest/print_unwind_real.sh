#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The per-pc CFI cache on what the recorder really writes: lwprof collect
# of Debian's gzip (built -O2 without frame pointers) compressing 4 MiB,
# every packet with registers and a copy of the user stack.  Each sample is
# unwound both with the cache and with libdwfl (LWPROF_UNWIND=check): none
# may differ; the cache must do the walking (few samples left to libdwfl);
# and the walk must reach gzip's main through its own code: at least 98%
# of the time outside the dynamic loader's start (_dl_start, before main;
# it reads the libraries over the guest's 9p root, longer the busier the
# host: 11% of the samples once at load 8) has main on the stack.  The
# rest is gzip's _start, 0.8% (21 ms of 2.72 s) at load 8.  The exit's
# time after exit_mm() (80 ms once, with 13 ms of user time that no tick
# could take on a busy host) is in the EXIT packet, charged to main.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/session.sh"
. "$(dirname "$0")/../lib/unwind_real.sh"

load_lwprof
need_sampling
command -v gzip >/dev/null || skip "no gzip"
work=$(mktemp -d /tmp/print_unwind_real.XXXXXX) || exit 1
cd "$work" || exit 1
head -c 4M "$LWPROF_BUILD/tests/data/cold.bin" >in.bin
"$LWPROF" collect -p 1ms -o gz.er gzip -9 -c in.bin >/dev/null
check $? -eq 0 "collect gzip -9 (4 MiB)"
unwind_check_walks gz.er i.total
rm -rf "$LWPROF_OUT/print_unwind_real.er"; cp -r gz.er "$LWPROF_OUT/print_unwind_real.er" 2>/dev/null
done_testing
