#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A file-capability exec under an ordinary user's recording
# (docs/design/security.md): a copy of secret_spin with cap_dac_read_search in
# its file capabilities reads a secret only root may read, run by uid
# 65534 from its own program.  Its user IDs do not change and it stays
# dumpable, but its capabilities are more than the recording user's and
# the kernel runs it in secure mode: the experiment holds none of the
# secret and says why it stopped.  Root records it whole.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/secure.sh"

sec_setup sec_filecaps
command -v setcap >/dev/null || skip "no setcap (libcap2-bin)"
cp "$progs/secret_spin" caps_spin &&
	setcap cap_dac_read_search+ep caps_spin || skip "setcap refused here"

exec_stops n.er caps_spin

"$LWPROF" collect -o r.er "$progs/spin_exec" 0.5 ./caps_spin secret 1.5 \
	>/dev/null 2>err.txt
check $? -eq 0 "root: the same exits 0 ($(cat err.txt))"
check "$(leaked r.er)" -gt 0 "  root's experiment holds the secret"
check "$("$LWPROF" dump r.er | grep -c ': STOP ')" -eq 0 "  and no STOP record"
collect_done
