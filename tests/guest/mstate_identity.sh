#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-thread identities, against the kernel's own schedstat read after each
# thread's very end (three single-threaded children pinned to one CPU that
# spin, make system calls, sleep and wait for the CPU; read as zombies):
# the ten states sum to the thread's REAL within 0.1%, USER+SYS+TRAP is
# within 1% of the schedstat run time and WAIT_CPU within 2% of the
# schedstat run-queue wait.
. "$(dirname "$0")/../lib/test.sh"
. "$(dirname "$0")/../lib/mstate.sh"

ms_setup identity
ms_ptime "$ms_progs/ms_ident"

for c in child0 child1 child2; do
	ms_check_sched $c
done
ms_check_sums
done_testing
