#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest/stress_attach with CPU 1 going offline and online all along: CPUs
# come and go while lwprof attaches and detaches its probes (its per-CPU
# state reset with hotplug held off, the notifiers of offline CPUs).
LWPROF_STRESS_HOTPLUG=1 exec "$(dirname "$0")/stress_attach.sh"
