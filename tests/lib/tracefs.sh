# SPDX-License-Identifier: GPL-2.0
# notrace/withtrace CMD...: run CMD (root) in a mount namespace of its own
# without tracefs, or with it mounted, whatever the host has: perf's
# tracepoint counters need their ids from tracefs.  withtrace exits 99
# when tracefs cannot be mounted.
notrace() {
	unshare -m --propagation private -- sh -c \
		'umount -l /sys/kernel/tracing /sys/kernel/debug/tracing 2>/dev/null; exec "$0" "$@"' "$@"
}
withtrace() {
	unshare -m --propagation private -- sh -c \
		'mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || exit 99; exec "$0" "$@"' "$@"
}
