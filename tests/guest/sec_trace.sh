#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tracing library in a secure-mode program (docs/design/security.md): the
# dynamic linker still preloads a library named without a slash from its
# own directories if the file is set-user-ID, so a copy installed that
# way loads into a set-user-ID root program run by uid 65534 with the
# library's settings in its environment.  It must stay inert there: no
# file made as root where the caller's LWPROF_TRACE_DIR says.  And collect
# -s on the user's program that execs the set-user-ID one says in log.txt
# that it was not traced, and that its recording stopped.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_trace
libdir=/lib/x86_64-linux-gnu
[ -d "$libdir" ] || skip "no $libdir"
lib=liblwprof_trace_secure_test.so
cp "$LWPROF_BUILD/liblwprof_trace.so" "$libdir/$lib" && chmod 4755 "$libdir/$lib" ||
	skip "cannot install a copy of the library in $libdir"
trap 'r=$?; rm -f "$libdir/$lib"; (exit $r); unload_lwprof' EXIT
cp "$progs/secret_spin" suid_spin && chmod 4755 suid_spin
mkdir out && chmod 777 out

rm -f go
bg_nobody env LD_PRELOAD=$lib LWPROF_TRACE=hsi,1000,512 LWPROF_TRACE_DIR="$work/out" \
	./suid_spin -w go secret 0.5 >/dev/null
pid=$bg_pid
started "$pid" suid_spin
grep -q "$lib" "/proc/$pid/maps"
check $? -eq 0 "the dynamic linker loaded the copy into the set-user-ID program"
touch go
wait "$pid"
check $? -eq 0 "  which ran and read the secret"
check "$(ls -A out | wc -l)" -eq 0 "  and the library made no file in LWPROF_TRACE_DIR ($(ls -l out))"

nobody "$LWPROF" collect -s on -o t.er "$progs/spin_exec" 0.3 ./suid_spin secret 0.5 \
	>/dev/null 2>err.txt
check $? -eq 0 "uid 65534: collect -s spin_exec ... suid_spin exits 0 ($(cat err.txt))"
grep -q "^warning = tracing: .*suid_spin is set-user-ID" t.er/log.txt
check $? -eq 0 "  log.txt: it was not traced"
grep -q "^warning = pid [0-9]* tid [0-9]* (suid_spin) not recorded from then on: it exec'd" t.er/log.txt
check $? -eq 0 "  log.txt: its recording stopped at the exec"
check "$(leaked t.er)" -eq 0 "  no 8 bytes of the secret in the experiment"
collect_done
